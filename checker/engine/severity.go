package engine

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// overrideSeverity sets the configured severity on every finding of a rule, including the
// KP900 findings the suppression processor adds, which is why it runs after it.
func overrideSeverity(st *state) error {
	if len(st.proc.Severity) == 0 {
		return nil
	}
	for _, fs := range [][]checker.Finding{st.out.Findings, st.out.Suppressed} {
		for i := range fs {
			if s, ok := st.proc.Severity[fs[i].RuleID]; ok && !fs[i].Internal && s != checker.SeverityNone {
				fs[i].Severity = s
			}
		}
	}
	return nil
}
