package checker

import "strings"

// Every message about a problem that depends on the Kubernetes version names the release in
// which the problem arrives ("exits at startup from 1.40"), whatever the target, and ends with
// the cluster clause: the cluster, the version it is checked at and where that came from,
// "(cluster clusters/a: 1.34, from kube-proxy image tag at clusters/a/kube-proxy.yaml:20:16)",
// "(this repository: …)" for a cluster rooted at the repository's top, or "(shared file: 1.40 by
// default, no version found)" for a file of no cluster. A repository
// on 1.34 thus learns its 1.40 problems without knowing --target-version, and the message
// names the target once: Pass.Report turns "at target 1.40" into "at 1.40" when it adds
// the clause.

// Horizon is the last release the migration plan looks at: the one in which the ipvs code is
// deleted (RULES.md §1).
var Horizon = Version{1, 43}

// clauseStarts start every cluster clause.
var clauseStarts = []string{"(cluster ", "(shared file: ", "(this repository: "}

// hasClause reports whether a message already ends with a cluster clause.
func hasClause(msg string) bool {
	for _, c := range clauseStarts {
		if strings.Contains(msg, c) {
			return true
		}
	}
	return false
}

// NamesVersion reports whether a message names a Kubernetes minor version ("from 1.40", "in
// 1.26:", "(1.37)"): "1." and one to three digits after a space, an opening parenthesis or
// the start, not followed by more dotted digits (so 10.1.40.5 and 1.2.3.4 are addresses).
func NamesVersion(msg string) bool {
	for i := 0; i+2 < len(msg); i++ {
		if msg[i] != '1' || msg[i+1] != '.' || (i > 0 && msg[i-1] != ' ' && msg[i-1] != '(') {
			continue
		}
		j := i + 2
		for j < len(msg) && msg[j] >= '0' && msg[j] <= '9' {
			j++
		}
		if n := j - (i + 2); n == 0 || n > 3 {
			continue
		}
		if j+1 < len(msg) && msg[j] == '.' && msg[j+1] >= '0' && msg[j+1] <= '9' {
			continue
		}
		return true
	}
	return false
}

// ClusterClause describes a target for a message: "cluster c: 1.34, from kube-proxy image tag
// at f.yaml:20:16", "cluster c: 1.40 by default, no version found", "shared file: 1.40, from
// --target-version".
func (t Target) ClusterClause() string {
	v := t.Version
	if v == (Version{}) {
		v = DefaultTarget
	}
	who := "shared file: "
	switch t.Scope {
	case "":
	case ".":
		// The one cluster of a repository (or one rooted at its top): naming it "." helps
		// nobody.
		who = "this repository: "
	default:
		who = "cluster " + t.Scope + ": "
	}
	switch t.Source {
	case "", "default":
		return who + v.String() + " by default, no version found"
	case "flag", "--target-version":
		return who + v.String() + ", from --target-version"
	}
	return who + v.String() + ", from " + t.Source
}

// InCluster appends the cluster clause of the pass's target to msg: msg + " (this cluster: …)".
// Rules use it on every message whose problem depends on the version.
func (p *Pass) InCluster(msg string) string {
	return msg + " (" + p.BoundTarget().ClusterClause() + ")"
}

// BoundTarget returns the target the pass checks at, with its source: the bound target, else
// the repository's.
func (p *Pass) BoundTarget() Target {
	if p.bound != nil {
		return *p.bound
	}
	if p.Workspace.Target.Version == (Version{}) {
		return Target{Version: DefaultTarget, Source: "default"}
	}
	return p.Workspace.Target
}

// PlainMessage returns the message without the cluster clause of its target, for the
// migration report, which names each scope's version once. (Fingerprints use no message at
// all: see Finding.Fingerprint.)
func (f *Finding) PlainMessage() string {
	if f.Target == nil {
		return f.Message
	}
	return strings.Replace(f.Message, " ("+f.Target.ClusterClause()+")", "", 1)
}
