package report

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// fixLabel names a fix for people: "fix (safe)" for the fix --fix applies (the preferred one)
// when it keeps what runs, "fix (unsafe)" when it needs --unsafe-fixes, and "alternative
// (safe|unsafe)" for the other fixes of a finding, which stay suggestions.
func fixLabel(f *checker.Finding, i int) string {
	kind := "alternative"
	if p, ok := f.PreferredFix(); ok && p == &f.Fixes[i] {
		kind = "fix"
	}
	return kind + " (" + f.Fixes[i].Safety.String() + ")"
}
