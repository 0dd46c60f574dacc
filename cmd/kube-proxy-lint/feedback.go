package main

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
)

// terminalFormats are the outputs read by people in a terminal or a CI log, whose file names
// are relative to the current directory; the others keep names relative to the repository.
var terminalFormats = map[string]bool{"text": true, "github": true, "checkstyle": true}

// displayName returns the renaming of terminalFormats: a name relative to root becomes
// relative to the current directory, with prefix prepended. Standard input keeps its name.
func displayName(root, prefix, stdinName string) func(string) string {
	cwd, err := os.Getwd()
	return func(name string) string {
		if name == "-" || name == "<stdin>" || (stdinName != "" && name == stdinName) || err != nil {
			return name
		}
		abs := name
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(root, filepath.FromSlash(name))
		}
		// Relative to the current directory, unless climbing out of it is longer than the
		// absolute path (a tree far away reads better as /abs/path than ../../../../abs).
		rel := filepath.ToSlash(abs)
		if r, err := filepath.Rel(cwd, abs); err == nil && (!strings.HasPrefix(r, "..") || len(r) < len(abs)) {
			rel = filepath.ToSlash(r)
		}
		if prefix != "" {
			return path.Join(prefix, rel)
		}
		return rel
	}
}

// actionsPrefix is the default --path-prefix of the github format: in GitHub Actions,
// annotations name files relative to the repository root (GITHUB_WORKSPACE), so a run in a
// subdirectory prefixes the names with that directory. "" elsewhere.
func actionsPrefix() string {
	ws := os.Getenv("GITHUB_WORKSPACE")
	if os.Getenv("GITHUB_ACTIONS") != "true" || ws == "" {
		return ""
	}
	cwd, err := os.Getwd()
	if err != nil {
		return ""
	}
	rel, err := filepath.Rel(ws, cwd)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// runSummary is the stderr line of a run: "0 findings in 12 files (2 kube-proxy instances) ·
// target 1.40 (default)", with the severities when there are findings and what suppressions,
// exclusions and the baseline hid (", 2 suppressed, 5 in the baseline").
func runSummary(ws *checker.Workspace, res *report.Result) string {
	files := 0
	for _, f := range ws.Files {
		if f.Parent == nil {
			files++
		}
	}
	counts := map[checker.Severity]int{}
	n := 0
	for i := range res.Findings {
		if !res.Findings[i].Internal {
			counts[res.Findings[i].Severity]++
			n++
		}
	}
	var b strings.Builder
	b.WriteString(pluralOf(n, "finding", "findings"))
	var parts []string
	for _, s := range []checker.Severity{checker.SeverityError, checker.SeverityWarning, checker.SeverityInfo} {
		if counts[s] > 0 {
			name := s.String()
			if name != "info" {
				name = pluralOf(counts[s], name, name+"s")
			} else {
				name = fmt.Sprintf("%d info", counts[s])
			}
			parts = append(parts, name)
		}
	}
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	fmt.Fprintf(&b, " in %s (%s)", pluralOf(files, "file", "files"), pluralOf(len(ws.Instances), "kube-proxy instance", "kube-proxy instances"))
	b.WriteString(report.HiddenCounts(res))
	b.WriteString(" · " + report.TargetsLine(ws.ScopeTargets(), ws.Target))
	return b.String()
}

func pluralOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// tracer collects what the loader left out, for --verbose; the loader calls it from several
// goroutines.
type tracer struct {
	mu      sync.Mutex
	skipped []string
}

func (t *tracer) trace(name, reason string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.skipped = append(t.skipped, printable(name)+": "+reason)
}

// printTrace prints --verbose: every file read and as what, every file left out and why, the
// kube-proxy instances found and the target.
func (c *cli) printTrace(t *tracer, ws *checker.Workspace) {
	var lines []string
	for _, f := range ws.Files {
		if f.Parent == nil {
			lines = append(lines, "read "+printable(f.Path)+" as "+readAs(ws, f))
			if f.Reason != "" {
				lines[len(lines)-1] += " (" + printable(f.Reason) + ")"
			}
		}
	}
	for _, f := range ws.Rendered {
		// A chart's rendered output, named after its template (the variant in the reason).
		name := ws.MapPosition(checker.Position{Filename: f.Path, Line: 1, Column: 1}).Filename
		lines = append(lines, "read "+printable(name)+" as "+readAs(ws, f)+" ("+printable(f.Reason)+")")
	}
	t.mu.Lock()
	skipped := append([]string(nil), t.skipped...)
	t.mu.Unlock()
	sort.Strings(skipped)
	for _, s := range skipped {
		lines = append(lines, "skipped "+s)
	}
	for _, in := range ws.Instances {
		// Each kube-proxy at its own cluster's target, named as findings and the summary
		// name clusters.
		t := ws.InstanceTarget(in)
		m := in.Mode(t.Version)
		who := "kube-proxy instance in cluster " + printable(t.Scope) + ": " + printable(in.Label)
		line := who + ": mode " + m.Value + " at " + t.Version.String()
		if m.Value == "" {
			line = who + ": mode unknown at " + t.Version.String()
		}
		if p, _, ok := m.Where(); ok {
			p = ws.MapPosition(p)
			line += " (" + m.Origin.String() + " at " + printable(p.String()) + ")"
		} else {
			line += " (" + m.Origin.String() + ")"
		}
		lines = append(lines, line)
	}
	lines = append(lines, report.TargetsText(ws.ScopeTargets(), ws.Target))
	for _, l := range lines {
		fmt.Fprintf(c.stderr, "%s: %s\n", progName, l)
	}
}

// readAs describes how a file was read: "YAML: ConfigMap kube-system/kube-proxy,
// KubeProxyConfiguration in data.config.conf", "text: kube-proxy command line".
func readAs(ws *checker.Workspace, f *checker.File) string {
	var what []string
	for _, d := range f.Docs {
		what = append(what, docLabel(d))
		for _, e := range d.Embedded {
			what = append(what, docLabel(e)+" in "+e.ParentPath.String())
		}
	}
	for _, in := range ws.Instances {
		if in.Kind == checker.InstanceCommand && in.Source != nil && in.Source.Outer() == f {
			what = append(what, "kube-proxy command line at line "+fmt.Sprint(in.Program.Line))
		}
		if in.Installer != nil && in.Installer.File == f && in.Installer.Doc == nil {
			what = append(what, in.Installer.Name+" settings")
		}
	}
	kind := "text"
	if f.Format == checker.FormatYAML {
		kind = "YAML"
	}
	if f.Templated {
		kind += " template"
	}
	if len(what) == 0 {
		return kind
	}
	if len(what) > 8 {
		what = append(what[:8], fmt.Sprintf("%d more", len(what)-8))
	}
	return kind + ": " + printable(strings.Join(what, ", "))
}

func docLabel(d *checker.Document) string {
	if d.Kind == "" {
		return "document without a kind"
	}
	s := d.Kind
	switch {
	case d.Namespace != "" && d.Name != "":
		s += " " + d.Namespace + "/" + d.Name
	case d.Name != "":
		s += " " + d.Name
	}
	return s
}
