package rules_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

const fixtureRoot = "../fixtures/rules"

// TestFixtures runs every rule over its fixtures and requires positive and negative cases.
func TestFixtures(t *testing.T) {
	for _, r := range rules.All() {
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
