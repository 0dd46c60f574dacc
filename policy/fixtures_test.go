package policy_test

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

const fixtureRoot = "../fixtures/rules"

// TestFixtures runs every built-in Rego rule over fixtures/rules/<ID> with the same harness
// as the Go rules, so their positions are proven the same way.
func TestFixtures(t *testing.T) {
	checkertest.RunRules(t, policy.Builtin(), fixtureRoot)
}
