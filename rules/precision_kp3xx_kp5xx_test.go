package rules

import (
	"context"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// TestPrecisionNodePortsMetrics runs the NodePort and metrics rules over a repository of
// realistic look-alikes (fixtures/precision/nodeports-metrics) that must produce nothing:
// ports outside the range, kube-proxy's metrics and healthz ports, etcd on 127.0.0.1:2379,
// kubectl port-forward, kind extraPortMappings, bind addresses, a Pod that is not
// hostNetwork, comments and pasted output, relabel drop lists and dashboards on
// mode-independent metrics.
func TestPrecisionNodePortsMetrics(t *testing.T) {
	const dir = "../fixtures/precision/nodeports-metrics"
	for _, target := range []checker.Version{{Major: 1, Minor: 38}, {Major: 1, Minor: 40}} {
		ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir, Target: &target})
		if err != nil {
			t.Fatal(err)
		}
		if len(ws.Files) < 15 {
			t.Errorf("only %d files loaded; the fixture needs scripts, units and TOML read", len(ws.Files))
		}
		for _, r := range []*checker.Rule{KP301, KP302, KP303, KP501, KP502} {
			pass := checker.NewPass(r, ws, func(f checker.Finding) {
				t.Errorf("target %s: %s: unexpected %s finding: %s", target, f.Pos, f.RuleID, f.Message)
			})
			if err := r.Run(pass); err != nil {
				t.Fatal(err)
			}
		}
	}
}
