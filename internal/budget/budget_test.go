package budget

import (
	"context"
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"time"
)

// Charges add up; going over stops the run's context, and the error names who spent it.
func TestChargeStopsRun(t *testing.T) {
	b := &Budget{MaxMemory: 1000}
	ctx, stop := Start(context.Background(), b)
	defer stop()
	if From(ctx) != b {
		t.Fatal("the context does not carry the budget")
	}
	b.Do("loading a.yaml")
	if err := b.Charge(600, "a.yaml"); err != nil {
		t.Fatal(err)
	}
	b.Release(200)
	if err := b.Charge(500, "b.yaml"); err != nil || b.Held() != 900 {
		t.Fatalf("err = %v, held = %d", err, b.Held())
	}
	err := b.Charge(200, "c.yaml")
	var e *ExceededError
	if !errors.As(err, &e) || e.What != "c.yaml" || e.Used != 1100 {
		t.Fatalf("err = %#v", err)
	}
	if ctx.Err() == nil || !errors.Is(context.Cause(ctx), err) {
		t.Errorf("the run's context is not stopped by the overrun: %v", context.Cause(ctx))
	}
	if got := err.Error(); got != "the run went over its memory budget of 1000 bytes (see --max-memory): 1 KiB in use; spent by c.yaml; stopped while loading a.yaml" {
		t.Errorf("message = %q", got)
	}
	// The first overrun is the one reported.
	b.Fail(&ExceededError{Resource: Time, Limit: 1})
	if !errors.Is(b.Err(), err) {
		t.Errorf("Err = %v, want the first overrun", b.Err())
	}
}

// A nil budget is no budget.
func TestNilBudget(t *testing.T) {
	var b *Budget
	if err := b.Charge(1<<40, "x"); err != nil || b.Err() != nil || b.Held() != 0 || b.Fraction(4, 7) != 7 {
		t.Error("a nil budget limits something")
	}
	b.Do("x")
	b.Release(1)
	b.Fail(&ExceededError{})
	b.Watch(time.Second)()
	b.Reserve(1)()
	ctx, stop := Start(context.Background(), nil)
	defer stop()
	if From(ctx) != nil {
		t.Error("a budget appeared")
	}
}

// The time budget stops the run and says what it was doing.
func TestTimeout(t *testing.T) {
	b := &Budget{Timeout: time.Nanosecond}
	ctx, stop := Start(context.Background(), b)
	defer stop()
	b.Do("rendering Helm chart c")
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the time budget did not stop the run")
	}
	if err := b.Err(); err == nil || !strings.HasPrefix(err.Error(), "the run took longer than its time budget of 1ns (see --timeout)") {
		t.Errorf("err = %v", err)
	}
}

// Memory no charge sees is watched through the heap: a live heap over the budget stops the
// run after the next collection.
func TestWatchHeap(t *testing.T) {
	b := &Budget{MaxMemory: 192 << 20}
	ctx, stop := Start(context.Background(), b)
	defer stop()
	b.Do("decoding big.yaml")
	// Children's memory is outside the heap: the heap may use what they leave.
	defer b.Reserve(128 << 20)()
	unwatch := b.Watch(time.Millisecond)
	defer unwatch()
	hold := make([][]byte, 0, 128)
	deadline := time.Now().Add(time.Minute) // a hang guard, not a measurement
	for ctx.Err() == nil && time.Now().Before(deadline) {
		if len(hold) < cap(hold) {
			hold = append(hold, make([]byte, 1<<20))
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	runtime.KeepAlive(hold)
	var e *ExceededError
	if !errors.As(b.Err(), &e) || e.Resource != Memory || e.While != "decoding big.yaml" {
		t.Errorf("err = %v", b.Err())
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{100: "100 bytes", 2048: "2 KiB", 5 << 20: "5 MiB", 4 << 30: "4 GiB", 3 << 29: "1.5 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestWatchKeepsLowerSoftLimit: a soft memory limit below the budget (GOMEMLIMIT) stays in
// force while the budget is watched, and a higher one gives way to the budget's; each is
// restored afterwards.
func TestWatchKeepsLowerSoftLimit(t *testing.T) {
	orig := debug.SetMemoryLimit(-1)
	defer debug.SetMemoryLimit(orig)
	for _, c := range []struct{ before, max, want int64 }{
		{before: 300 << 20, max: 4 << 30, want: 300 << 20},
		{before: 8 << 30, max: 1 << 30, want: 1 << 30},
	} {
		debug.SetMemoryLimit(c.before)
		b := &Budget{MaxMemory: c.max}
		unwatch := b.Watch(time.Hour)
		if got := debug.SetMemoryLimit(-1); got != c.want {
			t.Errorf("soft limit %d, budget %d: watched with %d, want %d", c.before, c.max, got, c.want)
		}
		unwatch()
		if got := debug.SetMemoryLimit(-1); got != c.before {
			t.Errorf("soft limit %d: %d after watching", c.before, got)
		}
	}
}
