package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
)

// setupFlags are what `rules`, `explain` and `config print` share with a lint run to resolve
// the configuration file, the registry (with policy-dirs and --policy), the enabled rules and
// the target, the way a lint run of the same path does.
type setupFlags struct {
	cfg           configFlags
	policies      []string
	enable        []string
	disable       []string
	targetVersion string
	failOn        string
}

// register adds the flags; rules and target add --enable/--disable and --target-version.
func (s *setupFlags) register(fs *pflag.FlagSet, rules, target bool) {
	addConfigFlags(fs, &s.cfg)
	fs.StringArrayVar(&s.policies, "policy", nil, policyFlagUsage)
	if target {
		fs.StringVar(&s.targetVersion, "target-version", "", "Kubernetes `VERSION` to resolve severities at, as in a lint run (default: the configuration file's, else detected or "+checker.DefaultTarget.String()+")")
	}
	if rules {
		fs.StringSliceVar(&s.enable, "enable", nil, "enable `RULES` as the lint command does")
		fs.StringSliceVar(&s.disable, "disable", nil, "disable `RULES` as the lint command does")
	}
}

// setup is a resolved configuration.
type setup struct {
	// merged is the configuration file with the flags applied; display names its file.
	merged  *config.Config
	display string
	all     []*checker.Rule
	enabled map[string]bool
	// target is set when the flag or the file names one; targetSource says which.
	target       *checker.Version
	targetSource string
}

// resolveSetup reads the configuration that applies to path and resolves the registry, the
// enabled rules and an explicit target.
func resolveSetup(s *setupFlags, path, cmd string) (*setup, error) {
	file, err := readConfig(&s.cfg, path)
	if err != nil {
		return nil, err
	}
	dirs, err := policyDirs(&s.cfg, file, sourceRoot(path), s.policies)
	if err != nil {
		return nil, err
	}
	all, err := withPolicies(registry(), dirs, repoPolicySources(&s.cfg))
	if err != nil {
		return nil, err
	}
	lf := lintFlags{cfg: s.cfg, targetVersion: s.targetVersion, failOn: s.failOn, failOnSet: s.failOn != "", enable: s.enable, disable: s.disable}
	m, err := applyConfig(&lf, file, all)
	if err != nil {
		return nil, err
	}
	sel, err := engine.Select(all, m.Enable, m.Disable)
	if err != nil {
		return nil, &usageError{err: err, help: cmd}
	}
	st := &setup{merged: m, display: lf.cfg.display, all: all, enabled: map[string]bool{}}
	for _, r := range sel {
		st.enabled[r.ID] = true
	}
	switch {
	case s.targetVersion != "":
		v, err := checker.ParseVersion(s.targetVersion)
		if err != nil {
			return nil, usagef(cmd, "parse --target-version: %w", err)
		}
		st.target, st.targetSource = &v, "from --target-version"
	case m.TargetVersion != "" && m.TargetVersion != "auto":
		v, err := checker.ParseVersion(m.TargetVersion)
		if err != nil {
			return nil, fmt.Errorf("config %s: target-version: %w", st.display, err)
		}
		st.target, st.targetSource = &v, "from "+lf.cfg.targetSource
	}
	return st, nil
}

// severities returns each rule's severity at target t, with the configuration's severity
// overrides applied.
func (st *setup) severities(t checker.Version) map[string]checker.Severity {
	out := map[string]checker.Severity{}
	for _, r := range st.all {
		out[r.ID] = r.SeverityFor(t)
	}
	for name, s := range st.merged.Severity {
		if r, err := engine.Find(st.all, name); err == nil {
			if sev, err := checker.ParseSeverity(s); err == nil {
				out[r.ID] = sev
			}
		}
	}
	return out
}
