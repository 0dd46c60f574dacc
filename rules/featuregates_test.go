package rules

import (
	"strings"
	"testing"
)

// TestGateTable checks the feature gate table for consistency and pins the facts of RULES.md.
func TestGateTable(t *testing.T) {
	seen := map[string]bool{}
	for i, g := range kubeFeatureGates {
		if seen[g.Name] {
			t.Errorf("%s listed twice", g.Name)
		}
		seen[g.Name] = true
		if i > 0 && strings.ToLower(kubeFeatureGates[i-1].Name) >= strings.ToLower(g.Name) {
			t.Errorf("%s is not sorted after %s", g.Name, kubeFeatureGates[i-1].Name)
		}
		if g.Added <= 0 || (g.Removed != 0 && g.Removed <= g.Added) || (g.Locked != 0 && (g.Locked < g.Added || (g.Removed != 0 && g.Locked >= g.Removed))) {
			t.Errorf("%s has inconsistent versions: %+v", g.Name, g)
		}
	}
	for _, name := range []string{"NFTablesProxyMode", "KubeProxyIPVS", "KubeProxyNFTablesLocalhostNodePorts",
		"KubeProxyDrainingTerminatingNodes", "MinimizeIPTablesRestore", "ServiceInternalTrafficPolicy",
		"ProxyTerminatingEndpoints", "TopologyAwareHints", "ServiceTrafficDistribution", "IPv6DualStack",
		"EndpointSliceProxying", "WinDSR", "WinOverlay", "LoadBalancerIPMode", "MultiCIDRServiceAllocator", "NFTablesNetlink"} {
		if g, ok := lookupGate(name); !ok || !g.Proxy {
			t.Errorf("kube-proxy gate %s missing or not marked", name)
		}
	}
	nft, _ := lookupGate("NFTablesProxyMode")
	if *nft != (gateInfo{"NFTablesProxyMode", 29, 33, true, 38, true}) {
		t.Errorf("NFTablesProxyMode = %+v, want alpha 1.29, locked 1.33, removed 1.38", *nft)
	}
	if lh, _ := lookupGate("KubeProxyNFTablesLocalhostNodePorts"); lh.Added != 37 || lh.Removed != 0 {
		t.Errorf("KubeProxyNFTablesLocalhostNodePorts = %+v, want added 1.37", *lh)
	}
	for _, tc := range []struct{ in, want string }{
		{"NFTablesProxyMod", ""}, // only close to a gate removed at 1.40
		{"nftablesnetlink", "NFTablesNetlink"},
		{"TopologyAwareHint", "TopologyAwareHints"},
		{"Completely", ""},
	} {
		if got := suggestGate(tc.in, func(g *gateInfo) bool { return g.knownAt(40) }); got != tc.want {
			t.Errorf("suggestGate(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
