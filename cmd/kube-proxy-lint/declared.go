package main

import (
	"path/filepath"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/cluster"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
)

// declaredClusters returns the clusters the configuration declares, with globs relative to
// root, and whether the run reads only part of the tree they are written for (the directory
// of the configuration file, or root when the file lies outside it): then a glob that matches
// nothing read is no error. whole is set when the run reads the whole repository whatever the
// paths (--only-files, --rev).
func declaredClusters(conf *config.Config, paths []string, root string, whole bool) ([]cluster.Declared, bool) {
	declared := conf.DeclaredClusters(root)
	if len(declared) == 0 {
		return nil, false
	}
	base, err := filepath.Abs(root)
	if err != nil {
		return declared, true
	}
	if conf.Path != "" {
		if d, err := filepath.Abs(filepath.Dir(conf.Path)); err == nil {
			if rel, err := filepath.Rel(base, d); err == nil && filepath.IsLocal(rel) {
				base = d
			}
			if down, err := filepath.Rel(d, base); err == nil && down != "." && filepath.IsLocal(down) {
				// The root lies below the file's directory (no repository above the linted
				// path, --config naming a file further up): DeclaredClusters rebased the
				// globs down to it, and the run reads part of their tree.
				return declared, true
			}
		}
	}
	if whole {
		return declared, false
	}
	for _, p := range paths {
		if p == "-" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(abs, base); err == nil && (rel == "." || filepath.IsLocal(rel)) {
			return declared, false // p is base or a directory above it
		}
	}
	return declared, true
}
