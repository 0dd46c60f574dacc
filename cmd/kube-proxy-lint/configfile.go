package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
)

// configFlags are the flags that choose the configuration file and override its keys; the
// lint command and `config print` share them so that print shows what a run would use.
type configFlags struct {
	file                 string
	noConfig             bool
	noInlineSuppressions bool
	// targetSource is set by applyConfig when the target version comes from the file;
	// display is the file's name relative to the repository root.
	targetSource string
	display      string
}

func addConfigFlags(fs *pflag.FlagSet, f *configFlags) {
	fs.StringVar(&f.file, "config", "", "read the configuration from `FILE` instead of the "+config.FileName+" found from the first PATH up to the repository root")
	fs.BoolVar(&f.noConfig, "no-config", false, "read no configuration file")
	fs.BoolVar(&f.noInlineSuppressions, "no-inline-suppressions", false, "ignore kube-proxy-lint:ignore comments and kube-proxy-lint.io/ignore annotations (strict mode)")
}

// readConfig finds and parses the configuration file for lintPath (the first PATH). It returns
// an empty configuration when there is none. Rule names are checked later, by applyConfig,
// against a registry that includes the file's own policy-dirs.
func readConfig(f *configFlags, lintPath string) (*config.Config, error) {
	if f.noConfig {
		if f.file != "" {
			return nil, usagef(progName, "--config and --no-config exclude each other")
		}
		return &config.Config{}, nil
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

// policyDirs returns the policy directories of a run: the configuration file's, then those of
// --policy, each once.
func policyDirs(c *config.Config, flags []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, d := range append(c.Policies(), flags...) {
		key := filepath.Clean(d)
		if abs, err := filepath.Abs(d); err == nil {
			key = abs
		}
		if !seen[key] {
			seen[key] = true
			out = append(out, d)
		}
	}
	return out
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
	}
	if m.TargetVersion != "auto" {
		f.targetVersion = m.TargetVersion
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
command-line flags below applied and defaults filled in. Every key is described in
docs/config.md.

Flags:
`

// configCmd implements `kube-proxy-lint config print`.
func (c *cli) configCmd(args []string) int {
	const cmd = progName + " config"
	if len(args) == 0 || (args[0] != "print" && args[0] != "--help" && args[0] != "-h") {
		what := "no subcommand"
		if len(args) > 0 {
			what = fmt.Sprintf("unknown subcommand %q", args[0])
		}
		return c.fail(usagef(cmd, "config: %s (want: config print)", what))
	}
	if args[0] == "print" {
		args = args[1:]
	}
	var f lintFlags
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	addConfigFlags(fs, &f.cfg)
	fs.StringVar(&f.targetVersion, "target-version", "", "override target-version with `VERSION`")
	fs.StringVar(&f.failOn, "fail-on", "", "override fail-on with `SEVERITY`")
	fs.StringSliceVar(&f.enable, "enable", nil, "enable `RULES` as the lint command does")
	fs.StringSliceVar(&f.disable, "disable", nil, "disable `RULES` as the lint command does")
	help := fs.BoolP("help", "h", false, "print this help and exit")
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if *help {
		fmt.Fprint(c.stdout, configUsage+flagUsages(fs))
		return exitOK
	}
	if fs.NArg() > 1 {
		return c.fail(usagef(cmd, "config print takes at most one PATH"))
	}
	path := "."
	if fs.NArg() == 1 {
		path = fs.Arg(0)
	}
	f.failOnSet = f.failOn != ""
	file, err := readConfig(&f.cfg, path)
	if err != nil {
		return c.fail(err)
	}
	all, err := withPolicies(registry(), policyDirs(file, nil))
	if err != nil {
		return c.fail(err)
	}
	m, err := applyConfig(&f, file, all)
	if err != nil {
		return c.fail(err)
	}
	// Validate what the flags added, as a lint run would.
	if _, err := engine.Select(all, m.Enable, m.Disable); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if m.TargetVersion != "" && m.TargetVersion != "auto" {
		if _, err := checker.ParseVersion(m.TargetVersion); err != nil {
			return c.fail(usagef(cmd, "parse --target-version: %w", err))
		}
	}
	if _, err := checker.ParseSeverity(m.FailOn); m.FailOn != "" && err != nil {
		return c.fail(usagef(cmd, "parse --fail-on: %w", err))
	}
	out, err := m.Marshal()
	if err != nil {
		return c.fail(err)
	}
	src := "no configuration file"
	if m.Path != "" {
		src = f.cfg.display
	}
	fmt.Fprintf(c.stdout, "# effective configuration: %s, with command-line flags applied\n", src)
	_, _ = c.stdout.Write(out)
	return exitOK
}
