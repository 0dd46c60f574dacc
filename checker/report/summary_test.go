package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

func target(t *testing.T, v, scope, source string) checker.Target {
	t.Helper()
	ver, err := checker.ParseVersion(v)
	if err != nil {
		t.Fatal(err)
	}
	return checker.Target{Version: ver, Scope: scope, Source: source}
}

// TestTargetsLine: a few scopes are named one by one; hundreds are counted per version, so
// the summary line of a monorepo stays one short line.
func TestTargetsLine(t *testing.T) {
	few := []checker.Target{target(t, "1.33", "a", "default"), target(t, "1.38", "b", "default")}
	if got, want := TargetsLine(few, checker.Target{}), TargetsText(few, checker.Target{}); got != want {
		t.Errorf("few scopes: %q, want the detailed %q", got, want)
	}
	var many []checker.Target
	for i := range 300 {
		v := []string{"1.31", "1.33", "1.40"}[i%3]
		src := fmt.Sprintf("from kube-proxy image tag at c%d/ds.yaml:30:16", i)
		if v == "1.40" {
			src = "default"
		}
		many = append(many, target(t, v, fmt.Sprintf("c%d", i), src))
	}
	got := TargetsLine(many, checker.Target{})
	want := "targets by cluster: 1.31 in 100 clusters, 1.33 in 100 clusters, 1.40 in 100 clusters (default)"
	if !strings.HasPrefix(got, want) || strings.Contains(got, "c42") || len(got) > 200 {
		t.Errorf("many scopes: %q, want it to start %q and name no scope", got, want)
	}
}
