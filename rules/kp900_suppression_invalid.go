package rules

import (
	"fmt"
	"strings"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP900 reports suppressions that do not do what their author meant: malformed, without a
// reason, naming an unknown rule, expired, or (reported by the engine's suppression
// processor, which alone sees every finding) matching nothing.
var KP900 = &checker.Rule{
	ID:       "KP900",
	Name:     "suppression-invalid",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"any file with # comments", "metadata.annotations"},
	Doc: withProse("kp900_suppression_invalid.md", checker.Doc{
		Title:  "a suppression is malformed, has no reason, names an unknown rule, has expired or matches nothing",
		Before: "# kube-proxy-lint:ignore KP102\nmode: ipvs\n",
		After:  "# kube-proxy-lint:ignore KP102 until=2026-12-31 -- moves to nftables with the 1.40 upgrade\nmode: ipvs\n",
		Since:  "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: "Remove a suppression comment none of whose rules matched a finding (the whole line when the comment stands alone). Suppressions are not cluster configuration.", Safety: checker.Safe, Preferred: true},
		},
	}),
	Run: runKP900,
}

// builtin is the registry KP900 checks rule names against when the engine provides none
// (fixture tests). It is set in init: a reference from KP900's Run to All in a variable
// initializer would be an initialization cycle.
var builtin func() []*checker.Rule

func init() { builtin = All }

// now is the clock of expiry checks; tests keep it.
var now = time.Now

func runKP900(p *checker.Pass) error {
	registry := p.Registry
	if registry == nil {
		registry = builtin()
	}
	known := map[string]bool{}
	for _, r := range registry {
		known[strings.ToLower(r.ID)] = true
		known[strings.ToLower(r.Name)] = true
	}
	today := now()
	for _, d := range checker.ScanDirectives(p.Workspace) {
		report := func(msg string) {
			p.Report(checker.Finding{Message: msg, Pos: d.Pos, End: d.End})
		}
		if d.Problem != "" {
			report(d.Problem)
			continue
		}
		for _, r := range d.Rules {
			if !known[strings.ToLower(r)] {
				report(fmt.Sprintf("suppression names unknown rule %q", r))
			}
		}
		if d.Expired(today) {
			report(fmt.Sprintf("suppression expired after %s: fix the finding or move the until date", d.Until))
		}
	}
	return nil
}
