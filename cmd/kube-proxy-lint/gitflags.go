package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/gitdiff"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// gitFlags are the flags that tie a run to Git and to CI: which revision to lint, which
// findings are new, which files to report on, and where markdown links point.
type gitFlags struct {
	newFromRev       string
	newFromMergeBase string
	wholeFiles       bool
	rev              string
	onlyFiles        bool
	linkBase         string
}

func (g *gitFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&g.newFromRev, "new-from-rev", "", "report only findings on lines changed since `REV` (git diff REV, plus untracked files), or whose related locations changed")
	fs.StringVar(&g.newFromMergeBase, "new-from-merge-base", "", "like --new-from-rev, from the merge base of `REV` and HEAD (the changes of a pull request against its base branch)")
	fs.BoolVar(&g.wholeFiles, "whole-files", false, "with --new-from-rev or --new-from-merge-base, report every finding of the changed files, not only those on changed lines")
	fs.StringVar(&g.rev, "rev", "", "lint the tree of commit `REV` without checking it out; PATHs select files in it")
	fs.BoolVar(&g.onlyFiles, "only-files", false, "load the whole repository but report only findings in the PATHs given (or related to them); for pre-commit hooks")
	fs.StringVar(&g.linkBase, "link-base", "", "markdown output: link positions to `URL` + file path + #L<line> (default in GitHub Actions: the repository at GITHUB_SHA)")
}

// validate rejects flag combinations that make no sense, before anything is read.
func (g *gitFlags) validate(paths []string) error {
	switch {
	case g.newFromRev != "" && g.newFromMergeBase != "":
		return usagef(progName, "parse --new-from-rev: it cannot be combined with --new-from-merge-base")
	case g.wholeFiles && g.newFromRev == "" && g.newFromMergeBase == "":
		return usagef(progName, "parse --whole-files: it needs --new-from-rev or --new-from-merge-base")
	case g.onlyFiles && (g.newFromRev != "" || g.newFromMergeBase != ""):
		return usagef(progName, "parse --only-files: it cannot be combined with --new-from-rev or --new-from-merge-base")
	case g.onlyFiles && g.rev != "":
		return usagef(progName, "parse --only-files: it cannot be combined with --rev")
	case g.rev != "" && strings.HasPrefix(g.rev, "-"):
		return usagef(progName, "parse --rev: %q is not a revision", g.rev)
	}
	for _, p := range paths {
		if p == "-" && (g.rev != "" || g.onlyFiles) {
			return usagef(progName, "parse arguments: - (stdin) cannot be combined with --rev or --only-files")
		}
	}
	return nil
}

// loadWorkspace loads what the flags select: a commit's tree (--rev), the whole repository
// (--only-files), or the paths on the command line. It returns the source root too.
func (c *cli) loadWorkspace(ctx context.Context, cfg *lintConfig, tr *tracer) (*checker.Workspace, string, error) {
	opts := load.Options{
		Paths:           cfg.paths,
		Stdin:           c.stdin,
		StdinName:       cfg.stdinName,
		Target:          cfg.target,
		Fallback:        cfg.fallback,
		MaxFileSize:     cfg.maxSize,
		IncludeTestdata: cfg.includeTestdata,
		Overlay:         cfg.overlay,
		WholeOnDemand:   cfg.wholeOnDemand,
		Clusters:        cfg.clusters,
		ClustersPartial: cfg.clustersPartial,
		ReportIgnored:   cfg.reportIgnored,
		Facts:           cfg.rules,
	}
	if tr != nil {
		opts.Trace = tr.trace
	}
	helmOptions := func(root string) load.HelmOptions {
		return load.HelmOptions{Disabled: !cfg.helm.HelmRender(), Values: cfg.helm.HelmCharts(root)}
	}
	if cfg.git.rev != "" {
		ws, err := safeLoadGit(ctx, cfg.git.rev, opts)
		if err != nil {
			return nil, "", err
		}
		return ws, ws.Root, nil
	}
	if cfg.git.onlyFiles {
		// The named files are a filter; the whole work tree is the context.
		root := sourceRoot(".")
		opts.Paths = []string{root}
		opts.Root = root
		opts.Helm = helmOptions(root)
		ws, err := safeLoad(ctx, opts)
		if err != nil {
			return nil, "", err
		}
		// Notices about files nobody asked for would repeat on every commit; problems that
		// become KP001 findings stay, and the engine filters those like any finding.
		only := onlyFilesOf(root, cfg.paths)
		probs := ws.Problems[:0]
		for _, p := range ws.Problems {
			if p.Manifest || only[p.Pos.Filename] {
				probs = append(probs, p)
			}
		}
		ws.Problems = probs
		return ws, root, nil
	}
	root := sourceRoot(cfg.paths[0])
	opts.Root = root
	opts.Helm = helmOptions(root)
	ws, err := safeLoad(ctx, opts)
	return ws, root, err
}

// safeLoadGit is safeLoad for load.FromGit.
func safeLoadGit(ctx context.Context, rev string, opts load.Options) (ws *checker.Workspace, err error) {
	defer func() {
		if v := recover(); v != nil {
			ws, err = nil, fmt.Errorf("internal error: load files: panic: %v", v)
		}
	}()
	return load.FromGit(ctx, ".", rev, opts)
}

// changeSet returns the filter of --new-from-rev, --new-from-merge-base or --only-files, or
// nil when the run reports everything.
func (c *cli) changeSet(ctx context.Context, cfg *lintConfig, root string) (engine.ChangeSet, error) {
	g := cfg.git
	if g.onlyFiles {
		return onlyFilesChanges(ctx, root, cfg.paths), nil
	}
	base, mergeBase := g.newFromRev, false
	if g.newFromMergeBase != "" {
		base, mergeBase = g.newFromMergeBase, true
	}
	if base == "" {
		return nil, nil
	}
	ch, err := gitdiff.Compute(ctx, gitdiff.Options{Dir: root, Base: base, MergeBase: mergeBase, Head: g.rev, WholeFiles: g.wholeFiles})
	if err != nil {
		return nil, fmt.Errorf("compute changes: %w", err)
	}
	return ch, nil
}

// fileSet names files relative to the source root.
type fileSet map[string]bool

// onlyFiles is the change set of --only-files: every finding in a named file counts; a
// finding elsewhere counts when a related location lies on a line of a named file that
// differs from HEAD (engine.RelatedChangeSet). Staged edits are what pre-commit passes (it
// stashes the rest), so the DaemonSet flag that a staged ConfigMap edit contradicts blocks the
// commit, and an old finding whose evidence sits on untouched lines of a staged file does not.
type onlyFiles struct {
	files fileSet
	// diff are the lines of the named files that differ from HEAD; nil outside Git or
	// before the first commit, where every line of a named file counts.
	diff *gitdiff.Changes
}

func (o *onlyFiles) Changed(file string, _, _ int) bool { return o.files[file] }
func (o *onlyFiles) Edited(file string, _, _ int) bool  { return o.files[file] }

func (o *onlyFiles) RelatedChanged(file string, from, to int) bool {
	if !o.files[file] {
		return false
	}
	return o.diff == nil || o.diff.Changed(file, from, to)
}

// onlyFilesChanges builds the --only-files change set for the named paths.
func onlyFilesChanges(ctx context.Context, root string, paths []string) *onlyFiles {
	o := &onlyFiles{files: onlyFilesOf(root, paths)}
	names := make([]string, 0, len(o.files))
	for n := range o.files {
		names = append(names, n)
	}
	if len(names) == 0 {
		return o
	}
	sort.Strings(names)
	if diff, err := gitdiff.Compute(ctx, gitdiff.Options{Dir: root, Base: "HEAD", Paths: names}); err == nil {
		o.diff = diff
	}
	return o
}

// onlyFilesOf names the files relative to root, the way findings name them.
func onlyFilesOf(root string, paths []string) fileSet {
	s := fileSet{}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		realRoot = root
	}
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if r, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
			abs = filepath.Join(r, filepath.Base(abs))
		}
		for _, base := range []string{realRoot, root} {
			if rel, err := filepath.Rel(base, abs); err == nil && filepath.IsLocal(rel) {
				s[filepath.ToSlash(rel)] = true
				break
			}
		}
	}
	return s
}

// linkBase is --link-base, else the blob URL of the commit under test in GitHub Actions.
func (g *gitFlags) linkBaseURL() string {
	if g.linkBase != "" {
		if !strings.HasSuffix(g.linkBase, "/") {
			return g.linkBase + "/"
		}
		return g.linkBase
	}
	server, repo, sha := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_SHA")
	if g.rev != "" {
		sha = g.rev
	}
	if server == "" || repo == "" || sha == "" {
		return ""
	}
	return strings.TrimSuffix(server, "/") + "/" + repo + "/blob/" + sha + "/"
}
