package policy_test

import (
	"context"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// TestRegoUnitTests runs the _test.rego file next to every built-in Rego rule.
func TestRegoUnitTests(t *testing.T) {
	srcs, err := policy.BuiltinSources(true)
	if err != nil {
		t.Fatal(err)
	}
	res, err := policy.RunTests(context.Background(), srcs, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res) == 0 {
		t.Fatal("no Rego tests ran")
	}
	for _, r := range res {
		if !r.Pass && !r.Skip {
			t.Errorf("%s: %s failed (at %s): %v\n%s", r.Location, r.Name, r.FailedAt, r.Err, r.Output)
		}
	}
}
