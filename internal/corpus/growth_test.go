package corpus_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/hostile"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// BenchmarkGrowth loads and lints each growing input of internal/hostile (flags on one line,
// continued lines, documents in one file) at 1,000 and 10,000 items: linear work shows the
// same ns/item at both sizes (go test -bench Growth ./internal/corpus).
func BenchmarkGrowth(b *testing.B) {
	all := rules.All()
	for _, g := range hostile.GrowthShapes {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%s/n=%d", g.Name, n), func(b *testing.B) {
				files := g.Gen(n)
				b.ReportAllocs()
				for b.Loop() {
					ws := load.Files(files, nil)
					if _, err := engine.Run(context.Background(), ws, all); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
			})
		}
	}
}
