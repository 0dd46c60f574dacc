package engine

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// dropDisabled removes findings carrying the ID of a rule that is not part of the run. Go rules
// cannot produce such findings (Pass stamps its own rule's ID), so this step is the guarantee
// that --disable holds for every other source of findings that joins the pipeline later (Rego
// adapters, user policies, baselines).
func dropDisabled(st *state) error {
	enabled := make(map[string]bool, len(st.rules))
	for _, r := range st.rules {
		enabled[r.ID] = true
	}
	st.out.Findings = filter(st.out.Findings, func(f *checker.Finding) bool { return enabled[f.RuleID] })
	return nil
}

// filter keeps, in place, the findings for which keep returns true.
func filter(fs []checker.Finding, keep func(*checker.Finding) bool) []checker.Finding {
	out := fs[:0]
	for i := range fs {
		if keep(&fs[i]) {
			out = append(out, fs[i])
		}
	}
	clear(fs[len(out):])
	return out
}
