package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/ruledoc"
)

const rulesUsage = `Usage: kube-proxy-lint rules [--format text|json|markdown] [--policy DIR]

List every rule: ID, name, default severity, whether it runs by default, and title.

Flags:
`

// rules implements `kube-proxy-lint rules`.
func (c *cli) rules(args []string) int {
	const cmd = progName + " rules"
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.StringP("format", "f", "text", "output `FORMAT`: text, json or markdown")
	policies := fs.StringArray("policy", nil, policyFlagUsage)
	help := fs.BoolP("help", "h", false, "print this help and exit")
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if *help {
		fmt.Fprint(c.stdout, rulesUsage+flagUsages(fs))
		return exitOK
	}
	if fs.NArg() > 0 {
		return c.fail(usagef(cmd, "rules takes no arguments; run '%s explain %s' to read a rule's documentation", progName, fs.Arg(0)))
	}
	all, err := withPolicies(registry(), *policies, nil)
	if err != nil {
		return c.fail(err)
	}
	switch *format {
	case "text":
		tw := tabwriter.NewWriter(c.stdout, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tSEVERITY\tDEFAULT\tTITLE")
		for _, r := range all {
			on := "on"
			if r.Disabled {
				on = "off"
			}
			// User policies' titles come from Rego files, perhaps of the repository.
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Name, r.Severity, on, report.Terminal(r.Doc.Title))
		}
		err = tw.Flush()
	case "json":
		err = writeRulesJSON(c.stdout, all)
	case "markdown":
		_, err = io.WriteString(c.stdout, ruledoc.Table(all))
	default:
		return c.fail(usagef(cmd, "parse --format: unknown format %q (want text, json or markdown)", *format))
	}
	if err != nil {
		return c.fail(fmt.Errorf("write rules: %w", err))
	}
	return exitOK
}

// ruleJSON is the JSON form of a rule in `rules --format json`.
type ruleJSON struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	Title            string   `json:"title"`
	Severity         string   `json:"severity"`
	SeverityText     string   `json:"severityText,omitempty"`
	EnabledByDefault bool     `json:"enabledByDefault"`
	Since            string   `json:"since"`
	Kinds            []string `json:"kinds,omitempty"`
	URL              string   `json:"url,omitempty"`
	// Fixes are the kinds of fixes the rule offers, with their safety.
	Fixes []fixDocJSON `json:"fixes,omitempty"`
}

// fixDocJSON is a documented fix in `rules --format json`.
type fixDocJSON struct {
	Text      string         `json:"text"`
	Safety    checker.Safety `json:"safety"`
	Preferred bool           `json:"preferred"`
}

func writeRulesJSON(w io.Writer, all []*checker.Rule) error {
	doc := struct {
		ToolVersion string     `json:"toolVersion"`
		Rules       []ruleJSON `json:"rules"`
	}{ToolVersion: versionString(), Rules: []ruleJSON{}}
	for _, r := range all {
		rj := ruleJSON{
			ID: r.ID, Name: r.Name, Title: r.Doc.Title, Severity: r.Severity.String(),
			SeverityText: r.Doc.SeverityText, EnabledByDefault: !r.Disabled, Since: r.Doc.Since,
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

const explainUsage = `Usage: kube-proxy-lint explain [--format text|markdown] [--policy DIR] RULE...

Print the documentation of each RULE (an ID such as KP102 or a name such as mode-ipvs):
why it matters, how to fix it, and an example.

Flags:
`

// explain implements `kube-proxy-lint explain RULE...`.
func (c *cli) explain(args []string) int {
	const cmd = progName + " explain"
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	format := fs.StringP("format", "f", "text", "output `FORMAT`: text or markdown")
	policies := fs.StringArray("policy", nil, policyFlagUsage)
	help := fs.BoolP("help", "h", false, "print this help and exit")
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if *help {
		fmt.Fprint(c.stdout, explainUsage+flagUsages(fs))
		return exitOK
	}
	render := ruledoc.Text
	switch *format {
	case "text":
	case "markdown":
		render = ruledoc.Markdown
	default:
		return c.fail(usagef(cmd, "parse --format: unknown format %q (want text or markdown)", *format))
	}
	if fs.NArg() == 0 {
		return c.fail(usagef(cmd, "explain needs a rule ID or name, e.g. '%s explain KP102'", progName))
	}
	all, err := withPolicies(registry(), *policies, nil)
	if err != nil {
		return c.fail(err)
	}
	var found []*checker.Rule
	for _, name := range fs.Args() {
		r, err := engine.Find(all, name)
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
		if *format == "text" {
			out = report.TerminalLines(out)
		}
		fmt.Fprint(c.stdout, out)
	}
	return exitOK
}
