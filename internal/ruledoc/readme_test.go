package ruledoc_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestReadmeListsRules keeps the README's rule table true to the registry: every rule with
// its name and a link to its doc, and no rule that does not exist.
func TestReadmeListsRules(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile(`\| \[(KP\d{3})\]\(docs/rules/(KP\d{3})\.md\) \| `+"`([a-z0-9-]+)`").FindAllStringSubmatch(readme, -1) {
		if m[1] != m[2] {
			t.Errorf("README links %s to the doc of %s", m[1], m[2])
		}
		listed[m[1]+" "+m[3]] = true
	}
	for _, r := range policy.Merge(rules.All(), policy.Builtin()) {
		key := r.ID + " " + r.Name
		if !listed[key] {
			t.Errorf("README does not list %s (%s) with a link to docs/rules/%s.md", r.ID, r.Name, r.ID)
		}
		delete(listed, key)
	}
	for k := range listed {
		t.Errorf("README lists %s, which is not a rule", k)
	}
	// The commands the README promises must exist.
	for _, cmd := range []string{"go run ./cmd/kube-proxy-lint fixtures/repos/kubeadm-ipvs", "make test"} {
		if !strings.Contains(readme, cmd) {
			t.Errorf("README lacks %q", cmd)
		}
	}
}
