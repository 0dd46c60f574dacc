package checker

import (
	"path"
	"strings"
)

// Scopes group files by cluster for the cross-file rules (RULES.md §2): a scope is the nearest
// directory holding a cluster definition (a kustomization, an installer config, a workload
// running kube-proxy); every file below it belongs to it. Files under no such directory, and
// all files when the definitions are ambiguous, belong to the repository root scope "".

// ScopeOf returns the scope directory of a file path ("" for the repository root scope).
// With an index (SetScopes) it walks up the file's directories and looks each up, so its
// cost does not grow with the number of scopes.
func (ws *Workspace) ScopeOf(file string) string {
	dir := path.Dir(file)
	if ws.scopeSet != nil {
		for dir != "." && dir != "/" && dir != "" {
			if ws.scopeSet[dir] {
				return dir
			}
			dir = path.Dir(dir)
		}
		return ""
	}
	if dir == "." {
		dir = ""
	}
	best := ""
	for _, s := range ws.Scopes {
		if len(s) > len(best) && isDirPrefix(s, dir) {
			best = s
		}
	}
	return best
}

// SetScopes sets the scope directories and indexes them for ScopeOf.
func (ws *Workspace) SetScopes(scopes []string) {
	ws.Scopes = scopes
	ws.scopeSet = make(map[string]bool, len(scopes))
	for _, s := range scopes {
		ws.scopeSet[s] = true
	}
}

// SameScope reports whether two files belong to the same scope. A file in an enclosing scope
// is visible to the scopes below it (a shared base directory of several clusters), so a
// scope also sees the files of its ancestor scopes. Files of different self-contained trees
// (UnitOf: test data, examples, Ansible roles) never share a scope, nor do such files and the
// rest of the repository.
func (ws *Workspace) SameScope(a, b string) bool {
	if UnitOf(a) != UnitOf(b) {
		return false
	}
	sa, sb := ws.ScopeOf(a), ws.ScopeOf(b)
	return sa == "" || sb == "" || isDirPrefix(sa, sb) || isDirPrefix(sb, sa)
}

// isDirPrefix reports whether directory dir is prefix or below it, without allocating.
func isDirPrefix(prefix, dir string) bool {
	return strings.HasPrefix(dir, prefix) && (len(dir) == len(prefix) || dir[len(prefix)] == '/')
}
