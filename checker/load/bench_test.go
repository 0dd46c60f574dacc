package load_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/corpus"
)

// BenchmarkLoad loads generated trees of about 1,000 and 20,000 files.
func BenchmarkLoad(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := corpus.Generate(dir, n); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
				if err != nil {
					b.Fatal(err)
				}
				if len(ws.Instances) == 0 {
					b.Fatal("no kube-proxy instances found")
				}
			}
		})
	}
}

// BenchmarkLoadCharts loads 50 generated Helm charts (75 variants), rendered with Helm's
// engine, and the same files without Chart.yaml (templates read unrendered): the difference
// is what rendering costs.
func BenchmarkLoadCharts(b *testing.B) {
	for _, render := range []bool{false, true} {
		b.Run(fmt.Sprintf("charts=50/render=%v", render), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := corpus.GenerateCharts(dir, 50, render); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
				if err != nil {
					b.Fatal(err)
				}
				if render && len(ws.Rendered) != 50*3*3/2 {
					b.Fatalf("%d rendered files, want %d", len(ws.Rendered), 50*3*3/2)
				}
			}
		})
	}
}
