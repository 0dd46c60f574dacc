package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/cluster"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/readiness"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// lintFlags are the flags of the main command.
type lintFlags struct {
	formats       []string
	output        string
	pathPrefix    string
	color         string
	failOn        string
	enable        []string
	disable       []string
	targetVersion string
	// User Rego policies (policycmd.go).
	policies      []string
	policyTimeout time.Duration
	stdinName     string
	maxFileSize   int64
	// includeTestdata walks testdata directories too.
	includeTestdata bool
	git             gitFlags
	quiet           bool
	verbose         bool
	debug           bool
	version         bool
	help            bool
	// Configuration file, suppressions and baseline (configfile.go, baseline.go).
	cfg           configFlags
	failOnSet     bool
	baseline      string
	writeBaseline string

	// nodes are the --nodes [DIR=]FILE node inventories (reportcmd.go).
	nodes []string
	// --cpu-profile, --mem-profile and --mem-trace (hidden; profile.go).
	cpuProfile, memProfile, memTrace string
	// --fix, --unsafe-fixes and --diff (fix.go).
	fixes fixFlags
	// --max-memory and --timeout (budget.go).
	budget budgetFlags
	// Which of the flags the configuration file may also set were given (flags win, also
	// when empty: --baseline "" turns the file's baseline off).
	baselineSet, maxFileSizeSet, revFlagsSet bool
}

// lintDefaults are the defaults of the flags in which the lint command and report differ.
type lintDefaults struct {
	// format is the output when no --format is given; failOn the --fail-on default.
	format, failOn string
}

var (
	// mainDefaults are the lint command's; reportDefaults those of `kube-proxy-lint report`.
	mainDefaults   = lintDefaults{format: "text", failOn: "error"}
	reportDefaults = lintDefaults{format: "report-markdown", failOn: "none"}
)

// newLintFlagSet is the flag set of the lint command.
func newLintFlagSet(f *lintFlags) *pflag.FlagSet { return newLintFlagSetWith(f, mainDefaults) }

// newLintFlagSetWith is the flag set of a lint run whose --format and --fail-on defaults are
// d: the main command's and report's, so that each --help, completion and the manual say the
// defaults the command uses.
func newLintFlagSetWith(f *lintFlags, d lintDefaults) *pflag.FlagSet {
	fs := pflag.NewFlagSet(progName, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringArrayVarP(&f.formats, "format", "f", nil, "add an output in `FORMAT[=FILE]`, written to FILE when given; repeatable (default "+d.format+")")
	fs.StringVarP(&f.output, "output", "o", "", "write the output that names no file to `FILE` instead of stdout")
	fs.StringVar(&f.pathPrefix, "path-prefix", "", "prepend `PREFIX` to the file names of text, github and checkstyle output, which are relative to the current directory (default for github in GitHub Actions: the current directory's path in GITHUB_WORKSPACE)")
	fs.StringVar(&f.color, "color", "auto", "colour terminal output `WHEN`: auto, always or never (auto: stdout is a terminal and NO_COLOR is empty)")
	fs.StringVar(&f.failOn, "fail-on", d.failOn, "exit 1 on findings at or above `SEVERITY`: error, warning, info or none")
	fs.StringSliceVar(&f.enable, "enable", nil, "enable `RULES` by ID or name, comma-separated or repeated; \"all\" enables every rule")
	fs.StringSliceVar(&f.disable, "disable", nil, "disable `RULES` by ID or name, comma-separated or repeated; \"all\" disables every rule not enabled by name")
	fs.StringVar(&f.targetVersion, "target-version", "", "Kubernetes `VERSION` to check every file against, e.g. 1.40 or v1.37.2 (default: each cluster's own version, detected from the repository, else the configuration file's target-version, else "+checker.DefaultTarget.String()+")")
	fs.StringArrayVar(&f.policies, "policy", nil, policyFlagUsage)
	fs.DurationVar(&f.policyTimeout, "policy-timeout", policy.DefaultTimeout, "stop a Rego rule that evaluates longer than `DURATION` in one run (an internal error)")
	addConfigFlags(fs, &f.cfg)
	fs.StringVar(&f.baseline, "baseline", "", "do not report the findings listed in the baseline `FILE`; its stale entries are printed as notes")
	fs.StringVar(&f.writeBaseline, "write-baseline", "", "write every current finding to the baseline `FILE` and exit 0")
	f.fixes.register(fs)
	fs.StringVar(&f.stdinName, "stdin-filename", "", "file `NAME` reported for input read from - (default <stdin>)")
	f.maxFileSize = load.DefaultMaxFileSize
	fs.Var((*sizeValue)(&f.maxFileSize), "max-file-size", "skip files larger than `SIZE` with a notice: bytes, or a number with a unit (KiB, MiB, GiB, KB, MB, GB)")
	f.budget.register(fs)
	fs.BoolVar(&f.includeTestdata, "include-testdata", false, "also lint directories named testdata (skipped by default, as Go tools do)")
	fs.StringArrayVar(&f.nodes, "nodes", nil, nodesFlagUsage)
	f.git.register(fs)
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "print nothing to stderr but errors: no notices about skipped files, no summary of a clean run")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print to stderr each file read, as YAML or text, why and what it holds; each file left out and why; the kube-proxy instances found")
	fs.BoolVar(&f.debug, "debug", false, "print stack traces of internal errors to stderr")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	fs.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	fs.StringVar(&f.cpuProfile, "cpu-profile", "", "write a CPU profile of the run to `FILE` (for developers)")
	fs.StringVar(&f.memProfile, "mem-profile", "", "write a heap profile at the end of the run to `FILE` (for developers)")
	fs.StringVar(&f.memTrace, "mem-trace", "", "write the run's memory over time, by phase, to `FILE` (for developers)")
	_ = fs.MarkHidden("cpu-profile")
	_ = fs.MarkHidden("mem-trace")
	_ = fs.MarkHidden("mem-profile")
	return fs
}

// usage is the --help text of the main command.
func usage(fs *pflag.FlagSet) string {
	var b strings.Builder
	b.WriteString(`kube-proxy-lint checks kube-proxy configuration in infrastructure repositories: DaemonSets,
static pods, ConfigMaps, KubeProxyConfiguration files and installer configs (kubeadm, kind, kops,
kubespray, k3s/RKE2, RKE1, Talos, EKS, Gardener, AKS, KubeKey, k0s, KubeOne, aks-engine, kubeasz,
ACK, sealos, Cluster API), and the shell scripts, systemd units, environment files, Dockerfiles,
Makefiles, flag files and templates (Helm, Jinja2, ERB) around them. Helm charts (directories
with a Chart.yaml) are rendered with values.yaml and each values-*.yaml by kube-proxy-lint-helm
(installed beside kube-proxy-lint), and findings point at the values file line that sets the
value (configuration key helm).

Usage:
  kube-proxy-lint [flags] [PATH...]      lint files and directories (default "."; "-" reads stdin)
`)
	for _, c := range commands {
		b.WriteString("  kube-proxy-lint " + c.synopsis + "\n")
	}
	b.WriteString(`
Flags:
`)
	b.WriteString(flagUsages(fs))
	fmt.Fprintf(&b, `
Outputs:
  Each --format FORMAT[=FILE] adds one output; repeat it to write several in one run.
  FORMAT is one of:
%s.
  The report-* formats write the migration readiness report (see report --help).
  An output without =FILE goes to --output FILE when given, else to stdout; FILE "-" is
  stdout. --output takes exactly one output, at most one output may go to stdout, and no
  two outputs may share a file. Files are replaced atomically and never coloured.

  Examples:
    kube-proxy-lint deploy/
    kube-proxy-lint --format sarif --output results.sarif .
    kube-proxy-lint --format text --format sarif=results.sarif --format json=report.json .
    kube-proxy-lint --new-from-merge-base origin/main --format github .
    kube-proxy-lint --rev v1.2.0 --format markdown=summary.md .
    kube-proxy-lint --diff .     (what --fix would change; exit 1 when there is something)
    kube-proxy-lint --fix .      (apply the safe fixes; --unsafe-fixes adds the others)

  File names in text, github and checkstyle output are relative to the current directory,
  as compilers write them (--path-prefix adds a prefix); in the other formats they are
  relative to the Git work tree holding the first PATH (or to that directory outside Git).

  Subcommands (%s)
  are reserved words: to lint a directory named like one, write it as ./rules. Flags before
  a subcommand are its flags: kube-proxy-lint --config c.yaml config print.

Exit codes:
  0         no finding at or above --fail-on
  1         findings at or above --fail-on
  2         usage error, unreadable path or configuration, a named file that could not
            be linted, internal error (a rule that broke), or the run went over
            --max-memory or --timeout
  130, 143  interrupted by SIGINT or SIGTERM
`, wrapList(report.Formats(), 4, usageWidth), strings.Join(commandNames(), ", "))
	return b.String()
}

// lintConfig is the validated command line of a lint run.
type lintConfig struct {
	paths     []string
	outputs   []output
	rules     []*checker.Rule
	threshold checker.Severity
	target    *checker.Version
	// fallback is the configuration file's target-version: the target of the clusters that
	// name no version of their own.
	fallback  *checker.Target
	color     bool
	stdinName string
	maxSize   int64
	quiet     bool
	verbose   bool
	git       gitFlags
	debug     bool
	// reportIgnored: the trust comes from the base (--config-from-base), so what the tree's
	// .gitignore left out is listed in a notice.
	reportIgnored bool
	// includeTestdata: --include-testdata or the config file's include-testdata.
	includeTestdata bool
	// helm is the configuration's helm key (chart rendering).
	helm  *config.Config
	nodes []string
	// proc configures the processors: config exclusions, skip, severity, suppressions,
	// baseline. writeBaseline is the --write-baseline file; explicitOutputs tells whether
	// --format was given; policyDirs are the config file's policy-dirs, for the policy loader.
	proc            engine.Processing
	pathPrefix      string
	writeBaseline   string
	explicitOutputs bool
	// roots are the physical trees the run reads (outputRoots): no output is written through
	// a symbolic link inside them.
	roots      []string
	policyDirs []string
	// wholeOnDemand: user Rego rules run, which may read any document whole: the loader
	// keeps what lets it decode a pruned one again (load.Options.WholeOnDemand).
	wholeOnDemand bool
	// budget is the run's memory and time budget (budget.go).
	budget       *budget.Budget
	targetSource string
	// fixes are --fix, --unsafe-fixes and --diff; overlay replaces file contents when the
	// fixer lints the fixed files.
	fixes   fixFlags
	overlay map[string][]byte
	// clusters are the configuration's declared clusters; clustersPartial is set when the
	// run reads only part of the tree their globs are written for.
	clusters        []cluster.Declared
	clustersPartial bool
}

func (c *cli) lint(ctx context.Context, args []string) int {
	var f lintFlags
	fs := newLintFlagSet(&f)
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: progName})
	}
	f.failOnSet = fs.Changed("fail-on")
	f.baselineSet, f.maxFileSizeSet = fs.Changed("baseline"), fs.Changed("max-file-size")
	f.revFlagsSet = fs.Changed("new-from-rev") || fs.Changed("new-from-merge-base") || fs.Changed("only-files")
	f.budget.parsed(fs)
	switch {
	case f.help:
		fmt.Fprint(c.stdout, usage(fs))
		return exitOK
	case f.version:
		fmt.Fprintln(c.stdout, buildVersion().String())
		return exitOK
	case f.quiet && f.verbose:
		return c.fail(usagef(progName, "--quiet and --verbose exclude each other"))
	}
	paths := fs.Args()
	if len(paths) == 0 {
		paths = []string{"."}
	}
	stop, err := startProfiles(f.cpuProfile, f.memProfile, f.memTrace, outputRoots(paths))
	if err != nil {
		return c.fail(err)
	}
	defer stop()
	cfg, err := c.configure(&f, fs.Args())
	if err != nil {
		return c.fail(err)
	}
	return c.runBudgeted(ctx, cfg)
}

// configure validates the flags before anything is read, so a typo costs no loading time.
func (c *cli) configure(f *lintFlags, args []string) (*lintConfig, error) {
	cfg := &lintConfig{paths: args, pathPrefix: f.pathPrefix, stdinName: f.stdinName, debug: f.debug, maxSize: f.maxFileSize, quiet: f.quiet, verbose: f.verbose, git: f.git, includeTestdata: f.includeTestdata, nodes: f.nodes,
		reportIgnored: f.cfg.fromBase != ""}
	if err := f.git.validate(args); err != nil {
		return nil, err
	}
	if err := f.fixes.validate(f); err != nil {
		return nil, err
	}
	cfg.fixes = f.fixes
	if cfg.maxSize <= 0 {
		return nil, usagef(progName, "parse --max-file-size: must be positive, got %d", cfg.maxSize)
	}
	if len(cfg.paths) == 0 {
		cfg.paths = []string{"."}
	}
	if f.policyTimeout <= 0 {
		return nil, usagef(progName, "parse --policy-timeout: must be positive, got %s", f.policyTimeout)
	}
	policy.Timeout = f.policyTimeout
	// The configuration file's policy-dirs join --policy before the registry is built, so
	// that the file may name the rules of its own policies.
	file, err := readConfig(&f.cfg, cfg.paths[0])
	if err != nil {
		return nil, err
	}
	dirs, err := policyDirs(&f.cfg, file, sourceRoot(cfg.paths[0]), f.policies)
	if err != nil {
		return nil, err
	}
	all, err := withPolicies(registry(), dirs, repoPolicySources(&f.cfg))
	if err != nil {
		return nil, err
	}
	// Repository and --policy Rego rules may read any document: the loader lets them read
	// every document whole, a file at a time (load.Options.WholeOnDemand).
	cfg.wholeOnDemand = len(dirs) > 0 || len(repoPolicySources(&f.cfg)) > 0
	conf, err := applyConfig(f, file, all)
	if err != nil {
		return nil, err
	}
	// The file's max-file-size and new-from-rev or new-from-merge-base, unless flags say
	// otherwise. A pre-commit hook (--only-files) or an explicit --new-from-* replaces them.
	if !f.maxFileSizeSet && conf.MaxFileSize != "" {
		if cfg.maxSize, err = config.ParseSize(conf.MaxFileSize); err != nil {
			return nil, fmt.Errorf("config %s: max-file-size: %w", f.cfg.display, err)
		}
	}
	if cfg.budget, err = f.budget.resolve(conf, f.cfg.display); err != nil {
		return nil, err
	}
	if !f.revFlagsSet {
		cfg.git.newFromRev, cfg.git.newFromMergeBase = conf.NewFromRev, conf.NewFromMergeBase
		if err := cfg.git.validate(cfg.paths); err != nil {
			return nil, fmt.Errorf("config %s: %w", f.cfg.display, err)
		}
	}
	if cfg.threshold, err = checker.ParseSeverity(f.failOn); err != nil {
		return nil, usagef(progName, "parse --fail-on: %w", err)
	}
	if f.targetVersion != "" {
		v, err := checker.ParseVersion(f.targetVersion)
		if err != nil {
			return nil, usagef(progName, "parse --target-version: %w", err)
		}
		cfg.target = &v
	}
	if f.cfg.fallbackTarget != "" {
		v, err := checker.ParseVersion(f.cfg.fallbackTarget)
		if err != nil {
			return nil, fmt.Errorf("config %s: target-version: %w", f.cfg.display, err)
		}
		cfg.fallback = &checker.Target{Version: v, Source: f.cfg.targetSource}
	}
	switch f.color {
	case "always":
		cfg.color = true
	case "never":
	case "auto":
		cfg.color = isTerminal(c.stdout) && os.Getenv("NO_COLOR") == ""
	default:
		return nil, usagef(progName, "parse --color: unknown value %q (want auto, always or never)", f.color)
	}
	if cfg.outputs, err = parseOutputs(f.formats, f.output, report.Formats()); err != nil {
		return nil, &usageError{err: err, help: progName}
	}
	if err := checker.Validate(all); err != nil {
		return nil, fmt.Errorf("internal error: invalid rule registry: %w", err)
	}
	if cfg.rules, err = engine.Select(all, f.enable, f.disable); err != nil {
		return nil, &usageError{err: err, help: progName}
	}
	if err := configureProcessing(f, cfg, conf, all); err != nil {
		return nil, err
	}
	cfg.roots = outputRoots(cfg.paths)
	if err := checkOutputs(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

func (c *cli) runLint(ctx context.Context, cfg *lintConfig) int {
	formatters := make([]report.Formatter, len(cfg.outputs))
	for i, o := range cfg.outputs {
		fm, err := report.New(o.format, report.Options{Color: cfg.color && o.path == "", LinkBase: cfg.git.linkBaseURL()})
		if err != nil {
			return c.fail(&usageError{err: fmt.Errorf("create %s output: %w", o.format, err), help: progName})
		}
		formatters[i] = fm
	}
	var tr *tracer
	if cfg.verbose {
		tr = &tracer{}
	}
	stopLoadGC := collectHarderWhileLoading()
	ws, root, err := c.loadRun(ctx, cfg, tr)
	stopLoadGC()
	if err != nil {
		return c.fail(err)
	}
	if tr != nil {
		c.printTrace(tr, ws)
	}
	// Files that were skipped or could not be decoded as a manifest: not findings, but a user
	// must know that part of the tree was not checked. A file named on the command line that
	// was not linted at all is an error (exit 2), shown even with --quiet.
	skippedExplicit := false
	for _, p := range ws.Problems {
		if p.Explicit {
			skippedExplicit = true
			fmt.Fprintf(c.stderr, "%s: error: %s: %s\n", progName, report.Terminal(p.Pos.String()), report.Terminal(p.Message))
		} else if !p.Manifest && !cfg.quiet {
			fmt.Fprintf(c.stderr, "%s: notice: %s: %s\n", progName, report.Terminal(p.Pos.String()), report.Terminal(p.Message))
		}
	}
	changes, err := c.changeSet(ctx, cfg, root)
	if err != nil {
		return c.fail(err)
	}
	proc := cfg.proc
	proc.Changes = changes
	proc.BaselineCovers = coveredBy(cfg.paths, root)
	restoreGC := collectHarderAfterLoading()
	defer restoreGC()
	markPhase("rules")
	out, err := engine.RunWith(ctx, ws, cfg.rules, proc)
	if err != nil {
		return c.fail(err)
	}
	markPhase("output")
	if cfg.fixes.active() {
		restoreGC() // the fixer loads the tree again
		markPhase("fix")
		code := c.runFix(ctx, cfg, ws, root, proc, out, formatters)
		if skippedExplicit {
			code = exitError
		}
		return code
	}
	c.printFailures(cfg, out)
	var rd *readiness.Report
	if wantsReport(cfg.outputs) {
		if rd, err = buildReadiness(ctx, ws, cfg.rules, proc, out); err != nil {
			return c.fail(err)
		}
	}
	res := &report.Result{
		Readiness:   rd,
		Findings:    out.Findings,
		Rules:       cfg.rules,
		Target:      ws.Target,
		Targets:     ws.ScopeTargets(),
		Problems:    ws.Problems,
		ToolVersion: versionString(),
		SourceRoot:  root,
		Source:      sourceFunc(ws),
		Suppressed:  out.Suppressed,
		Notes:       out.Notes,
		Baselined:   out.Baselined,
	}
	code := exitCode(out, cfg.threshold)
	if skippedExplicit {
		code = exitError
	}
	if cfg.writeBaseline != "" {
		if code = c.finishBaseline(ctx, cfg, out); code != exitOK || !cfg.explicitOutputs {
			return code
		}
	}
	// The outputs read the findings, the files' text and the workspace's targets: what only
	// the rules read goes before they are written (issue 24: at 20,000 files 119 → 59 MB
	// live while the outputs are written).
	ws.ReleaseTrees()
	c.printNotes(cfg, out)
	if !c.writeOutputs(ctx, cfg, root, res, formatters, false) {
		code = exitError
	}
	if !cfg.quiet && (!textOnStdout(cfg) || len(res.Findings) == 0) {
		fmt.Fprintf(c.stderr, "%s: %s\n", progName, runSummary(ws, res))
	}
	return code
}

// writeOutputs writes every output of the run (skipping stdout when it holds a diff), the
// formats read in a terminal with names relative to the current directory. It reports whether
// every output was written.
func (c *cli) writeOutputs(ctx context.Context, cfg *lintConfig, root string, res *report.Result, formatters []report.Formatter, noStdout bool) bool {
	local := map[string]*report.Result{} // res with names relative to the current directory, by prefix
	ok := true
	for i, o := range cfg.outputs {
		if noStdout && o.path == "" {
			continue
		}
		r := res
		if terminalFormats[o.format] {
			prefix := cfg.pathPrefix
			if o.format == "github" && prefix == "" {
				prefix = actionsPrefix()
			}
			if local[prefix] == nil {
				local[prefix] = res.Renamed(displayName(root, prefix, cfg.stdinName))
			}
			r = local[prefix]
		}
		if err := writeOutput(ctx, c.stdout, c.stderr, o.path, cfg.roots, func(w io.Writer) error { return formatters[i].Format(w, r) }); err != nil {
			c.fail(fmt.Errorf("write %s output: %w", o.format, err))
			ok = false
		}
	}
	return ok
}

// textOnStdout reports whether a text output goes to stdout: it ends with its own summary.
func textOnStdout(cfg *lintConfig) bool {
	for _, o := range cfg.outputs {
		if o.format == "text" && o.path == "" {
			return true
		}
	}
	return false
}

// loadRun loads what a run lints: the files (loadWorkspace), with the target's source from the
// configuration file and the --nodes inventories.
func (c *cli) loadRun(ctx context.Context, cfg *lintConfig, tr *tracer) (*checker.Workspace, string, error) {
	ws, root, err := c.loadWorkspace(ctx, cfg, tr)
	if err != nil {
		return nil, "", err
	}
	if cfg.targetSource != "" && cfg.target != nil {
		ws.Target.Source = cfg.targetSource
	}
	if err := loadNodes(ws, root, cfg.nodes); err != nil {
		return nil, "", err
	}
	return ws, root, nil
}

// rulesGCPercent is the collector's GOGC from the end of loading to the end of the run, and
// largeRulesGCPercent once loading left a large heap (largeHeap live). What is loaded stays
// live to the end, and the rules and outputs allocate beside it; at the default 100 the heap
// may grow to twice what is live before the next collection, so the run's peak was set
// there. 50 lowered the peak by about a tenth at 20,000 files for 2% more time; 25 another
// 8% for 2.5% more (docs/performance.md, phase 5), where the live heap is large, and 20 with
// loadingGCPercent (phase 6). A small run keeps 50: its memory is mostly the binary, and more
// collections only cost time. Loading, which allocates the most, keeps the default until a
// large heap is live (collectHarderWhileLoading).
const (
	rulesGCPercent      = 50
	largeRulesGCPercent = 20
	largeHeap           = 64 << 20
)

// loadingGCPercent is the collector's GOGC while loading once largeLoad is live: at the end
// of a large load the heap grows to twice what the last collection marked (floating garbage
// of two decoding goroutines included), and that set half of the run's peak. Together with
// largeRulesGCPercent 20 (was 25): 20,000 files 259 → 240 MiB for about 3% more time (27
// interleaved rounds in four sittings; docs/performance.md, phase 6). Below largeLoad
// nothing changes: a small run's memory is mostly the binary.
const (
	loadingGCPercent = 50
	largeLoad        = 96 << 20
)

// A soft memory limit for large runs (issue 24, phase 8). Past limitHeap live, what is
// mapped besides the live heap (garbage up to the collector's goal, free spans the runtime
// keeps mapped after a collection and returns slowly) set the peak: at 100,000 files the free
// spans alone were 50 to 120 MB at each of the run's three peaks. With a soft limit the
// collector returns free spans and collects earlier as the process nears it. The limit
// follows the live heap: loadingLimitFactor times what the last collection marked while
// loading (the heap grows as files are read), rulesLimitFactor times what is live once
// loading ends (the rules add about a third to it, and the spans' free slots are a quarter
// of it: at 1.5 the limit bound through the rules, which took twice as long). Below
// limitHeap (20,000 files leave about 80 MB live) nothing changes: there the time is what
// matters. A user's GOGC turns this off, and a lower limit (GOMEMLIMIT, --max-memory) is
// kept.
const (
	loadingLimitFactor = 1.6
	rulesLimitFactor   = 1.7
)

// limitHeap is a variable for tests.
var limitHeap int64 = 192 << 20

// softLimit is a soft memory limit the run sets (set) and takes back (restore) without
// raising one set by others: the limit in force when it was first set, or when another
// setting replaced it since (the run's budget, budget.Watch), is its ceiling.
type softLimit struct {
	ceiling, ours int64
	active        bool
}

// set sets the soft memory limit to l, or to the ceiling when that is lower.
func (s *softLimit) set(l int64) {
	cur := debug.SetMemoryLimit(-1)
	if !s.active || cur != s.ours {
		s.ceiling, s.active = cur, true
	}
	s.ours = min(l, s.ceiling)
	if s.ours != cur {
		debug.SetMemoryLimit(s.ours)
	}
}

// restore sets the ceiling back, unless another setting replaced the limit since; once.
func (s *softLimit) restore() {
	if !s.active {
		return
	}
	if debug.SetMemoryLimit(-1) == s.ours {
		debug.SetMemoryLimit(s.ceiling)
	}
	s.active = false
}

// collectHarderWhileLoading sets GOGC to loadingGCPercent once largeLoad is live, and the
// soft memory limit to loadingLimitFactor times the live heap once limitHeap is, unless the
// user set GOGC; the returned function stops watching and restores both.
func collectHarderWhileLoading() (stop func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	prev := -1 // set once GOGC was lowered
	var limit softLimit
	watch := budget.Poll(20*time.Millisecond, func() bool {
		live, ok := budget.LiveHeap()
		if !ok {
			return true
		}
		if prev < 0 && live >= largeLoad {
			prev = debug.SetGCPercent(loadingGCPercent)
		}
		if live >= limitHeap {
			limit.set(int64(loadingLimitFactor * float64(live)))
		}
		return true
	})
	return func() {
		watch() // waits for the watcher: prev and limit are not written after it
		if prev >= 0 {
			debug.SetGCPercent(prev)
			prev = -1 // restored once
		}
		limit.restore()
	}
}

// collectHarderAfterLoading sets GOGC to rulesGCPercent (largeRulesGCPercent when the live
// heap is largeHeap or more) unless the user set GOGC, and returns what restores it (harmless
// to call twice). After a large load it also returns the free heap to the operating system
// (returnFreeMemory): loading leaves tens of megabytes of free spans that the runtime keeps
// mapped while the rules run, and the rules set the run's peak (issue 24, phase 6: 20,000
// files 272 → 260 MB for about 2% more time; nothing gained on a small run); from limitHeap
// live it sets the soft memory limit to rulesLimitFactor times the live heap.
func collectHarderAfterLoading() (restore func()) {
	if _, set := os.LookupEnv("GOGC"); set {
		return func() {}
	}
	pct := rulesGCPercent
	large := false
	if live, ok := budget.LiveHeap(); ok && live >= largeHeap {
		pct, large = largeRulesGCPercent, true
	}
	prev := debug.SetGCPercent(pct)
	if large {
		returnFreeMemory()
	}
	var limit softLimit
	if live, ok := budget.LiveHeap(); ok && live >= limitHeap {
		limit.set(int64(rulesLimitFactor * float64(live)))
	}
	return func() {
		limit.restore()
		debug.SetGCPercent(prev)
	}
}

// returnFreeMemory collects and returns the free heap to the operating system (a variable
// for tests).
var returnFreeMemory = debug.FreeOSMemory

// printFailures prints the rules that broke, with their stacks under --debug.
func (c *cli) printFailures(cfg *lintConfig, out *engine.Outcome) {
	for _, fl := range out.Failures {
		fmt.Fprintf(c.stderr, "%s: internal error in rule %s (%s): %s\n", progName, fl.Rule.ID, fl.Rule.Name, report.TerminalLines(fl.Err.Error()))
		if cfg.debug && fl.Stack != nil {
			_, _ = c.stderr.Write(fl.Stack)
		}
	}
}

// safeLoad turns a loader panic into an error: bad input must never crash the program.
func safeLoad(ctx context.Context, opts load.Options) (ws *checker.Workspace, err error) {
	defer func() {
		if v := recover(); v != nil {
			ws, err = nil, fmt.Errorf("internal error: load files: panic: %v", v)
		}
	}()
	return load.Load(ctx, opts)
}

// exitCode maps the outcome to the process exit code.
func exitCode(out *engine.Outcome, threshold checker.Severity) int {
	code := exitOK
	for i := range out.Findings {
		f := &out.Findings[i]
		if f.Internal {
			return exitError
		}
		if threshold != checker.SeverityNone && f.Severity >= threshold {
			code = exitFindings
		}
	}
	if out.InternalErrors > 0 {
		return exitError
	}
	return code
}

// sourceFunc returns the content of the real files of ws by the name findings use (a file
// whose content the loader released is read again: checker.File.Text; nil if it changed).
func sourceFunc(ws *checker.Workspace) func(string) []byte {
	files := make(map[string]*checker.File, len(ws.Files))
	for _, f := range ws.Files {
		if f.Parent == nil {
			files[f.Path] = f
		}
	}
	return func(name string) []byte {
		f := files[name]
		if f == nil {
			return nil
		}
		b, err := f.TextOnce()
		if err != nil {
			return nil
		}
		return b
	}
}

// printable replaces control characters of a file name, which could drive the terminal.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) {
			return '\uFFFD'
		}
		return r
	}, s)
}
