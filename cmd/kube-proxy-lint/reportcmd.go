package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/readiness"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
)

// The migration readiness report (RULES.md §3): `kube-proxy-lint report [PATH]`, and the
// report-markdown, report-html and report-json outputs of any run.

// reportFormatPrefix starts the names of the outputs that render the readiness report.
const reportFormatPrefix = "report-"

// nodesFlagUsage documents --nodes.
const nodesFlagUsage = "read node kernels from `[DIR=]FILE`: kubectl get nodes -o json or -o yaml, for every cluster scope or for those at or below DIR; repeatable (KP602 and the readiness report)"

// reportUsage is the --help text of the report command.
func reportUsage(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString(`kube-proxy-lint report writes the migration readiness report of a repository: per cluster scope,
each kube-proxy with its sources, its effective mode today and at each minor version up to 1.43,
whether something else replaces it, the blockers and advisories grouped by what breaks (with the
version each arrives in), node kernel readiness and the next step, with repository totals on top.

Usage:
  kube-proxy-lint report [flags] [PATH...]

It is a lint run whose output defaults to --format report-markdown and whose exit code defaults
to --fail-on none. Other outputs: report-html (one self-contained page) and report-json (the
model, see docs/report.schema.json); every format of a lint run works here too, and the report-*
formats work in a lint run.

Examples:
  kube-proxy-lint report .
  kube-proxy-lint report --nodes nodes.json --format report-html=readiness.html .
  kube-proxy-lint report --nodes clusters/prod=prod-nodes.json --format report-json=readiness.json .
  kube-proxy-lint --format text --format report-markdown="$GITHUB_STEP_SUMMARY" .

Flags:
`)
	b.WriteString(flagUsages(fs))
	return b.String()
}

// reportCmd runs `kube-proxy-lint report`: a lint run with report defaults.
func (c *cli) reportCmd(ctx context.Context, args []string) int {
	var f lintFlags
	fs := newLintFlagSetWith(&f, reportDefaults)
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: progName + " report"})
	}
	if f.help {
		fmt.Fprint(c.stdout, reportUsage(fs))
		return exitOK
	}
	// The lint run gets report's defaults (the ones its --help shows) as flags.
	var pre []string
	if !fs.Changed("format") {
		pre = append(pre, "--format", reportDefaults.format)
	}
	if !fs.Changed("fail-on") {
		pre = append(pre, "--fail-on", reportDefaults.failOn)
	}
	return c.lint(ctx, append(pre, args...))
}

// wantsReport reports whether an output renders the readiness report.
func wantsReport(outs []output) bool {
	for _, o := range outs {
		if strings.HasPrefix(o.format, reportFormatPrefix) {
			return true
		}
	}
	return false
}

// loadNodes reads the --nodes files into the workspace's node inventory. A node list given
// for the repository replaces the Node objects that the walk found in the same file.
func loadNodes(ws *checker.Workspace, root string, specs []string) error {
	for _, spec := range specs {
		dir, file := "", spec
		if _, err := os.Stat(spec); err != nil {
			if d, f, ok := strings.Cut(spec, "="); ok {
				dir, file = filepath.ToSlash(filepath.Clean(d)), f
				if dir == "." {
					dir = ""
				}
			}
		}
		if dir != "" && !scopeUnder(ws, dir) {
			return usagef(progName, "parse --nodes %s: %s names no cluster (clusters: %s)", spec, dir, scopeList(ws))
		}
		name := filepath.Clean(file)
		if abs, err := filepath.Abs(file); err == nil {
			if rel, err := filepath.Rel(root, abs); err == nil && !strings.HasPrefix(rel, "..") {
				name = rel
			}
		}
		name = filepath.ToSlash(name)
		nodes, _, err := load.NodesFile(file, name, dir)
		if err != nil {
			return &usageError{err: fmt.Errorf("parse --nodes: %w", err), help: progName}
		}
		kept := ws.Nodes[:0]
		for _, n := range ws.Nodes {
			if n.Explicit || n.Pos.Filename != name {
				kept = append(kept, n)
			}
		}
		ws.Nodes = append(kept, nodes...)
	}
	return nil
}

// scopeUnder reports whether dir names a cluster: its name, its root, or a directory or file
// inside it.
func scopeUnder(ws *checker.Workspace, dir string) bool {
	for _, c := range ws.Clusters {
		if ws.NodesScopeIs(dir, c) {
			return true
		}
	}
	return false
}

func scopeList(ws *checker.Workspace) string {
	if len(ws.Clusters) == 0 {
		return "none"
	}
	var names []string
	for i, c := range ws.Clusters {
		if i == 10 {
			names = append(names, "…")
			break
		}
		names = append(names, c.Name)
	}
	return strings.Join(names, ", ")
}

// buildReadiness runs the rules again at every later milestone up to the horizon, with the
// same processing, and builds the readiness model from those findings and today's.
func buildReadiness(ctx context.Context, ws *checker.Workspace, rules []*checker.Rule, proc engine.Processing, today *engine.Outcome) (*readiness.Report, error) {
	later := map[checker.Version][]checker.Finding{}
	laterRules := readiness.LaterRules(rules)
	for _, v := range readiness.LaterVersions(ws) {
		at := *ws
		at.Target = checker.Target{Version: v, Source: "--target-version"}
		at.TargetFixed = true
		out, err := engine.RunWith(ctx, &at, laterRules, proc)
		if err != nil {
			return nil, fmt.Errorf("check at %s: %w", v, err)
		}
		later[v] = out.Findings
	}
	return readiness.Build(readiness.Input{
		Workspace:   ws,
		Findings:    today.Findings,
		Later:       later,
		Rules:       rules,
		Tool:        report.ToolName,
		ToolVersion: versionString(),
	}), nil
}
