package engine

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// TestAfterRules: what a rule registers with checker.AfterRules runs once, after every rule of
// the run has returned (the Rego rules release their view of the workspace there), and a rule
// called outside the engine cannot register.
func TestAfterRules(t *testing.T) {
	ws := workspace("a.yaml")
	var running, calls atomic.Int32
	var sawRunning atomic.Bool
	var rules []*checker.Rule
	for i := range 6 {
		rules = append(rules, rule("KP10"+string(rune('0'+i)), "r", func(p *checker.Pass) error {
			running.Add(1)
			defer running.Add(-1)
			if !checker.AfterRules(p.Context(), func() {
				calls.Add(1)
				sawRunning.Store(sawRunning.Load() || running.Load() != 0)
			}) {
				t.Error("AfterRules refused a rule of an engine run")
			}
			return nil
		}))
	}
	if _, err := Run(context.Background(), ws, rules); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 6 || sawRunning.Load() {
		t.Errorf("%d calls (want 6), a rule still running: %v", calls.Load(), sawRunning.Load())
	}
	if checker.AfterRules(context.Background(), func() { t.Error("called") }) {
		t.Error("AfterRules accepted a context of no run")
	}
	ctx, done := checker.WithAfterRules(context.Background())
	done()
	if checker.AfterRules(ctx, func() { t.Error("called after the run") }) {
		t.Error("AfterRules accepted after the run's rules finished")
	}
}
