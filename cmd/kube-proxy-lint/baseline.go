package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/safefile"
)

// maxBaselineSize bounds a --baseline file: a baseline of 100,000 findings is about 30 MB.
const maxBaselineSize = 256 << 20

// readBaseline reads a --baseline file: a regular file, never through a symbolic link, which a
// pull request could plant under the baseline's name.
func readBaseline(path string) (*engine.Baseline, error) {
	data, err := safefile.ReadFile(path, maxBaselineSize)
	if err != nil {
		return nil, fmt.Errorf("read baseline: %w", err)
	}
	b, err := engine.ParseBaseline(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return b, nil
}

// writeBaseline replaces path atomically with a baseline of findings, never through a link
// inside roots (writeOutput).
func writeBaseline(ctx context.Context, path string, roots []string, findings []checker.Finding) error {
	data, err := engine.NewBaseline(findings).Marshal()
	if err != nil {
		return err
	}
	return writeOutput(ctx, nil, nil, path, roots, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// coveredBy returns whether a finding path (relative to root) lies below one of the linted
// paths, so that baseline entries of files outside them are not called stale.
func coveredBy(paths []string, root string) func(string) bool {
	var prefixes []string
	for _, p := range paths {
		if p == "-" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		rel, err := filepath.Rel(root, abs)
		if err != nil {
			continue
		}
		prefixes = append(prefixes, filepath.ToSlash(rel))
	}
	return func(file string) bool {
		for _, p := range prefixes {
			if p == "." || file == p || strings.HasPrefix(file, p+"/") {
				return true
			}
		}
		return false
	}
}

// configureProcessing fills cfg.proc from the effective configuration and the baseline flags.
func configureProcessing(f *lintFlags, cfg *lintConfig, conf *config.Config, all []*checker.Rule) error {
	root := sourceRoot(cfg.paths[0])
	proc, err := conf.Processing(all, root)
	if err != nil {
		return err
	}
	proc.Registry = all
	cfg.includeTestdata = cfg.includeTestdata || conf.IncludeTestdata
	cfg.helm = conf
	cfg.clusters, cfg.clustersPartial = declaredClusters(conf, cfg.paths, root, cfg.git.onlyFiles || cfg.git.rev != "")
	for _, p := range cfg.paths {
		if p == "-" {
			continue
		}
		abs, err := filepath.Abs(p)
		if st, serr := os.Stat(p); err == nil && serr == nil && st.IsDir() {
			if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
				proc.LintedDirs = append(proc.LintedDirs, filepath.ToSlash(rel))
			}
		}
	}
	cfg.policyDirs = conf.Policies()
	cfg.explicitOutputs = len(f.formats) > 0
	cfg.targetSource = f.cfg.targetSource
	switch {
	case f.baseline != "" && f.writeBaseline != "":
		return usagef(progName, "--baseline and --write-baseline exclude each other: a new baseline records every finding")
	case f.baseline != "":
		if proc.Baseline, err = readBaseline(f.baseline); err != nil {
			return err
		}
	case f.writeBaseline != "":
		cfg.writeBaseline = f.writeBaseline
	case !f.baselineSet && conf.Baseline != "":
		// The configuration file's baseline, relative to the file. A missing file is an
		// error as for the flag: a typo must not silently report every finding as new.
		if proc.Baseline, err = readBaseline(conf.BaselinePath()); err != nil {
			return fmt.Errorf("config %s: baseline: %w", f.cfg.display, err)
		}
	}
	cfg.proc = proc
	return nil
}

// finishBaseline writes the --write-baseline file and returns the exit code: 0, or 2 when a
// rule broke (a baseline of a broken run would hide its findings on the next one) or the file
// cannot be written.
func (c *cli) finishBaseline(ctx context.Context, cfg *lintConfig, out *engine.Outcome) int {
	if out.InternalErrors > 0 {
		c.fail(fmt.Errorf("write baseline: not written: %d rules failed", out.InternalErrors))
		return exitError
	}
	if err := writeBaseline(ctx, cfg.writeBaseline, cfg.roots, out.Findings); err != nil {
		return c.fail(fmt.Errorf("write baseline: %w", err))
	}
	if !cfg.quiet {
		fmt.Fprintf(c.stderr, "%s: wrote %d findings to baseline %s\n", progName, len(out.Findings), report.Terminal(cfg.writeBaseline))
	}
	return exitOK
}

// printNotes prints the processors' notes (stale baseline entries) to stderr, like the load
// notices; JSON and SARIF outputs carry them too.
func (c *cli) printNotes(cfg *lintConfig, out *engine.Outcome) {
	if cfg.quiet {
		return
	}
	for _, n := range out.Notes {
		where := ""
		if n.Pos != nil {
			where = n.Pos.String() + ": "
		}
		// File names and messages come from the repository: escaped for the terminal and the
		// CI log, one line per note.
		fmt.Fprintf(c.stderr, "%s: note: %s%s\n", progName, report.Terminal(where), report.Terminal(n.Message))
	}
}
