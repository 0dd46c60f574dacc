package engine

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// dedupeKey identifies findings that say the same thing at the same place. Two documents that
// resolve to the same source (a ConfigMap mounted by two DaemonSets) make rules report twice;
// so do clusters that share a file (an installer's role defaults that each of its cluster
// files reads), whose findings differ only in the cluster clause.
type dedupeKey struct {
	rule string
	pos  checker.Position
	msg  string
}

// dedupe keeps the first of findings with the same rule, position and message. Findings are
// in rule order here, so "first" is deterministic.
func dedupe(st *state) error {
	st.out.Findings = dedupeFindings(st.out.Findings)
	st.out.Suppressed = dedupeFindings(st.out.Suppressed)
	return nil
}

func dedupeFindings(fs []checker.Finding) []checker.Finding {
	seen := make(map[dedupeKey]bool, len(fs))
	return filter(fs, func(f *checker.Finding) bool {
		k := dedupeKey{f.RuleID, f.Pos, f.PlainMessage()}
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	})
}
