// Package engine runs the enabled rules on a loaded workspace and passes their findings
// through the processor pipeline. Each processor lives in its own file; the order of the steps
// is the pipeline variable in pipeline.go, and a test pins it.
package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Options choose the rules of a run.
type Options struct {
	// Rules is the registry to choose from, usually rules.All().
	Rules []*checker.Rule
	// Enable and Disable name rules by ID or name (case-insensitive). Enable may hold "all" to
	// turn on every rule, including the ones disabled by default; Disable may hold "all" to
	// start from nothing. See Select.
	Enable, Disable []string
}

// Outcome is what a run produced.
type Outcome struct {
	// Findings are deduplicated and sorted with checker.SortFindings. They include one
	// internal finding (Internal set) per rule that panicked or returned an error.
	Findings []checker.Finding
	// InternalErrors counts the rules that broke.
	InternalErrors int
	// Failures describes each broken rule, in rule order, with the stack of panics, so the
	// caller can log what the findings only summarise.
	Failures []Failure
	// Suppressed are the findings an inline suppression, an ignore annotation or a config
	// exclusion removed from Findings, each with its Suppressions set; sorted like Findings.
	// They never count for the exit code.
	Suppressed []checker.Finding
	// Notes are informational messages of the processors, such as stale baseline entries.
	Notes []checker.Note
	// Baselined counts the findings the baseline removed.
	Baselined int
}

// Failure is a rule that panicked or returned an error.
type Failure struct {
	Rule *checker.Rule
	// Err says what happened: "rule panicked: <value>" or "rule failed: <error>".
	Err error
	// Stack is the goroutine stack at the panic; nil when the rule returned an error.
	Stack []byte
}

// Lint selects the rules named by opts and runs them on ws.
func Lint(ctx context.Context, ws *checker.Workspace, opts Options) (*Outcome, error) {
	rules, err := Select(opts.Rules, opts.Enable, opts.Disable)
	if err != nil {
		return nil, err
	}
	return Run(ctx, ws, rules)
}

// Run runs rules on ws, in parallel (at most GOMAXPROCS at a time), then applies the processor
// pipeline. A rule that panics or returns an error does not stop the run: it becomes an
// internal finding and is counted in Outcome.InternalErrors. The outcome does not depend on
// scheduling. Run returns an error only when ctx is cancelled or ws is nil.
func Run(ctx context.Context, ws *checker.Workspace, rules []*checker.Rule) (*Outcome, error) {
	return RunWith(ctx, ws, rules, Processing{})
}

// RunWith is Run with the processors configured by proc: suppressions, exclusions, severity
// overrides, skipped paths and the baseline.
func RunWith(ctx context.Context, ws *checker.Workspace, rules []*checker.Rule, proc Processing) (*Outcome, error) {
	if ws == nil {
		return nil, errors.New("run rules: nil workspace")
	}
	st := &state{ctx: ctx, ws: ws, rules: rules, out: &Outcome{}, proc: proc}
	for _, s := range pipeline {
		if err := s.apply(st); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
	}
	return st.out, nil
}
