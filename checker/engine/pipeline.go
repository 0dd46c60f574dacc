package engine

import (
	"context"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// state is what the processors share during one run.
type state struct {
	ctx   context.Context
	ws    *checker.Workspace
	rules []*checker.Rule
	out   *Outcome
	proc  Processing
}

// step is one named processor.
type step struct {
	name  string
	apply func(*state) error
}

// pipeline is the order of the processors. The order matters: findings of rules that are not
// enabled are dropped before deduplication so they cannot shadow an enabled rule's finding,
// and sorting comes last so that nothing reorders the output afterwards. Inline suppressions
// come first among the filters, so that "matched nothing" (KP900) is judged on every finding
// of the input, not on what exclusions or the baseline left; skipping paths follows them so it
// also drops the KP900 findings of skipped files; severity overrides follow the suppression
// processor so they apply to its KP900 findings too; the kube-proxy rules go quiet where
// kube-proxy is replaced (KP601) right after the inline suppressions; the baseline comes after dedupe, so one
// entry stands for one reported finding. TestPipelineOrder pins this list; change both
// together.
var pipeline = [...]step{
	{"run rules", runRules},
	{"drop disabled", dropDisabled},
	{"inline suppressions", suppressInline},
	// Quiet after inline suppressions: a suppression of a quieted finding is not "unused".
	{"quiet replaced", quietReplaced},
	{"exclusions", exclude},
	{"skip paths", skipPaths},
	{"severity overrides", overrideSeverity},
	// After the overrides: an error in a test fixture is a warning whatever the rule's severity.
	{"cap test paths", capTestPaths},
	{"dedupe", dedupe},
	{"baseline", applyBaseline},
	// Last filter: KP900 and stale baseline entries were judged on the whole tree before.
	{"new from rev", filterChanged},
	{"sort", sortFindings},
}

// Steps returns the names of the processor steps in the order Run applies them.
func Steps() []string {
	names := make([]string, len(pipeline))
	for i, s := range pipeline {
		names[i] = s.name
	}
	return names
}
