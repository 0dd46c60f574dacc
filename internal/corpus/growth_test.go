package corpus_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/hostile"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// lintFiles loads files and runs every Go rule on them.
func lintFiles(tb testing.TB, files map[string][]byte) int {
	ws := load.Files(files, nil)
	out, err := engine.Run(context.Background(), ws, rules.All())
	if err != nil || out.InternalErrors != 0 {
		tb.Fatalf("internal errors %d, err %v", out.InternalErrors, err)
	}
	return len(out.Findings)
}

// TestGrowthAllocatesLinearly loads and lints each growing input of internal/hostile at n
// and 10n items and requires the bytes allocated to grow at most 15 times: a per-item copy of
// the line, command or file (a string of the whole line per flag, a guard per command holding
// every word before it) allocates 100 times more at 10n. Allocation is counted, not time, so
// the test holds on a loaded machine; BenchmarkGrowth shows the time.
func TestGrowthAllocatesLinearly(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 30 inputs of up to 2,000 items")
	}
	const n = 200
	for _, g := range hostile.GrowthShapes {
		t.Run(g.Name, func(t *testing.T) {
			var alloc [2]uint64
			var found [2]int
			for i, size := range []int{n, 10 * n} {
				files := g.Gen(size)
				lintFiles(t, files) // warm up: lazily built tables are not part of the growth
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				found[i] = lintFiles(t, files)
				runtime.ReadMemStats(&after)
				alloc[i] = after.TotalAlloc - before.TotalAlloc
			}
			if alloc[1] > 15*alloc[0] {
				t.Errorf("%d items allocate %d bytes, %d items %d bytes: %.1f times", n, alloc[0], 10*n, alloc[1], float64(alloc[1])/float64(alloc[0]))
			}
			if found[0] == 0 || found[1] == 0 {
				t.Errorf("findings %v: the input does not reach the rules it is for", found)
			}
		})
	}
}

// BenchmarkGrowth loads and lints each growing input of internal/hostile (flags on one line,
// continued lines, documents in one file) at 1,000 and 10,000 items: linear work shows the
// same ns/item at both sizes (go test -bench Growth ./internal/corpus).
func BenchmarkGrowth(b *testing.B) {
	for _, g := range hostile.GrowthShapes {
		for _, n := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%s/n=%d", g.Name, n), func(b *testing.B) {
				files := g.Gen(n)
				b.ReportAllocs()
				for b.Loop() {
					lintFiles(b, files)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/item")
			})
		}
	}
}
