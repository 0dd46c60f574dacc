package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// BenchmarkRun measures the engine's own cost: scheduling, collection, dedupe and sort of
// many findings from cheap rules.
func BenchmarkRun(b *testing.B) {
	ws := workspace("a.yaml", "b.yaml", "c.yaml")
	var rules []*checker.Rule
	for i := range 20 {
		rules = append(rules, rule(fmt.Sprintf("KP%03d", i), fmt.Sprintf("r%d", i), func(p *checker.Pass) error {
			for j := range 1000 {
				at(p, ws.Files[j%3].Path, j%500+1, "message")
			}
			return nil
		}))
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Run(context.Background(), ws, rules); err != nil {
			b.Fatal(err)
		}
	}
}
