package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/ruledoc"
)

const rulesUsage = `Usage: kube-proxy-lint rules [--format text|json|markdown] [flags]

List every rule: ID, name, severity at the target, whether it runs, and title. The
configuration file (.kube-proxy-lint.yaml, found from the current directory up to the
repository root) applies as in a lint run: its policy-dirs add rules, enable and disable
decide which run, severity overrides a rule's severity. Severities are shown at
--target-version, else the file's target-version, else DEFAULT; 'kube-proxy-lint config
print' shows the target a lint run detects from the repository. --format markdown prints
the documentation table (default severities).

Flags:
`

// rulesFlags are the flags of `rules`.
type rulesFlags struct {
	setup  setupFlags
	format string
	help   bool
}

func newRulesFlagSet(f *rulesFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet(progName+" rules", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringVarP(&f.format, "format", "f", "text", "output `FORMAT`: text, json or markdown")
	f.setup.register(fs, true, true)
	fs.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	return fs
}

// rules implements `kube-proxy-lint rules`.
func (c *cli) rules(args []string) int {
	const cmd = progName + " rules"
	var f rulesFlags
	fs := newRulesFlagSet(&f)
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if f.help {
		fmt.Fprint(c.stdout, strings.Replace(rulesUsage, "DEFAULT", checker.DefaultTarget.String(), 1)+flagUsages(fs))
		return exitOK
	}
	if fs.NArg() > 0 {
		return c.fail(usagef(cmd, "rules takes no arguments; run '%s explain %s' to read a rule's documentation", progName, fs.Arg(0)))
	}
	switch f.format {
	case "text", "json", "markdown":
	default:
		return c.fail(usagef(cmd, "parse --format: unknown format %q (want text, json or markdown)", f.format))
	}
	st, err := resolveSetup(&f.setup, ".", cmd)
	if err != nil {
		return c.fail(err)
	}
	target, source := checker.DefaultTarget, "default; a lint run detects the target from the repository, see config print"
	if st.target != nil {
		target, source = *st.target, st.targetSource
	}
	sev := st.severities(target)
	switch f.format {
	case "text":
		tw := tabwriter.NewWriter(c.stdout, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSEVERITY\tENABLED\tTITLE")
		on := 0
		for _, r := range st.all {
			enabled := "no"
			if st.enabled[r.ID] {
				enabled = "yes"
				on++
			}
			// User policies' titles come from Rego files, perhaps of the repository.
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, sev[r.ID], enabled, report.Terminal(r.Doc.Title))
		}
		err = tw.Flush()
		if err == nil {
			_, err = fmt.Fprintf(c.stdout, "\n%d rules, %d enabled · severities at target %s (%s)\n", len(st.all), on, target, source)
		}
	case "json":
		err = writeRulesJSON(c.stdout, st, target, source, sev)
	case "markdown":
		_, err = io.WriteString(c.stdout, ruledoc.Table(st.all))
	}
	if err != nil {
		return c.fail(fmt.Errorf("write rules: %w", err))
	}
	return exitOK
}

// ruleJSON is the JSON form of a rule in `rules --format json`.
type ruleJSON struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Title        string `json:"title"`
	Severity     string `json:"severity"`
	SeverityText string `json:"severityText,omitempty"`
	// SeverityAtTarget is the severity at the resolved target, with configured overrides.
	SeverityAtTarget string `json:"severityAtTarget"`
	EnabledByDefault bool   `json:"enabledByDefault"`
	// Enabled says whether the rule runs with the configuration file and flags.
	Enabled bool     `json:"enabled"`
	Since   string   `json:"since"`
	Kinds   []string `json:"kinds,omitempty"`
	URL     string   `json:"url,omitempty"`
	// Fixes are the kinds of fixes the rule offers, with their safety.
	Fixes []fixDocJSON `json:"fixes,omitempty"`
}

// fixDocJSON is a documented fix in `rules --format json`.
type fixDocJSON struct {
	Text      string         `json:"text"`
	Safety    checker.Safety `json:"safety"`
	Preferred bool           `json:"preferred"`
}

func writeRulesJSON(w io.Writer, st *setup, target checker.Version, source string, sev map[string]checker.Severity) error {
	type targetJSON struct {
		Version string `json:"version"`
		Source  string `json:"source"`
	}
	doc := struct {
		ToolVersion string     `json:"toolVersion"`
		Target      targetJSON `json:"target"`
		Rules       []ruleJSON `json:"rules"`
	}{ToolVersion: versionString(), Target: targetJSON{target.String(), source}, Rules: []ruleJSON{}}
	for _, r := range st.all {
		rj := ruleJSON{
			ID: r.ID, Name: r.Name, Title: r.Doc.Title, Severity: r.Severity.String(),
			SeverityText: r.Doc.SeverityText, SeverityAtTarget: sev[r.ID].String(),
			EnabledByDefault: !r.Disabled, Enabled: st.enabled[r.ID], Since: r.Doc.Since,
			Kinds: r.Kinds, URL: r.URL(),
		}
		for _, fd := range r.Doc.Fixes {
			rj.Fixes = append(rj.Fixes, fixDocJSON{Text: fd.Text, Safety: fd.Safety, Preferred: fd.Preferred})
		}
		doc.Rules = append(doc.Rules, rj)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}

const explainUsage = `Usage: kube-proxy-lint explain [--format text|markdown] [flags] RULE...

Print the documentation of each RULE (an ID such as KP102 or a name such as mode-ipvs):
why it matters, how to fix it, and an example. The rules of the configuration file's
policy-dirs and of --policy are known too.

Flags:
`

// explainFlags are the flags of `explain`.
type explainFlags struct {
	setup  setupFlags
	format string
	help   bool
}

func newExplainFlagSet(f *explainFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet(progName+" explain", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringVarP(&f.format, "format", "f", "text", "output `FORMAT`: text or markdown")
	f.setup.register(fs, false, false)
	fs.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	return fs
}

// explain implements `kube-proxy-lint explain RULE...`.
func (c *cli) explain(args []string) int {
	const cmd = progName + " explain"
	var f explainFlags
	fs := newExplainFlagSet(&f)
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if f.help {
		fmt.Fprint(c.stdout, explainUsage+flagUsages(fs))
		return exitOK
	}
	render := ruledoc.Text
	switch f.format {
	case "text":
	case "markdown":
		render = ruledoc.Markdown
	default:
		return c.fail(usagef(cmd, "parse --format: unknown format %q (want text or markdown)", f.format))
	}
	if fs.NArg() == 0 {
		return c.fail(usagef(cmd, "explain needs a rule ID or name, e.g. '%s explain KP102'", progName))
	}
	st, err := resolveSetup(&f.setup, ".", cmd)
	if err != nil {
		return c.fail(err)
	}
	var found []*checker.Rule
	for _, name := range fs.Args() {
		r, err := engine.Find(st.all, name)
		if err != nil {
			fmt.Fprintf(c.stderr, "%s: %s\nRun '%s rules' to list the rules.\n", progName, report.Terminal(err.Error()), progName)
			return exitError
		}
		found = append(found, r)
	}
	for i, r := range found {
		if i > 0 {
			fmt.Fprintln(c.stdout)
		}
		out := render(r)
		if f.format == "text" {
			out = report.TerminalLines(out)
		}
		fmt.Fprint(c.stdout, out)
	}
	return exitOK
}
