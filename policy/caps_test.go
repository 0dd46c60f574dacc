package policy_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// TestCapabilitiesPinned fails when the linked OPA offers other builtins than the pinned
// release: review the new ones against the sandbox, then update CapabilitiesVersion.
func TestCapabilitiesPinned(t *testing.T) {
	pinned, err := ast.LoadCapabilitiesVersion(policy.CapabilitiesVersion)
	if err != nil {
		t.Fatal(err)
	}
	names := func(c *ast.Capabilities) string {
		var s []string
		for _, b := range c.Builtins {
			s = append(s, b.Name)
		}
		sort.Strings(s)
		return strings.Join(s, " ")
	}
	if got, want := names(ast.CapabilitiesForThisVersion()), names(pinned); got != want {
		t.Errorf("the linked OPA's builtins differ from %s: review the sandbox and update CapabilitiesVersion", policy.CapabilitiesVersion)
	}
	for _, b := range policy.Capabilities().Builtins {
		if b.Name == "http.send" || b.Name == "opa.runtime" || strings.HasPrefix(b.Name, "net.") {
			t.Errorf("sandbox allows %s", b.Name)
		}
	}
	if len(policy.Capabilities().AllowNet) != 0 || policy.Capabilities().AllowNet == nil {
		t.Error("sandbox allows network hosts")
	}
}
