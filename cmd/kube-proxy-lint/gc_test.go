package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"testing"
)

// TestCollectHarderAfterLoading: after loading the collector runs at rulesGCPercent
// (largeRulesGCPercent with a large live heap) until restored, unless the user set GOGC,
// which is left alone.
func TestCollectHarderAfterLoading(t *testing.T) {
	t.Setenv("GOGC", "")
	if err := os.Unsetenv("GOGC"); err != nil {
		t.Fatal(err)
	}
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
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
