package policy_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

const fixtureRoot = "../fixtures/rules"

// TestFixtures runs every built-in Rego rule over fixtures/rules/<ID> with the same harness
// as the Go rules, so their positions are proven the same way.
func TestFixtures(t *testing.T) {
	for _, r := range policy.Builtin() {
		t.Run(r.ID, func(t *testing.T) {
			dir := filepath.Join(fixtureRoot, r.ID)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("rule %s has no fixtures in %s", r.ID, dir)
			}
			st := checkertest.Run(t, r, dir)
			if st.Positive == 0 {
				t.Errorf("rule %s has no positive fixture (a file with # want)", r.ID)
			}
			if st.Negative == 0 {
				t.Errorf("rule %s has no negative fixture (a file without # want)", r.ID)
			}
		})
	}
}
