package engine

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// exclude moves the findings matched by a config exclusion to Outcome.Suppressed, with an
// external suppression whose justification is the exclusion's reason. The first matching
// exclusion wins.
func exclude(st *state) error {
	if len(st.proc.Exclusions) == 0 {
		return nil
	}
	resolve := st.resolver()
	ids := make([]map[string]bool, len(st.proc.Exclusions))
	for i, e := range st.proc.Exclusions {
		if len(e.Rules) == 0 {
			continue
		}
		ids[i] = map[string]bool{}
		for _, n := range e.Rules {
			if r := resolve(n); r != nil {
				ids[i][r.ID] = true
			}
		}
	}
	st.out.Findings = filter(st.out.Findings, func(f *checker.Finding) bool {
		if f.Internal {
			return true
		}
		for i := range st.proc.Exclusions {
			e := &st.proc.Exclusions[i]
			if !e.matches(f, ids[i]) {
				continue
			}
			g := *f
			g.Suppressions = append(g.Suppressions, checker.Suppression{Kind: checker.SuppressionExternal, Justification: e.Reason, Pos: e.Pos})
			st.out.Suppressed = append(st.out.Suppressed, g)
			return false
		}
		return true
	})
	return nil
}

// matches reports whether f matches every selector of e; ids are e.Rules resolved to IDs
// (nil for every rule).
func (e *Exclusion) matches(f *checker.Finding, ids map[string]bool) bool {
	if ids != nil && !ids[f.RuleID] {
		return false
	}
	if len(e.Paths) > 0 {
		ok := false
		for _, p := range e.Paths {
			if MatchGlob(p, f.Pos.Filename) {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return e.Message == nil || e.Message.MatchString(f.Message)
}
