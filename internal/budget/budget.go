// Package budget is the resource budget of one run: one memory cap and one deadline that
// every phase draws from (the loader, embedded documents, Helm rendering and its children,
// Rego and Go rules). A phase charges what it holds (bytes read, rendered output, Rego
// values) and names what it is doing; going over stops the run through its context, with an
// error that names the file or policy that spent the budget. Nothing here crashes the
// process: the caller turns Err into exit code 2.
//
// Explicit charges are deterministic and name their holder exactly. Memory that no charge
// sees (decoded trees, rule state) is watched through the Go runtime: Watch sets the soft
// memory limit (debug.SetMemoryLimit) to the budget, so the collector works hard before the
// cap, and stops the run when the live heap after a collection is still above it.
package budget

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults fit a 2-core CI runner with 7 GB: the process and its Helm children stay below
// 4 GiB together, and a run that takes longer than 15 minutes is stuck, not slow (the
// 20,000-file corpus takes well under a minute).
const (
	DefaultMaxMemory = 4 << 30
	DefaultTimeout   = 15 * time.Minute
)

// Budget is one run's budget. The zero of a nil *Budget is no budget: every method is safe
// on nil and does nothing.
type Budget struct {
	// MaxMemory is the cap in bytes (0: none).
	MaxMemory int64
	// Timeout is the run's wall-clock budget (0: none).
	Timeout time.Duration

	held     atomic.Int64
	reserved atomic.Int64
	doing    atomic.Pointer[string]
	cancel   context.CancelCauseFunc
	timer    *time.Timer

	mu  sync.Mutex
	err *ExceededError
	// top is the largest single charge so far and who made it.
	top     int64
	topWhat string
}

// Resources of an ExceededError.
const (
	Memory         = "memory"
	Time           = "time"
	RenderTime     = "rendering time"
	RenderedOutput = "rendered output"
)

// ExceededError is the error of a run that went over its budget.
type ExceededError struct {
	// Resource is Memory, Time, RenderTime or RenderedOutput.
	Resource string
	// Limit is the budget (bytes or nanoseconds); Used what was in use (bytes) when it
	// was exceeded.
	Limit, Used int64
	// What names the file, chart or policy that spent it; While what the run was doing.
	What, While string
}

func (e *ExceededError) Error() string {
	var b []byte
	switch e.Resource {
	case Time:
		b = fmt.Appendf(b, "the run took longer than its time budget of %s (see --timeout)", time.Duration(e.Limit))
	case RenderTime:
		b = fmt.Appendf(b, "Helm rendering took longer than its budget of %s per run", time.Duration(e.Limit))
	case RenderedOutput:
		b = fmt.Appendf(b, "Helm rendering built more than the %s of output one run may hold", Size(e.Limit))
	default:
		b = fmt.Appendf(b, "the run went over its memory budget of %s (see --max-memory)", Size(e.Limit))
		if e.Used > 0 {
			b = fmt.Appendf(b, ": %s in use", Size(e.Used))
		}
	}
	if e.What != "" {
		b = fmt.Appendf(b, "; spent by %s", e.What)
	}
	if e.While != "" && e.While != e.What {
		b = fmt.Appendf(b, "; stopped while %s", e.While)
	}
	return string(b)
}

// Size formats a byte count for messages.
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

type ctxKey struct{}

// Start returns a context that carries b and is cancelled when b is exceeded (or parent is
// done), and a function that releases the timer. b may be nil.
func Start(parent context.Context, b *Budget) (context.Context, func()) {
	if b == nil {
		return parent, func() {}
	}
	ctx, cancel := context.WithCancelCause(context.WithValue(parent, ctxKey{}, b))
	b.cancel = cancel
	if b.Timeout > 0 {
		b.timer = time.AfterFunc(b.Timeout, func() {
			b.exceed(&ExceededError{Resource: Time, Limit: int64(b.Timeout), While: b.Doing()})
		})
	}
	return ctx, func() {
		if b.timer != nil {
			b.timer.Stop()
		}
		cancel(nil)
	}
}

// From returns the budget of ctx, or nil.
func From(ctx context.Context) *Budget {
	if ctx == nil {
		return nil
	}
	b, _ := ctx.Value(ctxKey{}).(*Budget)
	return b
}

// Err returns the error of an exceeded budget, else nil.
func (b *Budget) Err() error {
	if b == nil {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.err == nil {
		return nil
	}
	return b.err
}

// exceed records the first overrun and stops the run.
func (b *Budget) exceed(e *ExceededError) {
	b.mu.Lock()
	first := b.err == nil
	if first {
		b.err = e
	}
	b.mu.Unlock()
	if first && b.cancel != nil {
		b.cancel(e)
	}
}

// Do records what the run is doing now ("loading deploy/ds.yaml"), for the message of an
// overrun that no charge explains (the time budget, the heap).
func (b *Budget) Do(what string) {
	if b != nil {
		b.doing.Store(&what)
	}
}

// Doing returns what the run was last doing.
func (b *Budget) Doing() string {
	if b == nil {
		return ""
	}
	if p := b.doing.Load(); p != nil {
		return *p
	}
	return ""
}

// Charge adds n held bytes spent by what (a file, chart or policy). It returns the overrun
// error when the total goes over MaxMemory; the run is then stopped.
func (b *Budget) Charge(n int64, what string) error {
	if b == nil || n <= 0 {
		return nil
	}
	total := b.held.Add(n)
	b.mu.Lock()
	if n > b.top {
		b.top, b.topWhat = n, what
	}
	b.mu.Unlock()
	if b.MaxMemory > 0 && total > b.MaxMemory {
		e := &ExceededError{Resource: Memory, Limit: b.MaxMemory, Used: total, What: what, While: b.Doing()}
		b.exceed(e)
		return b.Err()
	}
	return nil
}

// Release returns n bytes charged before.
func (b *Budget) Release(n int64) {
	if b != nil && n > 0 {
		b.held.Add(-n)
	}
}

// Held returns the bytes charged and not released.
func (b *Budget) Held() int64 {
	if b == nil {
		return 0
	}
	return b.held.Load()
}

// Remaining returns the bytes MaxMemory still allows (a large number without a cap).
func (b *Budget) Remaining() int64 {
	if b == nil || b.MaxMemory <= 0 {
		return 1 << 62
	}
	return max(b.MaxMemory-b.held.Load(), 0)
}

// Fraction returns MaxMemory/d, or def without a cap: a share of the budget for one part of
// the run (Helm children, one Rego evaluation).
func (b *Budget) Fraction(d, def int64) int64 {
	if b == nil || b.MaxMemory <= 0 {
		return def
	}
	return b.MaxMemory / d
}

// Reserve sets aside n bytes of MaxMemory for memory outside this process (Helm's
// rendering children) until the returned function is called: the process's own heap must
// then stay below MaxMemory less n.
func (b *Budget) Reserve(n int64) func() {
	if b == nil || n <= 0 {
		return func() {}
	}
	b.reserved.Add(n)
	return func() { b.reserved.Add(-n) }
}

// LiveHeap returns the heap the last collection found live (runtime/metrics), and whether
// the runtime reports it.
func LiveHeap() (int64, bool) {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0, false
	}
	return int64(sample[0].Value.Uint64()), true
}

// Watch enforces MaxMemory on the whole heap of the process: the soft memory limit is set to
// the budget less what is reserved for children (Reserve), so the collector works hard
// before the cap, and a watcher stops the run when the live heap measured after a collection
// is above that limit. It returns the function that stops watching and restores the previous
// soft limit.
func (b *Budget) Watch(every time.Duration) func() {
	if b == nil || b.MaxMemory <= 0 {
		return func() {}
	}
	// A lower soft limit already set (GOMEMLIMIT) is kept: it asks the collector to work
	// harder than the budget does, and the budget still stops the run at its own cap.
	prev := debug.SetMemoryLimit(-1)
	limitNow := func() int64 { return max(b.MaxMemory-b.reserved.Load(), 64<<20) }
	soft := func(l int64) int64 { return min(l, prev) }
	limit := limitNow()
	debug.SetMemoryLimit(soft(limit))
	stop := Poll(every, func() bool {
		if l := limitNow(); l != limit {
			limit = l
			debug.SetMemoryLimit(soft(limit))
		}
		if live, ok := LiveHeap(); ok && live > limit {
			// The heap has no owner: name the largest charge as a lead.
			b.mu.Lock()
			what := b.topWhat
			b.mu.Unlock()
			if what != "" {
				what = "the run's files and documents (the largest: " + what + ")"
			}
			b.exceed(&ExceededError{Resource: Memory, Limit: b.MaxMemory, Used: live + b.reserved.Load(), What: what, While: b.Doing()})
			return false
		}
		return true
	})
	return func() {
		stop()
		debug.SetMemoryLimit(prev)
	}
}

// Poll calls tick every interval on a goroutine of its own until tick returns false or the
// returned stop is called; stop waits for that goroutine (and may be called more than once).
// Watch and the collector settings of a run (they follow the live heap) poll with it.
func Poll(every time.Duration, tick func() (more bool)) (stop func()) {
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			if !tick() {
				return
			}
		}
	}()
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			<-exited
		})
	}
}

// ErrOf returns the budget error behind err (a cancelled run), or nil.
func ErrOf(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var e *ExceededError
	if errors.As(err, &e) {
		return e
	}
	if b := From(ctx); b != nil {
		return b.Err()
	}
	return nil
}

// Fail records an overrun found by a part of the run that keeps its own account (one Rego
// evaluation) and stops the run.
func (b *Budget) Fail(e *ExceededError) {
	if b == nil {
		return
	}
	if e.While == "" {
		e.While = b.Doing()
	}
	b.exceed(e)
}
