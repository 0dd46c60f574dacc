package engine

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// skipPaths drops the findings, reported or suppressed, in files matching a skip glob. The
// files are still loaded, so a skipped directory can still explain a finding elsewhere (the
// ConfigMap a DaemonSet mounts); only what is reported about them goes.
func skipPaths(st *state) error {
	if len(st.proc.Skip) == 0 {
		return nil
	}
	keep := func(f *checker.Finding) bool {
		if f.Internal {
			return true
		}
		for _, g := range st.proc.Skip {
			if MatchGlob(g, f.Pos.Filename) {
				return false
			}
		}
		return true
	}
	st.out.Findings = filter(st.out.Findings, keep)
	st.out.Suppressed = filter(st.out.Suppressed, keep)
	return nil
}
