package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/fix"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/readiness"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
)

// fixFlags are --fix, --unsafe-fixes and --diff.
type fixFlags struct {
	fix, unsafe, diff bool
}

func (f *fixFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.fix, "fix", false, "apply the safe fixes to the files (re-linted before they are written), then report the findings left")
	fs.BoolVar(&f.unsafe, "unsafe-fixes", false, "with --fix or --diff, apply the unsafe fixes too: they change the proxy mode, NodePort reach or alerts")
	fs.BoolVar(&f.diff, "diff", false, "print a unified diff of what --fix would change and write nothing; exit 1 when there is a diff")
}

// active reports whether the run fixes (or shows the fixes as a diff).
func (f fixFlags) active() bool { return f.fix || f.diff }

// validate rejects combinations that make no sense, before anything is read.
func (f fixFlags) validate(lf *lintFlags) error {
	switch {
	case f.unsafe && !f.active():
		return usagef(progName, "parse --unsafe-fixes: it needs --fix or --diff")
	case f.active() && lf.writeBaseline != "":
		return usagef(progName, "parse --write-baseline: it cannot be combined with --fix or --diff")
	}
	if f.diff {
		// The diff goes to stdout, so no report may.
		for _, v := range lf.formats {
			if _, file, ok := strings.Cut(v, "="); !ok || file == "-" {
				if lf.output == "" || lf.output == "-" {
					return usagef(progName, "parse --diff: the diff is printed on stdout; send the %s output to a file with --format %s=FILE", v, v)
				}
			}
		}
	}
	return nil
}

// fixRun is the state of a --fix or --diff run.
type fixRun struct {
	c     *cli
	cfg   *lintConfig
	proc  engine.Processing
	stdin []byte
	// ws and root are the workspace of the first lint and the root its names are relative to.
	ws   *checker.Workspace
	root string
}

// runFix fixes (or diffs) after the first lint of a run: ws and out are that lint, with the
// processing proc (whose change set, if any, selected the reported findings).
func (c *cli) runFix(ctx context.Context, cfg *lintConfig, ws *checker.Workspace, root string, proc engine.Processing, out *engine.Outcome, formatters []report.Formatter) int {
	write := cfg.fixes.fix && !cfg.fixes.diff
	if write {
		refused := ""
		switch {
		case cfg.git.rev != "":
			refused = "--fix does not write the files of a Git revision (--rev)"
		case slices.Contains(cfg.paths, "-"):
			refused = "--fix does not write standard input"
		}
		if refused != "" {
			fmt.Fprintf(c.stderr, "%s: %s: printing the diff instead\n", progName, refused)
			write = false
		}
	}
	fr := &fixRun{c: c, cfg: cfg, proc: proc, ws: ws, root: root}
	fr.proc.Changes = nil
	if slices.Contains(cfg.paths, "-") {
		name := cfg.stdinName
		if name == "" {
			name = "<stdin>"
		}
		for _, f := range ws.Files {
			if f.Parent == nil && f.Path == name {
				fr.stdin = f.Content
			}
		}
	}
	// Fixes start from every finding of the files; the run's filters (--new-from-rev,
	// --only-files) choose whose fixes apply.
	first := out
	if proc.Changes != nil {
		var err error
		if first, err = engine.RunWith(ctx, ws, cfg.rules, fr.proc); err != nil {
			return c.fail(err)
		}
	}
	if first.InternalErrors > 0 {
		c.printFailures(cfg, first)
		return c.fail(errors.New("fix: not attempted: a rule broke, so the fixed files could not be checked"))
	}
	reported := map[string]int{}
	for i := range out.Findings {
		reported[fixKey(&out.Findings[i])]++
	}
	opts := fix.Options{
		Unsafe:   cfg.fixes.unsafe,
		Eligible: func(f *checker.Finding) bool { return reported[fixKey(f)] > 0 },
		Parse:    load.Reparse,
	}
	if cfg.git.rev == "" {
		var only fileSet
		if cfg.git.onlyFiles {
			only = onlyFilesOf(ws.Root, cfg.paths)
		}
		opts.Editable = func(name string) error {
			if slices.Contains(cfg.paths, "-") && name == fr.stdinName() {
				if write {
					return errors.New("standard input is not a file")
				}
				return nil
			}
			if only != nil && !only[name] {
				// A pre-commit hook must not touch what is not staged.
				return fmt.Errorf("%s is not among the files named with --only-files", name)
			}
			return fix.Editable(ws.Root, name)
		}
	}
	res, err := fix.Run(ctx, fr.lint(ws, first), fr.relint, opts)
	if err != nil {
		return c.fail(err)
	}
	if !write {
		return fr.finishDiff(ctx, res, out, formatters)
	}
	return fr.finishFix(ctx, res, out, proc.Changes != nil, formatters)
}

func (fr *fixRun) stdinName() string {
	if fr.cfg.stdinName != "" {
		return fr.cfg.stdinName
	}
	return "<stdin>"
}

// fixKey identifies a finding for the fixer's eligibility: rule, file and fingerprint.
func fixKey(f *checker.Finding) string {
	return f.RuleID + "\x00" + f.Pos.Filename + "\x00" + f.Fingerprint()
}

// lintData is what the fixer keeps of each lint: the workspace and the outcome.
type lintData struct {
	ws  *checker.Workspace
	out *engine.Outcome
}

// lint wraps a lint for the fixer.
func (fr *fixRun) lint(ws *checker.Workspace, out *engine.Outcome) *fix.Lint {
	files := make(map[string]*checker.File, len(ws.Files))
	for _, f := range ws.Files {
		if f.Parent == nil {
			files[f.Path] = f
		}
	}
	return &fix.Lint{
		Findings: out.Findings,
		Problems: ws.Problems,
		// A file whose content the loader released is read again (checker.File.Text): one
		// that changed since is not a file the fixes can edit.
		Content: func(name string) ([]byte, bool) {
			f := files[name]
			if f == nil {
				return nil, false
			}
			b, err := f.TextOnce()
			return b, err == nil
		},
		Data: &lintData{ws, out},
	}
}

// relint loads the files as the run did, with overlay in place of their content, and lints
// them with the run's rules and processing (all findings, not only changed lines).
func (fr *fixRun) relint(ctx context.Context, overlay map[string][]byte) (*fix.Lint, error) {
	cfg := *fr.cfg
	cfg.overlay = overlay
	c := *fr.c
	c.stdin = bytes.NewReader(fr.stdin)
	ws, _, err := c.loadRun(ctx, &cfg, nil)
	if err != nil {
		return nil, err
	}
	out, err := engine.RunWith(ctx, ws, cfg.rules, fr.proc)
	if err != nil {
		return nil, err
	}
	if out.InternalErrors > 0 {
		return nil, fmt.Errorf("rule %s broke on the fixed files: %w", out.Failures[0].Rule.ID, out.Failures[0].Err)
	}
	return fr.lint(ws, out), nil
}

// finishDiff prints the diff of what --fix would do, the summary, and the reports that go to
// files (of the findings as they are); the exit code is 1 when there is a diff.
func (fr *fixRun) finishDiff(ctx context.Context, res *fix.Result, out *engine.Outcome, formatters []report.Formatter) int {
	c, cfg := fr.c, fr.cfg
	diff := fix.Diff(res.Files)
	if isTerminal(c.stdout) {
		diff = terminalSafe(diff)
	}
	if _, err := c.stdout.Write(diff); err != nil {
		return c.fail(fmt.Errorf("write diff: %w", err))
	}
	fr.summary(res, false)
	code := exitOK
	if res.Changed() {
		code = exitFindings
	}
	c.printNotes(cfg, out)
	result, err := fr.result(ctx, fr.ws, fr.root, fr.proc, out)
	if err != nil {
		return c.fail(err)
	}
	// stdout holds the diff.
	if !c.writeOutputs(ctx, cfg, fr.root, result, formatters, true) {
		code = exitError
	}
	return code
}

// finishFix writes the fixed files, prints the summary and reports the findings left, as a
// run without --fix would report them now.
func (fr *fixRun) finishFix(ctx context.Context, res *fix.Result, first *engine.Outcome, filtered bool, formatters []report.Formatter) int {
	c, cfg := fr.c, fr.cfg
	written := 0
	var failed []string
	for _, fc := range res.Files {
		if err := ctx.Err(); err != nil {
			return c.fail(fmt.Errorf("fix: interrupted after writing %d of %d files", written, len(res.Files)))
		}
		if err := fix.WriteFile(fr.ws.Root, fc.Name, fc.Old, fc.New); err != nil {
			failed = append(failed, fc.Name)
			fmt.Fprintf(c.stderr, "%s: fix: %s\n", progName, terminalSafe([]byte(err.Error())))
			continue
		}
		written++
	}
	fr.summary(res, true)
	// Report what is left as a run without --fix would now. Without changes, that is the
	// first lint; when every file was written and no change set filters the report, it is
	// the fixer's last lint, which saw exactly what is on disk now; else lint again.
	ws, root, proc, out := fr.ws, fr.root, fr.proc, first
	if d, ok := res.Final.Data.(*lintData); ok && res.Changed() && !filtered && len(failed) == 0 {
		ws, out = d.ws, d.out
	} else if res.Changed() {
		var err error
		if ws, root, err = c.loadRun(ctx, cfg, nil); err != nil {
			return c.fail(err)
		}
		if proc.Changes, err = c.changeSet(ctx, cfg, root); err != nil {
			return c.fail(err)
		}
		if out, err = engine.RunWith(ctx, ws, cfg.rules, proc); err != nil {
			return c.fail(err)
		}
	}
	c.printFailures(cfg, out)
	code := exitCode(out, cfg.threshold)
	c.printNotes(cfg, out)
	result, err := fr.result(ctx, ws, root, proc, out)
	if err != nil {
		return c.fail(err)
	}
	if !c.writeOutputs(ctx, cfg, root, result, formatters, false) {
		code = exitError
	}
	if len(failed) > 0 {
		return exitError
	}
	return code
}

// result is the report of a lint, with the readiness report when an output shows it.
func (fr *fixRun) result(ctx context.Context, ws *checker.Workspace, root string, proc engine.Processing, out *engine.Outcome) (*report.Result, error) {
	var rd *readiness.Report
	if wantsReport(fr.cfg.outputs) {
		var err error
		if rd, err = buildReadiness(ctx, ws, fr.cfg.rules, proc, out); err != nil {
			return nil, err
		}
	}
	return &report.Result{
		Readiness:   rd,
		Findings:    out.Findings,
		Rules:       fr.cfg.rules,
		Target:      ws.Target,
		Targets:     ws.ScopeTargets(),
		Problems:    ws.Problems,
		ToolVersion: versionString(),
		SourceRoot:  root,
		Source:      sourceFunc(ws),
		Suppressed:  out.Suppressed,
		Notes:       out.Notes,
		Baselined:   out.Baselined,
	}, nil
}

// summary prints what the fixes did (or would do) on stderr: the files changed, the fixes by
// rule, the fixes not applied with the reason, and how many more --unsafe-fixes would apply.
func (fr *fixRun) summary(res *fix.Result, wrote bool) {
	if fr.cfg.quiet {
		return
	}
	w := fr.c.stderr
	verb := "would fix"
	if wrote {
		verb = "fixed"
	}
	switch {
	case len(res.Applied) == 0 && len(res.Skipped)+len(res.Unsafe) == 0:
		fmt.Fprintf(w, "%s: nothing to fix\n", progName)
	case len(res.Applied) == 0 && wrote:
		fmt.Fprintf(w, "%s: no fix applied\n", progName)
	case len(res.Applied) == 0:
		fmt.Fprintf(w, "%s: no fix would be applied\n", progName)
	default:
		fmt.Fprintf(w, "%s: %s %s in %s: %s\n", progName, verb, plural(len(res.Applied), "finding"), plural(len(res.Files), "file"), byRule(res.Applied))
	}
	if n := len(res.FollowUps); n > 0 {
		// A fix is verified in its own cluster; what it changes outside (a shared alert rule)
		// is for the user to follow up, not a reason to undo it.
		fmt.Fprintf(w, "%s: %s to follow up (advice the fixes uncovered, or consequences outside the fixed clusters):\n", progName, plural(n, "finding"))
		for _, f := range res.FollowUps {
			where := "shared file"
			if f.Cluster != "" {
				where = "cluster " + f.Cluster
			}
			line := fmt.Sprintf("%s: %s (%s), %s: %s", f.Pos, f.RuleID, f.RuleName, where, f.Message)
			fmt.Fprintf(w, "  %s\n", terminalSafe([]byte(line)))
		}
	}
	if n := len(res.Skipped); n > 0 {
		fmt.Fprintf(w, "%s: %s not applied:\n", progName, plural(n, "fix"))
		for _, s := range res.Skipped {
			line := fmt.Sprintf("%s: %s (%s): %s: %s", s.Finding.Pos, s.Finding.RuleID, s.Finding.RuleName, s.Fix.Message, s.Detail)
			fmt.Fprintf(w, "  %s\n", terminalSafe([]byte(line)))
		}
	}
	if n := len(res.Unsafe); n > 0 {
		ids := map[string]int{}
		for i := range res.Unsafe {
			ids[res.Unsafe[i].RuleID]++
		}
		var parts []string
		for id, k := range ids {
			parts = append(parts, fmt.Sprintf("%s (%d)", id, k))
		}
		sort.Strings(parts)
		how := "--fix --unsafe-fixes applies them (review them first with --diff --unsafe-fixes)"
		if fr.cfg.fixes.diff {
			how = "--diff --unsafe-fixes shows them"
		}
		what := fmt.Sprintf("%d more findings have", n)
		if n == 1 {
			what = "1 more finding has"
		}
		fmt.Fprintf(w, "%s: %s an unsafe fix, which changes behaviour: %s; %s\n", progName, what, strings.Join(parts, ", "), how)
	}
}

// byRule formats applied fixes per rule: "KP101 (1), KP201 (2)".
func byRule(as []fix.Applied) string {
	n := map[string]int{}
	for _, a := range as {
		n[a.Finding.RuleID]++
	}
	ids := make([]string, 0, len(n))
	for id := range n {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprintf("%s (%d)", id, n[id])
	}
	return strings.Join(parts, ", ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	if strings.HasSuffix(word, "x") {
		return fmt.Sprintf("%d %ses", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// terminalSafe replaces control characters other than tab and line ends with "\xNN", so that
// file content or names from the repository cannot drive the terminal.
func terminalSafe(b []byte) []byte {
	if !bytes.ContainsFunc(b, isUnsafeControl) {
		return b
	}
	var out bytes.Buffer
	for _, r := range string(b) {
		if isUnsafeControl(r) {
			fmt.Fprintf(&out, `\x%02x`, r)
			continue
		}
		out.WriteRune(r)
	}
	return out.Bytes()
}

func isUnsafeControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n' && r != '\r') || r == 0x7f || (r >= 0x80 && r < 0xa0)
}
