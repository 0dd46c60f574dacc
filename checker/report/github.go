package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// githubFormatter writes GitHub Actions workflow commands ("::error file=…,line=…::message"),
// which the runner turns into annotations on the pull request's changed files.
type githubFormatter struct{}

// Format writes one command per finding. Internal findings (a broken rule) are annotations
// too: they must not go unnoticed in a CI log.
func (githubFormatter) Format(w io.Writer, r *Result) error {
	var b strings.Builder
	for i := range r.Findings {
		f := &r.Findings[i]
		b.WriteString(githubCommand(f))
		b.WriteByte('\n')
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// githubCommand builds the workflow command of one finding. GitHub uses endColumn only when
// the annotation stays on one line, and counts it inclusively (the last character), unlike
// SARIF's exclusive endColumn.
func githubCommand(f *checker.Finding) string {
	var props []string
	add := func(k, v string) { props = append(props, k+"="+GitHubProperty(v)) }
	if f.Pos.Filename != "" {
		add("file", f.Pos.Filename)
	}
	if f.Pos.IsValid() {
		end := span(f.Pos, f.End)
		add("line", strconv.Itoa(f.Pos.Line))
		if f.Pos.Column > 0 {
			add("col", strconv.Itoa(f.Pos.Column))
		}
		if end.Line > f.Pos.Line {
			add("endLine", strconv.Itoa(end.Line))
		} else if end.Column > f.Pos.Column {
			add("endLine", strconv.Itoa(end.Line))
			add("endColumn", strconv.Itoa(end.Column-1))
		}
	}
	title := f.RuleID
	if f.RuleName != "" {
		title += " " + f.RuleName
	}
	add("title", title)
	msg := f.Message
	if !strings.Contains(msg, f.RuleID) {
		msg += " (" + title + ")"
	}
	for _, rel := range f.Related {
		msg += "\n" + rel.Pos.String() + ": " + rel.Message
	}
	for i, fix := range f.Fixes {
		if fix.Message != "" {
			msg += "\n" + fixLabel(f, i) + ": " + fix.Message
		}
	}
	return "::" + githubLevel(f.Severity) + " " + strings.Join(props, ",") + "::" + GitHubData(msg)
}

// githubLevel maps a severity to a workflow command; GitHub has no "info" but "notice".
func githubLevel(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return "error"
	case checker.SeverityWarning:
		return "warning"
	default:
		return "notice"
	}
}
