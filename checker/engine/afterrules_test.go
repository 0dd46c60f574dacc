package engine

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

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

// TestAfterRulesShared: the rules that name what they share (Rule.Shares) are started before
// the others, and what they register with AfterRules runs once the last of them returned,
// while the other rules still run: a rule listed first waits for it.
func TestAfterRulesShared(t *testing.T) {
	ws := workspace("a.yaml")
	released := make(chan struct{})
	var calls atomic.Int32
	var sharedDone atomic.Int32
	waiter := rule("KP100", "waits", func(p *checker.Pass) error {
		select {
		case <-released:
		case <-time.After(20 * time.Second):
			t.Error("what the sharing rules registered was not released while another rule ran")
		}
		p.Report(checker.Finding{Message: "first"})
		return nil
	})
	shared := func(id string) *checker.Rule {
		r := rule(id, "shares", func(p *checker.Pass) error {
			defer sharedDone.Add(1)
			if !checker.AfterRules(p.Context(), func() {
				if sharedDone.Load() != 2 {
					t.Errorf("released with %d of the 2 sharing rules returned", sharedDone.Load())
				}
				if calls.Add(1) == 2 {
					close(released)
				}
			}) {
				t.Error("AfterRules refused a sharing rule")
			}
			p.Report(checker.Finding{Message: id})
			return nil
		})
		r.Shares = "view"
		return r
	}
	out, err := Run(context.Background(), ws, []*checker.Rule{waiter, shared("KP200"), shared("KP300")})
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 2 {
		t.Errorf("%d calls, want 2", calls.Load())
	}
	var got []string
	for _, f := range out.Findings {
		got = append(got, f.Message)
	}
	if strings.Join(got, ",") != "first,KP200,KP300" {
		t.Errorf("findings %v: not in the rules' order", got)
	}
}
