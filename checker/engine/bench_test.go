package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
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

// BenchmarkSuppressInline measures the suppression processor on 2,000 files, one in ten with
// a suppression comment, and 2,000 findings.
func BenchmarkSuppressInline(b *testing.B) {
	ws := &checker.Workspace{}
	for i := range 2000 {
		c := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  a: b\n")
		if i%10 == 0 {
			c = []byte("apiVersion: v1\nkind: ConfigMap\n# kube-proxy-lint:ignore KP101 -- reason\nmetadata:\n  name: x\n")
		}
		ws.Files = append(ws.Files, &checker.File{Path: fmt.Sprintf("f%04d.yaml", i), Content: c, Lines: text.NewLineIndex(c)})
	}
	r := rule("KP101", "r", func(p *checker.Pass) error {
		for _, f := range p.Workspace.Files {
			at(p, f.Path, 4, "message")
		}
		return nil
	})
	b.ReportAllocs()
	for b.Loop() {
		out, err := Run(context.Background(), ws, []*checker.Rule{r})
		if err != nil || len(out.Suppressed) != 200 {
			b.Fatalf("suppressed %d, err %v", len(out.Suppressed), err)
		}
	}
}
