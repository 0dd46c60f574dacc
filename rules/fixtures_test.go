package rules_test

import (
	"os"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

const fixtureRoot = "../fixtures/rules"

// TestFixtures runs every rule over its fixtures and requires positive and negative cases.
func TestFixtures(t *testing.T) {
	checkertest.RunRules(t, rules.All(), fixtureRoot)
}

// TestFixtureDirsNameRules fails for fixture directories of rules that do not exist.
func TestFixtureDirsNameRules(t *testing.T) {
	ids := map[string]bool{}
	for _, r := range rules.All() {
		ids[r.ID] = true
	}
	// The built-in Rego rules keep their fixtures here too; policy's TestFixtures runs them.
	for _, r := range policy.Builtin() {
		ids[r.ID] = true
	}
	entries, err := os.ReadDir(fixtureRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !ids[e.Name()] {
			t.Errorf("fixtures/rules/%s names no Go or Rego rule", e.Name())
		}
	}
}
