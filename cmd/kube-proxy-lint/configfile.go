package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// configFlags are the flags that choose the configuration file and override its keys; the
// lint command and `config print` share them so that print shows what a run would use.
type configFlags struct {
	file                 string
	noConfig             bool
	noInlineSuppressions bool
	// fromBase is --config-from-base: read the file and its policies from this revision.
	fromBase       string
	noRepoPolicies bool
	// basePolicies are the policies of a configuration read from fromBase.
	basePolicies []policy.Source
	// targetSource is set by applyConfig when the target version comes from the file;
	// display is the file's name relative to the repository root.
	targetSource string
	display      string
	// fallbackTarget is the file's target-version: the target of every cluster that names no
	// version of its own (RULES.md "Target version per cluster"), not an override.
	fallbackTarget string
}

func addConfigFlags(fs *pflag.FlagSet, f *configFlags) {
	fs.StringVar(&f.file, "config", "", "read the configuration from `FILE` instead of the "+config.FileName+" found from the first PATH up to the repository root")
	fs.BoolVar(&f.noConfig, "no-config", false, "read no configuration file")
	fs.BoolVar(&f.noInlineSuppressions, "no-inline-suppressions", false, "ignore kube-proxy-lint:ignore comments and kube-proxy-lint.io/ignore annotations (strict mode)")
	fs.StringVar(&f.fromBase, "config-from-base", "", "read the configuration file and the policies it names from commit `REV` (a pull request's base) instead of the work tree, so that a pull request cannot change what checks it")
	fs.BoolVar(&f.noRepoPolicies, "no-repo-policies", false, "do not load the Rego policies named by the configuration file's policy-dirs (--policy still loads)")
}

// readConfig finds and parses the configuration file for lintPath (the first PATH). It returns
// an empty configuration when there is none. Rule names are checked later, by applyConfig,
// against a registry that includes the file's own policy-dirs.
func readConfig(f *configFlags, lintPath string) (*config.Config, error) {
	if f.noConfig {
		if f.file != "" || f.fromBase != "" {
			return nil, usagef(progName, "--no-config excludes --config and --config-from-base")
		}
		return &config.Config{}, nil
	}
	if f.fromBase != "" {
		if f.file != "" {
			return nil, usagef(progName, "--config and --config-from-base exclude each other")
		}
		return readConfigFromRev(context.Background(), f, lintPath)
	}
	if lintPath == "-" {
		lintPath = "."
	}
	root := sourceRoot(lintPath)
	path := f.file
	if path == "" {
		if path = config.Find(lintPath, root); path == "" {
			return &config.Config{}, nil
		}
	}
	data, err := config.Read(path)
	if err != nil {
		return nil, err
	}
	// Errors and outputs name the file as findings name files: relative to the repository root.
	name := path
	if abs, err := filepath.Abs(path); err == nil {
		if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
			name = filepath.ToSlash(rel)
		}
	}
	c, err := config.Parse(name, data)
	if err != nil {
		return nil, err
	}
	f.display = name
	c.Path = path
	return c, nil
}

// policyDirs returns the policy directories of a run: the configuration file's (unless
// --no-repo-policies, or --config-from-base read them from a revision), then those of
// --policy, each once. The file's directories must lie inside the repository when the file
// does: a pull request must not point them at the runner's files.
func policyDirs(f *configFlags, c *config.Config, root string, flags []string) ([]string, error) {
	var fromFile []string
	if !f.noRepoPolicies && f.fromBase == "" {
		fromFile = c.Policies()
		if err := confinePolicyDirs(c, root, fromFile); err != nil {
			return nil, err
		}
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range append(fromFile, flags...) {
		key := filepath.Clean(d)
		if abs, err := filepath.Abs(d); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, d)
		}
	}
	return out, nil
}

// repoPolicySources are the policies read from a revision by --config-from-base.
func repoPolicySources(f *configFlags) []policy.Source {
	if f.noRepoPolicies {
		return nil
	}
	return f.basePolicies
}

// confinePolicyDirs checks that the policy-dirs of a configuration file inside the
// repository resolve (links followed) to directories inside it.
func confinePolicyDirs(c *config.Config, root string, dirs []string) error {
	if c.Path == "" || len(dirs) == 0 {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil
	}
	cfgDir, err := filepath.Abs(filepath.Dir(c.Path))
	if err != nil {
		return nil
	}
	if r, err := filepath.EvalSymlinks(cfgDir); err == nil {
		cfgDir = r
	}
	if rel, err := filepath.Rel(realRoot, cfgDir); err != nil || !filepath.IsLocal(rel) {
		return nil // a configuration of the caller's own, outside the repository
	}
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return err
		}
		if r, err := filepath.EvalSymlinks(abs); err == nil {
			abs = r
		}
		if rel, err := filepath.Rel(realRoot, abs); err != nil || !filepath.IsLocal(rel) {
			return fmt.Errorf("config %s: policy-dirs: %s lies outside the repository; give outside policies with --policy", c.Path, d)
		}
	}
	return nil
}

// applyConfig checks the rule names of the configuration file c against registry and merges
// it under the command line: it rewrites the lint flags with the effective values, so the rest
// of configure reads one source, and returns the effective configuration.
func applyConfig(f *lintFlags, c *config.Config, registry []*checker.Rule) (*config.Config, error) {
	if err := c.CheckRules(registry); err != nil {
		return nil, err
	}
	failOn := ""
	if f.failOnSet {
		failOn = f.failOn
	}
	m := c.Merge(registry, f.targetVersion, failOn, f.enable, f.disable, f.cfg.noInlineSuppressions)
	if f.targetVersion == "" && m.TargetVersion != "" && m.TargetVersion != "auto" {
		f.cfg.targetSource = "target-version in " + f.cfg.display
		f.cfg.fallbackTarget = m.TargetVersion
	}
	if m.FailOn != "" {
		f.failOn = m.FailOn
	}
	f.enable, f.disable = m.Enable, m.Disable
	return m, nil
}

const configUsage = `Usage: kube-proxy-lint config print [flags] [PATH]

Print the effective configuration as YAML: the ` + config.FileName + ` that applies to PATH
(default "."; found in PATH or a parent directory up to the repository root), with the
command-line flags below applied and defaults filled in, and, as a comment, the target
version a lint run of PATH uses and where it comes from (detected from the files of PATH
when neither the flag nor the file sets it). Every key is described in docs/config.md.

Flags:
`

// configCmdFlags are the flags of `config print`.
type configCmdFlags struct {
	setup    setupFlags
	baseline string
	help     bool
}

func newConfigFlagSet(f *configCmdFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet(progName+" config", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	f.setup.register(fs, true, true)
	fs.StringVar(&f.setup.failOn, "fail-on", "", "override fail-on with `SEVERITY`")
	fs.StringVar(&f.baseline, "baseline", "", "override baseline with `FILE`")
	fs.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	return fs
}

// configCmd implements `kube-proxy-lint config print`.
func (c *cli) configCmd(ctx context.Context, args []string) int {
	const cmd = progName + " config"
	var f configCmdFlags
	fs := newConfigFlagSet(&f)
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if f.help {
		fmt.Fprint(c.stdout, configUsage+flagUsages(fs))
		return exitOK
	}
	if fs.NArg() == 0 || fs.Arg(0) != "print" {
		what := "no subcommand"
		if fs.NArg() > 0 {
			what = fmt.Sprintf("unknown subcommand %q", fs.Arg(0))
		}
		return c.fail(usagef(cmd, "config: %s (want: config print)", what))
	}
	if fs.NArg() > 2 {
		return c.fail(usagef(cmd, "config print takes at most one PATH"))
	}
	path := "."
	if fs.NArg() == 2 {
		path = fs.Arg(1)
	}
	st, err := resolveSetup(&f.setup, path, cmd)
	if err != nil {
		return c.fail(err)
	}
	m := st.merged
	if _, err := checker.ParseSeverity(m.FailOn); m.FailOn != "" && err != nil {
		return c.fail(usagef(cmd, "parse --fail-on: %w", err))
	}
	if f.baseline != "" {
		m.Baseline = f.baseline
	}
	targets := ""
	if st.target != nil {
		targets = "target " + st.target.String() + " (" + st.targetSource + ")"
	} else {
		// As a lint run of PATH does: each scope's highest version, else the repository's,
		// else the default.
		root := sourceRoot(path)
		declared, partial := declaredClusters(m, []string{path}, root, false)
		ws, err := safeLoad(ctx, load.Options{Paths: []string{path}, Root: root, MaxFileSize: configMaxSize(m), IncludeTestdata: m.IncludeTestdata,
			Helm: load.HelmOptions{Disabled: !m.HelmRender(), Values: m.HelmCharts(root)}, Clusters: declared, ClustersPartial: partial})
		if err != nil {
			return c.fail(err)
		}
		targets = report.TargetsText(ws.ScopeTargets(), ws.Target)
	}
	out, err := m.Marshal()
	if err != nil {
		return c.fail(err)
	}
	src := "no configuration file"
	if m.Path != "" {
		src = st.display
	}
	fmt.Fprintf(c.stdout, "# effective configuration: %s, with command-line flags applied\n", src)
	fmt.Fprintf(c.stdout, "# %s\n", printable(targets))
	_, _ = c.stdout.Write(out)
	return exitOK
}

// configMaxSize is the max-file-size of a configuration, or the default.
func configMaxSize(m *config.Config) int64 {
	if n, err := config.ParseSize(m.MaxFileSize); err == nil {
		return n
	}
	return load.DefaultMaxFileSize
}
