package config

import "testing"

// TestGlobBelow: declared cluster globs written for the configuration's directory, rebased to
// a root below it.
func TestGlobBelow(t *testing.T) {
	for _, c := range []struct{ g, down, want string }{
		{"clusters/a", "clusters/a", "**"},
		{"clusters/a/**", "clusters/a", "**"},
		{"clusters", "clusters/a", "**"},
		{"clusters/*", "clusters/a", "**"},
		{"clusters/a/kube-system", "clusters/a", "kube-system"},
		{"/clusters/a/k/*.yaml", "clusters/a", "k/*.yaml"},
		{"clusters/b", "clusters/a", neverMatches},
		{"nodes", "clusters/a", neverMatches},
		{"**/kube-system", "clusters/a", "**"},
	} {
		if got := globBelow(c.g, c.down); got != c.want {
			t.Errorf("globBelow(%q, %q) = %q, want %q", c.g, c.down, got, c.want)
		}
	}
}
