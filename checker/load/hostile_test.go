package load

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/hostile"
)

// The hostile repositories of issue 11 that the loader meets (internal/hostile). Each test has
// a memory budget checked with runtime.MemStats (bytes allocated while loading, which bounds
// the peak) and a context deadline that only tells a hang from a slow machine; none times the
// work.

const hangDeadline = 2 * time.Minute

// allocated runs f and returns the bytes it allocated (all goroutines; tests of this file do
// not run in parallel).
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func loadWithin(t *testing.T, opts Options) *checker.Workspace {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	ws, err := Load(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// Item 7: alias bombs within the old per-document budget, many times over. The budget is per
// file and per run now, and what is refused does not depend on scheduling.
func TestHostileAliasBombs(t *testing.T) {
	for _, tc := range []struct {
		name                string
		files, docs, size   int
		kind                string
		maxAlloc            uint64
		wantRefused, wantOK int
	}{
		// 30 documents of 8 KB in one file took 950 MB: one fits the file's budget.
		{"30 documents", 1, 30, 8 << 10, "Foo", 64 << 20, 29, 1},
		// 300 files of 80 KB exceeded 6 GB: four fit the run's budget.
		{"300 files", 300, 1, 80 << 10, "Foo", 600 << 20, 296, 4},
		// Typed documents are expanded for a moment when decoded (json.Marshal); the same
		// budgets hold.
		{"typed", 30, 1, 8 << 10, "ConfigMap", 160 << 20, 26, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k, levels := 31, 4 // 954,000 nodes a document
			if raceEnabled {
				// The race detector makes parsing 24 MB of padding, and decoding four typed
				// documents of a million nodes, slow: the budgets are the same with less
				// padding, and typed documents within them are smaller.
				switch {
				case tc.size > 8<<10:
					tc.size, tc.maxAlloc = 8<<10, tc.maxAlloc/4
				case tc.kind == "ConfigMap":
					tc.files, tc.wantRefused, tc.wantOK, k, levels = 2, 0, 2, 10, 5
				}
			}
			dir := t.TempDir()
			for i := range tc.files {
				b := hostile.AliasBomb(tc.kind, tc.docs, tc.size, k, levels)
				if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("bomb%03d.yaml", i)), b, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var ws *checker.Workspace
			got := allocated(func() { ws = loadWithin(t, Options{Paths: []string{dir}, Root: dir}) })
			if got > tc.maxAlloc {
				t.Errorf("loading allocated %d MB, budget %d MB", got>>20, tc.maxAlloc>>20)
			}
			refused, ok := 0, 0
			var first []string
			for _, d := range ws.Docs {
				if _, err := d.Generic(); err != nil {
					refused++
				} else {
					ok++
					first = append(first, d.File.Path)
				}
			}
			if refused != tc.wantRefused || ok != tc.wantOK {
				t.Errorf("%d documents refused, %d converted; want %d and %d", refused, ok, tc.wantRefused, tc.wantOK)
			}
			// Deterministic: the first files in input order get the budget.
			for i, p := range first {
				if tc.files > 1 && p != fmt.Sprintf("bomb%03d.yaml", i) {
					t.Errorf("document %d converted from %s: the run's budget is not spent in input order", i, p)
				}
			}
		})
	}
}

// Item 8: ConfigMaps nested in config.conf 400 levels deep (1.9 MB) are decoded 4 levels
// deep, without a per-byte table per level.
func TestHostileNestedConfigMaps(t *testing.T) {
	levels := 400
	if raceEnabled {
		levels = 100 // 120 KB: the same depth cap, faster under the race detector
	}
	b := hostile.NestedConfigMaps(levels, 0)
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "nested.yaml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	var ws *checker.Workspace
	got := allocated(func() { ws = loadWithin(t, Options{Paths: []string{dir}, Root: dir}) })
	// About 70 times the input: yaml.v3 decodes the outer file and four embedded copies.
	if limit := uint64(len(b)) * 100; got > limit {
		t.Errorf("loading %d bytes allocated %d MB, budget %d MB", len(b), got>>20, limit>>20)
	}
	found := false
	for _, p := range ws.Problems {
		if strings.Contains(p.Message, "embedded more than 4 levels deep") {
			found = true
		}
	}
	if !found {
		t.Errorf("no notice about the depth: %v", ws.Problems)
	}
}

// Item 10: lone CR line ends are line ends, as for yaml.v3: the finding is on line 3.
func TestHostileLoneCR(t *testing.T) {
	ws := Bytes("mac.yaml", hostile.LoneCR(), nil)
	if len(ws.Instances) != 1 || len(ws.Docs) != 1 {
		t.Fatalf("instances %d, docs %d", len(ws.Instances), len(ws.Docs))
	}
	pos, _, ok := ws.Docs[0].ValuePos(checker.Path{"mode"})
	if !ok || pos.Line != 3 || pos.Column != 7 {
		t.Errorf("mode at %v, want line 3 column 7", pos)
	}
}

// Item 12: a cancelled load stops, inside a long file too.
func TestHostileCancelledLoad(t *testing.T) {
	dir := t.TempDir()
	for i := range 50 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d.yaml", i)), hostile.AliasBomb("Foo", 200, 1<<10, 3, 3), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Load(ctx, Options{Paths: []string{dir}, Root: dir}); err == nil {
		t.Error("a cancelled load returned no error")
	}
	// In-file: the document loop checks the context.
	f, probs := readAndParse(ctx, input{name: "x.yaml", content: hostile.AliasBomb("Foo", 200, 1<<10, 3, 3)}, DefaultMaxFileSize)
	if f != nil || probs != nil {
		t.Errorf("a cancelled file was decoded: %d documents", len(f.Docs))
	}
}
