package corpus_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/fix"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/corpus"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// BenchmarkFix is --diff on a generated tree: the first lint, then the fixer's passes (each a
// load and lint of the whole tree with the fixed files in place), with safe fixes only and
// with unsafe fixes too. It reports the fixes applied and the lints they took.
func BenchmarkFix(b *testing.B) {
	dir := b.TempDir()
	const n = 1000
	if _, err := corpus.Generate(dir, n); err != nil {
		b.Fatal(err)
	}
	all := rules.All()
	lint := func(ctx context.Context, overlay map[string][]byte) (*fix.Lint, error) {
		ws, err := load.Load(ctx, load.Options{Paths: []string{dir}, Root: dir, Overlay: overlay})
		if err != nil {
			return nil, err
		}
		out, err := engine.Run(ctx, ws, all)
		if err != nil {
			return nil, err
		}
		files := map[string][]byte{}
		for _, f := range ws.Files {
			if f.Parent == nil {
				files[f.Path] = f.Content
			}
		}
		return &fix.Lint{Findings: out.Findings, Problems: ws.Problems,
			Content: func(name string) ([]byte, bool) { c, ok := files[name]; return c, ok }}, nil
	}
	for _, unsafe := range []bool{false, true} {
		b.Run(fmt.Sprintf("unsafe=%t", unsafe), func(b *testing.B) {
			var applied, lints int
			for b.Loop() {
				first, err := lint(context.Background(), nil)
				if err != nil {
					b.Fatal(err)
				}
				res, err := fix.Run(context.Background(), first, lint, fix.Options{Unsafe: unsafe, Parse: load.Reparse})
				if err != nil {
					b.Fatal(err)
				}
				applied, lints = len(res.Applied), res.Lints+1
				if applied == 0 {
					b.Fatal("nothing fixed")
				}
				_ = fix.Diff(res.Files)
			}
			b.ReportMetric(float64(applied), "fixes/op")
			b.ReportMetric(float64(lints), "lints/op")
			b.ReportMetric(n, "files/op")
		})
	}
}
