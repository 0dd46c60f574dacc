package engine

import (
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// activeDirective is a well-formed, unexpired directive with its rules resolved to IDs ("" for
// an unknown rule, which KP900's Run reports) and which of them matched a finding.
type activeDirective struct {
	d    *checker.Directive
	ids  []string
	used []bool
}

// suppressInline moves the findings covered by a suppression comment or an ignore annotation
// to Outcome.Suppressed, then reports (as KP900, when it runs) each rule of a directive that
// matched nothing. Malformed, expired and unknown-rule directives suppress nothing; KP900's
// Run reports them, since it needs no other findings to see them. Matching needs every
// finding, which only the pipeline has, so "matched nothing" is decided here. It runs before
// the processors that drop findings for reasons other than the input (exclusions, baseline,
// changed lines): a suppression whose finding is baselined still matches.
func suppressInline(st *state) error {
	if st.proc.NoInlineSuppressions {
		return nil
	}
	dirs := checker.ScanDirectives(st.ws)
	if len(dirs) == 0 {
		return nil
	}
	today := st.proc.now()
	resolve := st.resolver()
	var act []activeDirective
	byFile := map[string][]int{}
	for i := range dirs {
		d := &dirs[i]
		if d.Problem != "" || d.Expired(today) {
			continue
		}
		a := activeDirective{d: d, ids: make([]string, len(d.Rules)), used: make([]bool, len(d.Rules))}
		for j, name := range d.Rules {
			if r := resolve(name); r != nil {
				a.ids[j] = r.ID
			}
		}
		byFile[d.Pos.Filename] = append(byFile[d.Pos.Filename], len(act))
		act = append(act, a)
	}
	st.out.Findings = filter(st.out.Findings, func(f *checker.Finding) bool {
		if f.Internal {
			return true
		}
		var sup []checker.Suppression
		for _, i := range byFile[f.Pos.Filename] {
			a := &act[i]
			if !a.d.Covers(f) {
				continue
			}
			for j, id := range a.ids {
				if id == f.RuleID {
					a.used[j] = true
					sup = append(sup, a.d.Suppression())
					break
				}
			}
		}
		if len(sup) == 0 {
			return true
		}
		g := *f
		g.Suppressions = sup
		st.out.Suppressed = append(st.out.Suppressed, g)
		return false
	})
	kp900 := st.enabled(checker.SuppressionRuleID)
	if kp900 == nil {
		return nil
	}
	for _, a := range act {
		var fixes []checker.Fix
		if a.allUnused(st) {
			if e, ok := removeComment(st.ws, a.d); ok {
				fixes = []checker.Fix{{Message: "Remove the suppression comment", Edits: []checker.TextEdit{e},
					Safety: checker.Safe, Preferred: true}}
			}
		}
		for j, id := range a.ids {
			// A rule that did not run cannot have matched: its suppression is not unused.
			r := st.enabled(id)
			if id == "" || a.used[j] || r == nil {
				continue
			}
			st.out.Findings = append(st.out.Findings, checker.Finding{
				RuleID:   kp900.ID,
				RuleName: kp900.Name,
				Severity: kp900.Severity,
				Message:  fmt.Sprintf("suppression of %s (%s) matched no finding: remove it", r.ID, r.Name),
				Pos:      a.d.Pos,
				End:      a.d.End,
				Fixes:    fixes,
			})
		}
	}
	return nil
}

// allUnused reports whether every rule a directive names ran and matched nothing: then the
// whole comment can go.
func (a *activeDirective) allUnused(st *state) bool {
	for j, id := range a.ids {
		if id == "" || a.used[j] || st.enabled(id) == nil {
			return false
		}
	}
	return len(a.ids) > 0
}

// removeComment returns the edit that deletes a suppression comment: its whole line when it
// stands alone, else the comment and the blanks before it. Annotations are left alone.
func removeComment(ws *checker.Workspace, d *checker.Directive) (checker.TextEdit, bool) {
	f := ws.File(d.Pos.Filename)
	if f == nil || d.Scope == checker.ScopeObject || d.Pos.Line != d.End.Line {
		return checker.TextEdit{}, false
	}
	start, end := f.Lines.LineStart(d.Pos.Line), f.Lines.LineStart(d.Pos.Line+1)
	if d.Pos.Offset < start || d.End.Offset > end {
		return checker.TextEdit{}, false
	}
	from, to := d.Pos.Offset, d.End.Offset
	if strings.TrimSpace(string(f.Content[start:from])) == "" {
		from, to = start, end
	} else {
		for from > start && (f.Content[from-1] == ' ' || f.Content[from-1] == '\t') {
			from--
		}
	}
	return checker.TextEdit{Pos: f.Lines.Position(f.Path, from), End: f.Lines.Position(f.Path, to)}, true
}
