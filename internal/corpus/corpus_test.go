package corpus_test

import (
	"context"
	"fmt"
	"io"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/corpus"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestGenerate checks that the corpus has the shape the benchmarks rely on.
func TestGenerate(t *testing.T) {
	dir := t.TempDir()
	n, err := corpus.Generate(dir, 100)
	if err != nil || n != 100 {
		t.Fatalf("generated %d files: %v", n, err)
	}
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Instances) == 0 || len(ws.Problems) != 0 {
		t.Fatalf("instances %d, problems %v", len(ws.Instances), ws.Problems)
	}
	out, err := engine.Run(context.Background(), ws, rules.All())
	if err != nil || len(out.Findings) == 0 || out.InternalErrors != 0 {
		t.Fatalf("findings %d, internal errors %d, err %v", len(out.Findings), out.InternalErrors, err)
	}
}

// BenchmarkFullRun is the whole pipeline on generated trees: load, every rule, JSON report.
func BenchmarkFullRun(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := corpus.Generate(dir, n); err != nil {
				b.Fatal(err)
			}
			benchFullRun(b, dir)
			b.ReportMetric(float64(n), "files/op")
		})
	}
}

// benchFullRun times the whole pipeline on dir: load, every Go rule, JSON report.
func benchFullRun(b *testing.B, dir string) {
	b.Helper()
	f, err := report.New("json", report.Options{})
	if err != nil {
		b.Fatal(err)
	}
	all := rules.All()
	b.ResetTimer()
	for b.Loop() {
		ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
		if err != nil {
			b.Fatal(err)
		}
		out, err := engine.Run(context.Background(), ws, all)
		if err != nil {
			b.Fatal(err)
		}
		if err := f.Format(io.Discard, &report.Result{Findings: out.Findings, Rules: all, Target: ws.Target}); err != nil {
			b.Fatal(err)
		}
	}
}
