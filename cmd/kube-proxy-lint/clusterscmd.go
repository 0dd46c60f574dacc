package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/cluster"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
)

// `kube-proxy-lint clusters [PATH...]`: the cluster model a lint run of the same paths uses
// (RULES.md "Clusters"), as text or JSON (docs/clusters.schema.json).

// clustersFormats are the --format values of the clusters command.
var clustersFormats = []string{"text", "json"}

// clustersFlags are the flags of the clusters command: those of a lint run that decide what
// is loaded and at which target.
type clustersFlags struct {
	setup           setupFlags
	format          string
	maxFileSize     int64
	includeTestdata bool
	rev             string
	help            bool
}

func newClustersFlagSet(f *clustersFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet(progName+" clusters", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringVarP(&f.format, "format", "f", "text", "write the clusters as `FORMAT`: text or json (docs/clusters.schema.json)")
	addConfigFlags(fs, &f.setup.cfg)
	_ = fs.MarkHidden("no-inline-suppressions") // accepted as in a lint run; nothing to suppress here
	fs.StringVar(&f.setup.targetVersion, "target-version", "", "Kubernetes `VERSION` every cluster is checked at, as in a lint run (default: each cluster's own version, declared or detected, else "+checker.DefaultTarget.String()+")")
	f.maxFileSize = load.DefaultMaxFileSize
	fs.Var((*sizeValue)(&f.maxFileSize), "max-file-size", "skip files larger than `SIZE`, as a lint run does")
	fs.BoolVar(&f.includeTestdata, "include-testdata", false, "also read directories named testdata")
	fs.StringVar(&f.rev, "rev", "", "read the tree of commit `REV` without checking it out; PATHs select files in it")
	fs.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	return fs
}

// clustersUsage is the --help text of the clusters command.
func clustersUsage(fs *pflag.FlagSet) string {
	return `kube-proxy-lint clusters prints the clusters a lint run of the same paths judges files in: for
each cluster its name (the name findings, the summary and the report use), its root, how it was
found (the identity anchors with their positions, or "declared in .kube-proxy-lint.yaml:L:C"),
the target version and its source, each kube-proxy with its effective mode and where that mode
is written, what replaces kube-proxy (Cilium kubeProxyReplacement, an installer that does not
install it) and the cluster's files; then the shared files, which belong to no cluster. A chart
rendering is named after its chart and values file and lists the real files it renders from.
File names are relative to the Git work tree holding the first PATH.

Usage:
  kube-proxy-lint clusters [flags] [PATH...]

Clusters can be declared in .kube-proxy-lint.yaml (key clusters: name, paths, version; see
docs/config.md); the rest are inferred (README, "Clusters").

Examples:
  kube-proxy-lint clusters
  kube-proxy-lint clusters --format json . | jq '.clusters[] | {name, target: .target.version}'

Exit codes: 0 printed; 2 usage or configuration error (a declared cluster's glob that matches
nothing, a file in two declared clusters), unreadable path.

Flags:
` + flagUsages(fs)
}

// clustersCmd implements `kube-proxy-lint clusters`.
func (c *cli) clustersCmd(ctx context.Context, args []string) int {
	const cmd = progName + " clusters"
	var f clustersFlags
	fs := newClustersFlagSet(&f)
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if f.help {
		fmt.Fprint(c.stdout, clustersUsage(fs))
		return exitOK
	}
	if f.format != "text" && f.format != "json" {
		return c.fail(usagef(cmd, "parse --format: unknown format %q (want %s)", f.format, strings.Join(clustersFormats, " or ")))
	}
	if f.maxFileSize <= 0 {
		return c.fail(usagef(cmd, "parse --max-file-size: must be positive, got %d", f.maxFileSize))
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	for _, p := range paths {
		if p == "-" {
			return c.fail(usagef(cmd, "clusters reads no stdin: a cluster is made of files"))
		}
	}
	g := gitFlags{rev: f.rev}
	if err := g.validate(paths); err != nil {
		return c.fail(err)
	}
	st, err := resolveSetup(&f.setup, paths[0], cmd)
	if err != nil {
		return c.fail(err)
	}
	m := st.merged
	cfg := &lintConfig{paths: paths, target: st.target, maxSize: f.maxFileSize, includeTestdata: f.includeTestdata || m.IncludeTestdata,
		helm: m, git: g, quiet: true}
	if !fs.Changed("max-file-size") && m.MaxFileSize != "" {
		if cfg.maxSize, err = config.ParseSize(m.MaxFileSize); err != nil {
			return c.fail(fmt.Errorf("config %s: max-file-size: %w", st.display, err))
		}
	}
	root := sourceRoot(paths[0])
	cfg.clusters, cfg.clustersPartial = declaredClusters(m, paths, root, g.rev != "")
	ws, _, err := c.loadWorkspace(ctx, cfg, nil)
	if err != nil {
		return c.fail(err)
	}
	if st.target != nil && f.setup.targetVersion == "" {
		ws.Target.Source = "target-version in " + st.display
	}
	for _, p := range ws.Problems {
		if p.Explicit {
			return c.fail(fmt.Errorf("%s: %s", p.Pos, p.Message))
		}
	}
	v := cluster.BuildView(ws)
	if f.format == "json" {
		err = report.ClustersJSON(c.stdout, v)
	} else {
		err = report.ClustersText(c.stdout, v)
	}
	if err != nil {
		return c.fail(fmt.Errorf("write clusters: %w", err))
	}
	return exitOK
}
