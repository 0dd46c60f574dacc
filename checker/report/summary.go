package report

import (
	"sort"
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

// maxTargetGroups is how many scope groups a summary line names one by one; beyond it, the
// line counts the scopes of each version (a monorepo has hundreds of clusters).
const maxTargetGroups = 4

// TargetsLine is TargetsText for a summary line that must stay short: with more than
// maxTargetGroups groups of scopes it counts the scopes at each version instead, and points
// at where each scope's target is listed.
func TargetsLine(ts []checker.Target, fallback checker.Target) string {
	if countTargetGroups(ts) <= maxTargetGroups {
		return TargetsText(ts, fallback)
	}
	return "targets by cluster: " + VersionCounts(ts) + " (each cluster's target: kube-proxy-lint clusters, or the JSON output)"
}

func countTargetGroups(ts []checker.Target) int {
	seen := map[[2]string]bool{}
	for _, t := range ts {
		seen[[2]string{t.Version.String(), t.Source}] = true
	}
	return len(seen)
}

// VersionCounts counts the scopes checked at each version, lowest version first: "1.32 in 3
// scopes, 1.40 in 1 scope (default)". A version counts as default when every scope at it has
// the default target.
func VersionCounts(ts []checker.Target) string {
	type count struct {
		v       checker.Version
		n       int
		allDflt bool
	}
	var counts []*count
	idx := map[string]*count{}
	for _, t := range ts {
		c := idx[t.Version.String()]
		if c == nil {
			c = &count{v: t.Version, allDflt: true}
			idx[t.Version.String()] = c
			counts = append(counts, c)
		}
		c.n++
		c.allDflt = c.allDflt && t.Source == "default"
	}
	sort.Slice(counts, func(i, j int) bool { return counts[i].v.Less(counts[j].v) })
	parts := make([]string, len(counts))
	for i, c := range counts {
		parts[i] = c.v.String() + " in " + plural(c.n, "cluster", "clusters")
		if c.allDflt {
			parts[i] += " (default)"
		}
	}
	return strings.Join(parts, ", ")
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
	return "targets by cluster: " + strings.Join(parts, "; ")
}
