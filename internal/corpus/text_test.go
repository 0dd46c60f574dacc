package corpus_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/corpus"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestGenerateText checks that the text corpus yields command-line instances, heredoc
// configurations and KP102/KP401/KP402 findings, and no load problem.
func TestGenerateText(t *testing.T) {
	dir := t.TempDir()
	n, err := corpus.GenerateText(dir, 60)
	if err != nil || n != 60 {
		t.Fatalf("generated %d files: %v", n, err)
	}
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Problems) != 0 {
		t.Fatalf("problems: %+v", ws.Problems)
	}
	commands, heredocs := 0, 0
	for _, in := range ws.Instances {
		if in.Kind == checker.InstanceCommand {
			commands++
			if in.Config != nil && in.Config.File.Parent != nil {
				heredocs++
			}
		}
	}
	if commands == 0 || heredocs == 0 {
		t.Fatalf("command instances %d, heredoc configurations %d", commands, heredocs)
	}
	out, err := engine.Run(context.Background(), ws, rules.All())
	if err != nil || out.InternalErrors != 0 {
		t.Fatalf("internal errors %d, err %v", out.InternalErrors, err)
	}
	byRule := map[string]int{}
	for _, f := range out.Findings {
		byRule[f.RuleID]++
	}
	for _, id := range []string{"KP102", "KP401", "KP402"} {
		if byRule[id] == 0 {
			t.Errorf("no %s finding in the text corpus: %v", id, byRule)
		}
	}
}

// BenchmarkLoadText loads trees of generated scripts, units, Dockerfiles, Makefiles, flag
// files and templates.
func BenchmarkLoadText(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := corpus.GenerateText(dir, n); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkFullRunText is the whole pipeline (load, every rule, JSON report) on a mixed tree:
// n manifests from Generate plus n text inputs from GenerateText.
func BenchmarkFullRunText(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", 2*n), func(b *testing.B) {
			dir := b.TempDir()
			if _, err := corpus.Generate(dir, n); err != nil {
				b.Fatal(err)
			}
			if _, err := corpus.GenerateText(dir, n); err != nil {
				b.Fatal(err)
			}
			benchFullRun(b, dir)
		})
	}
}
