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

// TestBuiltinReads: a built-in rule evaluated on every workload of its kinds (no
// `workloads: kube-proxy`, no modes) says so in checker.Rule.Reads, which keeps the loader
// from dropping those workloads' trees; the others read only kube-proxy's.
func TestBuiltinReads(t *testing.T) {
	got := map[string][]string{}
	for _, r := range policy.Builtin() {
		if len(r.Reads) > 0 {
			got[r.ID] = r.Reads
		}
	}
	if len(got) != 1 || len(got["KP603"]) != 1 || got["KP603"][0] != "DaemonSet" {
		t.Errorf("rules that read workloads whole: %v, want KP603 [DaemonSet]", got)
	}
}
