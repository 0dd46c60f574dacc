package checker

import (
	"strings"
)

// Scopes are clusters (cluster.go): ScopeOf and SameScope are the names most rules use for
// "which cluster" and "same cluster", kept so that a rule reads as it did before the cluster
// model.

// ScopeOf returns the name of the cluster a file belongs to, "" for a shared file.
func (ws *Workspace) ScopeOf(file string) string { return ws.ClusterName(file) }

// SameScope reports whether two files see each other's evidence (SameCluster).
func (ws *Workspace) SameScope(a, b string) bool { return ws.SameCluster(a, b) }

// isDirPrefix reports whether directory dir is prefix or below it, without allocating.
func isDirPrefix(prefix, dir string) bool {
	return strings.HasPrefix(dir, prefix) && (len(dir) == len(prefix) || dir[len(prefix)] == '/')
}
