package report

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// TargetText says where a target version comes from, as the text summary line does:
// "from --target-version", "default", "from kubeadm kubernetesVersion at a.yaml:3:20".
func TargetText(t checker.Target) string {
	if s := targetSource(t); s != "" {
		return s
	}
	return "default"
}

// TargetsText describes the targets of a run's scopes on one line, as the summary does:
// "target 1.38 (from kube-proxy image tag at a.yaml:35:16)" when they agree, else
// "targets by scope: clusters/a 1.38 (from ...), clusters/b 1.40 (default)". With no scope
// target it describes fallback, the repository's target.
func TargetsText(ts []checker.Target, fallback checker.Target) string {
	type group struct {
		t      checker.Target
		scopes []string
	}
	var groups []*group
	idx := map[[2]string]*group{}
	for _, t := range ts {
		k := [2]string{t.Version.String(), t.Source}
		g := idx[k]
		if g == nil {
			g = &group{t: t}
			idx[k] = g
			groups = append(groups, g)
		}
		g.scopes = append(g.scopes, scopeName(t.Scope))
	}
	switch len(groups) {
	case 0:
		return "target " + fallback.Version.String() + " (" + Terminal(TargetText(fallback)) + ")"
	case 1:
		return "target " + groups[0].t.Version.String() + " (" + Terminal(TargetText(groups[0].t)) + ")"
	}
	parts := make([]string, len(groups))
	for i, g := range groups {
		parts[i] = Terminal(strings.Join(g.scopes, ", ")) + " " + g.t.Version.String() + " (" + Terminal(TargetText(g.t)) + ")"
	}
	return "targets by scope: " + strings.Join(parts, "; ")
}
