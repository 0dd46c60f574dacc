package engine

import (
	"slices"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// QuietRule is the rule that reports where kube-proxy is replaced (kube-proxy-replaced); the
// kube-proxy rules are quiet there only when it is part of the run.
const QuietRule = "KP601"

// quietReplaced moves the findings of the kube-proxy rules (checker.KubeProxyRule) in a scope
// where kube-proxy is replaced and nothing runs or configures it any more to
// Outcome.Suppressed: they speak about a kube-proxy that does not run. KP601 reports the
// replacement there as one info, from the same signs (checker.Workspace.Replaced). The step
// follows the inline suppressions, so that a suppression written for such a finding still
// counts as used rather than becoming a KP900 finding of its own. Disabling KP601 turns the
// step off too: the rule is what explains the silence.
func quietReplaced(st *state) error {
	if st.ws == nil || !slices.ContainsFunc(st.rules, func(r *checker.Rule) bool { return r.ID == QuietRule }) {
		return nil
	}
	var rp *checker.Replaced
	st.out.Findings = filter(st.out.Findings, func(f *checker.Finding) bool {
		if !checker.KubeProxyRule(f.RuleID) || f.Internal || f.Pos.Filename == "" {
			return true
		}
		if rp == nil {
			rp = st.ws.Replaced()
		}
		r, ok := rp.Quiet(f.Pos.Filename)
		if !ok {
			return true
		}
		g := *f
		pos := r.Pos
		g.Suppressions = append(g.Suppressions, checker.Suppression{
			Kind:          checker.SuppressionExternal,
			Justification: checker.ReplacedJustification + r.Message + " (" + QuietRule + ")",
			Pos:           &pos,
		})
		st.out.Suppressed = append(st.out.Suppressed, g)
		return false
	})
	return nil
}
