package corpus_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
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

// TestShared generates a small tree with the shared generator and finds it again in the
// cache instead of generating it twice.
func TestShared(t *testing.T) {
	root, err := repoRoot()
	if err != nil {
		t.Fatal(err)
	}
	gen, err := corpus.SharedGenerator(root)
	if err != nil {
		t.Skip(err)
	}
	cache := t.TempDir()
	dir, err := corpus.Shared(cache, gen, 30, 1)
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	if err := filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			files++
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if files != 30 {
		t.Errorf("%d files, want 30", files)
	}
	marker := filepath.Join(dir, "kept")
	if err := os.WriteFile(marker, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	again, err := corpus.Shared(cache, gen, 30, 1)
	if err != nil || again != dir {
		t.Fatalf("second call: %s, %v; want %s", again, err, dir)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Errorf("the cached tree was generated again: %v", err)
	}
	if other, err := corpus.Shared(cache, gen, 30, 2); err != nil || other == dir {
		t.Errorf("another seed: %s, %v", other, err)
	}
}
