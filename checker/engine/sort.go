package engine

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// sortFindings orders findings by file, position, rule and message.
func sortFindings(st *state) error {
	checker.SortFindings(st.out.Findings)
	checker.SortFindings(st.out.Suppressed)
	return nil
}
