package corpus_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/corpus"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// BenchmarkRules compares the rule phase on generated trees with the Go rules alone and with
// the built-in Rego rules added (all of them, including the ones off by default). Loading is
// outside the timer; ns/doc is the cost per document.
func BenchmarkRules(b *testing.B) {
	for _, n := range []int{1000, 20000} {
		dir := b.TempDir()
		if _, err := corpus.Generate(dir, n); err != nil {
			b.Fatal(err)
		}
		ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
		if err != nil {
			b.Fatal(err)
		}
		for _, set := range []struct {
			name  string
			rules []*checker.Rule
		}{
			{"go", rules.All()},
			{"go+rego", policy.Merge(rules.All(), policy.Builtin())},
			{"rego", policy.Builtin()},
		} {
			b.Run(fmt.Sprintf("files=%d/rules=%s", n, set.name), func(b *testing.B) {
				for b.Loop() {
					// A fresh workspace view per iteration, as in a real run: copy the
					// workspace so the policy cache keyed by it starts cold.
					cp := *ws
					out, err := engine.Run(context.Background(), &cp, set.rules)
					if err != nil || out.InternalErrors > 0 {
						b.Fatalf("err %v, internal errors %d", err, out.InternalErrors)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ws.Docs)), "ns/doc")
			})
		}
	}
}
