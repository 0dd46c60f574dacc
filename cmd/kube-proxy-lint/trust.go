package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/gitdiff"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// What a run trusts (docs/security.md). The configuration file and the Rego policies it
// names live in the repository, so a pull request from a fork can change them: add
// policy-dirs, disable every rule, set fail-on: none. --config-from-base REV reads both from
// the pull request's base commit instead, where only maintainers can change them (the
// Action's default on pull requests); --no-repo-policies keeps the file but loads none of its
// Rego. Policies given with --policy are the caller's and always load.

// readConfigFromRev reads the configuration file that applies to lintPath from commit rev of
// the repository holding it, and the policies its policy-dirs name from the same commit.
// Nothing of the work tree is read. A symbolic link is refused, as on disk.
func readConfigFromRev(ctx context.Context, f *configFlags, lintPath string) (*config.Config, error) {
	dir := sourceRoot(lintPath)
	out, err := gitdiff.Git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("--config-from-base: find repository: %w", err)
	}
	top := strings.TrimRight(string(out), "\n")
	commit, err := gitdiff.ResolveCommit(ctx, top, f.fromBase)
	if err != nil {
		return nil, fmt.Errorf("--config-from-base: %w", err)
	}
	start, err := filepath.Abs(lintPath)
	if err != nil {
		return nil, err
	}
	if lintPath == "-" {
		start, _ = filepath.Abs(".")
	}
	if st, err := statDir(start); err != nil || !st {
		start = filepath.Dir(start)
	}
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		realTop = top
	}
	if r, err := filepath.EvalSymlinks(start); err == nil {
		start = r
	}
	// The same lookup as on disk: the lint path's directory, then its parents up to the root.
	var found *treeBlob
	for d := start; ; d = filepath.Dir(d) {
		rel, err := filepath.Rel(realTop, d)
		if err != nil || !filepath.IsLocal(rel) {
			break
		}
		p := path.Join(filepath.ToSlash(rel), config.FileName)
		entries, err := lsTree(ctx, top, commit, false, p)
		if err != nil {
			return nil, fmt.Errorf("--config-from-base: %w", err)
		}
		if len(entries) > 0 {
			found = &entries[0]
			break
		}
		if rel == "." {
			break
		}
	}
	if found == nil {
		f.display = ""
		return &config.Config{}, nil
	}
	name := found.name + " at " + f.fromBase
	data, err := readBlob(ctx, top, *found, config.MaxSize)
	if err != nil {
		return nil, fmt.Errorf("read config %s: %w", name, err)
	}
	c, err := config.Parse(name, data)
	if err != nil {
		return nil, err
	}
	// Globs are relative to the file's directory, as if it were in the work tree.
	c.Path = filepath.Join(top, filepath.FromSlash(found.name))
	f.display = name
	var srcs []policy.Source
	for _, d := range c.PolicyDirs {
		if path.IsAbs(d) || filepath.IsAbs(d) {
			return nil, fmt.Errorf("config %s: policy-dirs: %s is absolute; a configuration read from a revision names directories of that revision", name, d)
		}
		rel := path.Clean(path.Join(path.Dir(found.name), filepath.ToSlash(d)))
		if !filepath.IsLocal(rel) {
			return nil, fmt.Errorf("config %s: policy-dirs: %s lies outside the repository", name, d)
		}
		entries, err := lsTree(ctx, top, commit, true, rel)
		if err != nil {
			return nil, fmt.Errorf("read policies %s at %s: %w", rel, f.fromBase, err)
		}
		n := len(srcs)
		for _, e := range entries {
			if !strings.HasSuffix(e.name, ".rego") || strings.HasSuffix(e.name, "_test.rego") || hiddenBelow(rel, e.name) {
				continue
			}
			b, err := readBlob(ctx, top, e, policy.MaxPolicySize)
			if err != nil {
				return nil, fmt.Errorf("read policies %s at %s: %w", e.name, f.fromBase, err)
			}
			srcs = append(srcs, policy.Source{Name: e.name, Text: string(b)})
		}
		if len(srcs) == n {
			return nil, fmt.Errorf("read policies: no .rego files in %s at %s", rel, f.fromBase)
		}
	}
	f.basePolicies = srcs
	return c, nil
}

// hiddenBelow reports whether name lies in a directory starting with "." below dir, which
// policy.ReadDirs skips on disk too.
func hiddenBelow(dir, name string) bool {
	rest := strings.TrimPrefix(name, dir+"/")
	parts := strings.Split(rest, "/")
	for _, p := range parts[:len(parts)-1] {
		if strings.HasPrefix(p, ".") {
			return true
		}
	}
	return false
}

func statDir(p string) (bool, error) {
	st, err := os.Stat(p)
	if err != nil {
		return false, err
	}
	return st.IsDir(), nil
}

// treeBlob is one entry of git ls-tree -l.
type treeBlob struct {
	mode, oid, name string
	size            int64
}

// lsTree lists the entry at p in commit (recursively below it when recursive).
func lsTree(ctx context.Context, top, commit string, recursive bool, p string) ([]treeBlob, error) {
	args := []string{"ls-tree", "-z", "-l", "--full-tree"}
	if recursive {
		args = append(args, "-r")
	}
	args = append(args, commit, "--", p)
	out, err := gitdiff.Git(ctx, top, args...)
	if err != nil {
		return nil, err
	}
	var entries []treeBlob
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, name, ok := strings.Cut(string(rec), "\t")
		f := strings.Fields(meta)
		if !ok || len(f) != 4 {
			return nil, errors.New("unexpected git ls-tree output")
		}
		e := treeBlob{mode: f[0], oid: f[2], name: name}
		if f[1] != "blob" {
			if recursive {
				continue // submodules
			}
			return nil, fmt.Errorf("%s is not a file", name)
		}
		if e.size, err = strconv.ParseInt(f[3], 10, 64); err != nil {
			return nil, errors.New("unexpected git ls-tree output")
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// readBlob reads a regular file of the tree, at most limit bytes; a symbolic link is refused.
func readBlob(ctx context.Context, top string, e treeBlob, limit int64) ([]byte, error) {
	switch {
	case e.mode == "120000":
		return nil, errors.New("is a symbolic link, not followed")
	case e.mode != "100644" && e.mode != "100755":
		return nil, errors.New("is not a regular file")
	case e.size > limit:
		return nil, fmt.Errorf("is larger than %d bytes", limit)
	}
	return gitdiff.Git(ctx, top, "cat-file", "blob", e.oid)
}
