package checker

import (
	"context"
	"sync"
)

// afterRulesKey is the context key of a run's afterRules.
type afterRulesKey struct{}

// afterRules holds what AfterRules registered during one run of the rules.
type afterRules struct {
	mu   sync.Mutex
	fns  []func()
	done bool
}

// WithAfterRules returns a context for the rules of one run and a function that the engine
// calls once every rule of the run has returned: it calls what the rules registered with
// AfterRules, in order, once.
func WithAfterRules(ctx context.Context) (context.Context, func()) {
	a := &afterRules{}
	return context.WithValue(ctx, afterRulesKey{}, a), func() {
		a.mu.Lock()
		fns := a.fns
		a.fns, a.done = nil, true
		a.mu.Unlock()
		for _, f := range fns {
			f()
		}
	}
}

// AfterRules registers f to be called once every rule of the run whose context is ctx has
// returned, so that a rule can release what it shares with the other rules of the run (the
// Rego rules' view of the workspace); for a rule that names what it shares (Rule.Shares),
// once every rule of the run that names it has. It reports false, and registers nothing, when ctx is not
// a run's (a rule called directly, outside the engine) or the run's rules have finished.
func AfterRules(ctx context.Context, f func()) bool {
	a, _ := ctx.Value(afterRulesKey{}).(*afterRules)
	if a == nil {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.done {
		return false
	}
	a.fns = append(a.fns, f)
	return true
}
