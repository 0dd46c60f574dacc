package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
)

// defaultGOGC runs the test as a run without GOGC in its environment, at GOGC 100, and
// restores the collector's setting after it.
func defaultGOGC(t *testing.T) {
	t.Helper()
	t.Setenv("GOGC", "")
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	before := debug.SetGCPercent(100)
	t.Cleanup(func() { debug.SetGCPercent(before) })
}

// TestCollectHarderAfterLoading: after loading the collector runs at rulesGCPercent
// (largeRulesGCPercent with a large live heap) until restored, unless the user set GOGC,
// which is left alone.
func TestCollectHarderAfterLoading(t *testing.T) {
	defaultGOGC(t)
	freed := 0
	oldFree := returnFreeMemory
	returnFreeMemory = func() { freed++ }
	defer func() { returnFreeMemory = oldFree }()

	restore := collectHarderAfterLoading()
	if got := debug.SetGCPercent(rulesGCPercent); got != rulesGCPercent {
		t.Errorf("GOGC %d after loading, want %d", got, rulesGCPercent)
	}
	restore()
	restore()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d once restored, want 100", got)
	}
	if freed != 0 {
		t.Errorf("a small heap was returned to the system %d times", freed)
	}

	// A large heap after loading: the collector works harder still.
	hold := make([]byte, largeHeap+(8<<20))
	for i := range hold {
		hold[i] = byte(i)
	}
	runtime.GC()
	restore = collectHarderAfterLoading()
	if got := debug.SetGCPercent(100); got != largeRulesGCPercent {
		t.Errorf("GOGC %d after loading %d MiB, want %d", got, len(hold)>>20, largeRulesGCPercent)
	}
	if freed != 1 {
		t.Errorf("a large heap's free memory was returned %d times, want once", freed)
	}
	restore()
	runtime.KeepAlive(hold)
	runtime.GC()

	t.Setenv("GOGC", "200")
	debug.SetGCPercent(200)
	restore = collectHarderAfterLoading()
	if got := debug.SetGCPercent(200); got != 200 {
		t.Errorf("GOGC %d after loading with GOGC=200 set by the user, want 200", got)
	}
	restore()
	if freed != 1 {
		t.Errorf("with GOGC set by the user the free memory was returned: %d times", freed)
	}
}

// While loading, GOGC drops to loadingGCPercent once largeLoad is live, and comes back when
// loading ends; a small load and a GOGC set by the user are left alone.
func TestCollectHarderWhileLoading(t *testing.T) {
	defaultGOGC(t)
	runtime.GC()
	if live, _ := budget.LiveHeap(); live >= largeLoad {
		t.Skipf("%d MiB live before the test", live>>20)
	}

	stop := collectHarderWhileLoading()
	time.Sleep(100 * time.Millisecond)
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d while a small load runs, want 100", got)
	}
	stop()
	stop()

	stop = collectHarderWhileLoading()
	hold := make([]byte, largeLoad+(8<<20))
	for i := range hold {
		hold[i] = byte(i)
	}
	runtime.GC()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := gogc(t)
		if got == loadingGCPercent || time.Now().After(deadline) {
			if got != loadingGCPercent {
				t.Errorf("GOGC %d with %d MiB live while loading, want %d", got, len(hold)>>20, loadingGCPercent)
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	stop()
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("GOGC %d once loading ended, want 100 again", got)
	}
	runtime.KeepAlive(hold)
	runtime.GC()

	t.Setenv("GOGC", "200")
	debug.SetGCPercent(200)
	stop = collectHarderWhileLoading()
	big := make([]byte, largeLoad+(8<<20))
	runtime.GC()
	time.Sleep(100 * time.Millisecond)
	if got := debug.SetGCPercent(200); got != 200 {
		t.Errorf("GOGC %d while loading with GOGC=200 set by the user, want 200", got)
	}
	stop()
	runtime.KeepAlive(big)
}

// gogc reads GOGC without setting it (the watcher may set it meanwhile).
func gogc(t *testing.T) int {
	t.Helper()
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Fatal("no /gc/gogc:percent")
	}
	return int(s[0].Value.Uint64())
}

// TestSoftLimit: from limitHeap live, the soft memory limit follows the live heap while
// loading (loadingLimitFactor) and is rulesLimitFactor times it after loading, each restored
// when its phase ends; a lower limit in force (GOMEMLIMIT, the run's budget) is kept, one set
// by another since is left in place, and a GOGC set by the user turns it off.
func TestSoftLimit(t *testing.T) {
	defaultGOGC(t)
	oldFree, oldHeap := returnFreeMemory, limitHeap
	returnFreeMemory, limitHeap = func() {}, 1
	before := debug.SetMemoryLimit(-1)
	defer func() {
		returnFreeMemory, limitHeap = oldFree, oldHeap
		debug.SetMemoryLimit(before)
	}()
	near := func(got int64, factor float64) bool {
		live, _ := budget.LiveHeap()
		want := factor * float64(live)
		return float64(got) > 0.8*want && float64(got) < 1.25*want
	}
	limit := func() int64 { return debug.SetMemoryLimit(-1) }

	runtime.GC()
	restore := collectHarderAfterLoading()
	if got := limit(); !near(got, rulesLimitFactor) {
		t.Errorf("limit %d MiB after loading, want about %.1f times the live heap", got>>20, rulesLimitFactor)
	}
	restore()
	restore()
	if got := limit(); got != before {
		t.Errorf("limit %d once restored, want %d", got, before)
	}

	stop := collectHarderWhileLoading()
	deadline := time.Now().Add(10 * time.Second)
	for !near(limit(), loadingLimitFactor) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := limit(); !near(got, loadingLimitFactor) {
		t.Errorf("limit %d MiB while loading, want about %.1f times the live heap", got>>20, loadingLimitFactor)
	}
	stop()
	if got := limit(); got != before {
		t.Errorf("limit %d once loading ended, want %d", got, before)
	}

	// A lower limit in force is kept, and stays once restored.
	runtime.GC()
	live, _ := budget.LiveHeap()
	low := live * 5 / 4 // below rulesLimitFactor times it
	debug.SetMemoryLimit(low)
	restore = collectHarderAfterLoading()
	if got := limit(); got != low {
		t.Errorf("limit %d with a lower one in force, want %d", got, low)
	}
	restore()
	if got := limit(); got != low {
		t.Errorf("limit %d once restored, want the lower one %d", got, low)
	}
	debug.SetMemoryLimit(before)

	// Another setting replaced the run's limit: restoring leaves it.
	restore = collectHarderAfterLoading()
	other := live + 128<<20
	debug.SetMemoryLimit(other)
	restore()
	if got := limit(); got != other {
		t.Errorf("limit %d once restored, want the one set since %d", got, other)
	}
	debug.SetMemoryLimit(before)

	t.Setenv("GOGC", "200")
	debug.SetGCPercent(200)
	restore = collectHarderAfterLoading()
	if got := limit(); got != before {
		t.Errorf("limit %d with GOGC set by the user, want %d", got, before)
	}
	restore()
}
