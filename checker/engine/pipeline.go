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
}

// step is one named processor.
type step struct {
	name  string
	apply func(*state) error
}

// pipeline is the order of the processors. The order matters: findings of rules that are not
// enabled are dropped before deduplication so they cannot shadow an enabled rule's finding,
// and sorting comes last so that nothing reorders the output afterwards. Later processors
// (suppressions, baseline, severity overrides) slot in before "dedupe". TestPipelineOrder
// pins this list; change both together.
var pipeline = [...]step{
	{"run rules", runRules},
	{"drop disabled", dropDisabled},
	{"dedupe", dedupe},
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
