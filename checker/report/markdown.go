package report

import (
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// maxMarkdownFindings bounds the findings listed one by one: GitHub truncates a job summary
// at 1 MiB and a comment at 65,536 characters, and nobody reads thousands of lines there.
const maxMarkdownFindings = 200

// markdownFormatter writes a summary for a pull-request comment or $GITHUB_STEP_SUMMARY:
// counts by rule, then the findings grouped by file, linked to the lines when
// Options.LinkBase is set.
type markdownFormatter struct{ linkBase string }

// Format writes the summary. Unlike text, a clean run still writes a line, so a job summary
// says that the check ran and passed.
func (m markdownFormatter) Format(w io.Writer, r *Result) error {
	var b strings.Builder
	b.WriteString("## " + ToolName + "\n\n")
	b.WriteString(markdownHeadline(r) + "\n")
	if ts := summaryTargets(r); len(ts) > 1 {
		b.WriteString("\n| scopes | target | source |\n| --- | --- | --- |\n")
		for _, g := range ts {
			fmt.Fprintf(&b, "| %s | %s | %s |\n", Markdown(strings.Join(g.scopes, ", ")), g.Version, Markdown(targetSource(g.Target)))
		}
	}
	if len(r.Findings) > 0 {
		m.byRule(&b, r)
		m.byFile(&b, r)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func markdownHeadline(r *Result) string {
	var counts [checker.SeverityError + 1]int
	for i := range r.Findings {
		if s := r.Findings[i].Severity; s >= checker.SeverityNone && s <= checker.SeverityError {
			counts[s]++
		}
	}
	var s string
	if len(r.Findings) == 0 {
		s = "**No findings.**"
	} else {
		s = "**" + plural(len(r.Findings), "finding", "findings") + "**"
		var parts []string
		for _, sev := range []checker.Severity{checker.SeverityError, checker.SeverityWarning, checker.SeverityInfo} {
			if counts[sev] > 0 {
				parts = append(parts, plural(counts[sev], sev.String(), pluralSeverity(sev.String())))
			}
		}
		if len(parts) > 0 {
			s += " (" + strings.Join(parts, ", ") + ")"
		}
	}
	switch ts := summaryTargets(r); {
	case len(ts) == 1:
		s += " · target " + ts[0].Version.String()
		if src := targetSource(ts[0].Target); src != "" {
			s += " (" + Markdown(src) + ")"
		}
	case len(ts) > 1:
		s += " · targets by scope:"
	}
	return s
}

// byRule writes the table of counts per rule, most frequent first.
func (m markdownFormatter) byRule(b *strings.Builder, r *Result) {
	rules := newRuleTable(r)
	type row struct {
		id     string
		counts [checker.SeverityError + 1]int
		total  int
	}
	rows := map[string]*row{}
	for i := range r.Findings {
		f := &r.Findings[i]
		rw := rows[f.RuleID]
		if rw == nil {
			rw = &row{id: f.RuleID}
			rows[f.RuleID] = rw
		}
		if f.Severity >= checker.SeverityNone && f.Severity <= checker.SeverityError {
			rw.counts[f.Severity]++
		}
		rw.total++
	}
	list := make([]*row, 0, len(rows))
	for _, rw := range rows {
		list = append(list, rw)
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].total != list[j].total {
			return list[i].total > list[j].total
		}
		return list[i].id < list[j].id
	})
	b.WriteString("\n| rule | name | findings | errors | warnings | info |\n| --- | --- | ---: | ---: | ---: | ---: |\n")
	for _, rw := range list {
		id, name := Markdown(rw.id), ""
		if i, ok := rules.index[rw.id]; ok {
			rule := rules.rules[i]
			name = "`" + rule.Name + "`"
			if rule.Doc.Title != "" && rule.URL() != "" {
				id = "[" + id + "](" + MarkdownURL(rule.URL()) + ")"
			}
		}
		fmt.Fprintf(b, "| %s | %s | %d | %d | %d | %d |\n", id, name, rw.total,
			rw.counts[checker.SeverityError], rw.counts[checker.SeverityWarning], rw.counts[checker.SeverityInfo])
	}
}

// byFile lists the findings under a heading per file, in report order.
func (m markdownFormatter) byFile(b *strings.Builder, r *Result) {
	rules := newRuleTable(r)
	last := "\x00"
	for i := range r.Findings {
		if i == maxMarkdownFindings {
			n := len(r.Findings) - i
			word := "findings"
			if n == 1 {
				word = "finding"
			}
			fmt.Fprintf(b, "\n… and %d more %s; see the full report (text, JSON or SARIF output).\n", n, word)
			break
		}
		f := &r.Findings[i]
		if f.Pos.Filename != last {
			last = f.Pos.Filename
			name := f.Pos.Filename
			if name == "" {
				name = "(no file)"
			}
			b.WriteString("\n### " + Markdown(name) + "\n\n")
		}
		b.WriteString("- **" + f.Severity.String() + "** ")
		if f.Pos.IsValid() {
			b.WriteString(m.link(f.Pos, f.End, fmt.Sprintf("line %d", f.Pos.Line)) + ": ")
		}
		b.WriteString(Markdown(f.Message))
		ruleText := Markdown(f.RuleID)
		if f.RuleName != "" {
			ruleText += " " + Markdown(f.RuleName)
		}
		if j, ok := rules.index[f.RuleID]; ok && rules.rules[j].Doc.Title != "" && rules.rules[j].URL() != "" {
			ruleText = "[" + ruleText + "](" + MarkdownURL(rules.rules[j].URL()) + ")"
		}
		b.WriteString(" (" + ruleText + ")\n")
		for _, rel := range f.Related {
			b.WriteString("  - " + m.link(rel.Pos, rel.End, Markdown(rel.Pos.String())) + ": " + Markdown(rel.Message) + "\n")
		}
		for j, fix := range f.Fixes {
			if fix.Message != "" {
				b.WriteString("  - " + fixLabel(f, j) + ": " + Markdown(fix.Message) + "\n")
			}
		}
	}
}

// link renders text as a link to the lines of a span when a link base is known.
func (m markdownFormatter) link(pos, end checker.Position, text string) string {
	if m.linkBase == "" || pos.Filename == "" || !pos.IsValid() {
		return text
	}
	anchor := "#L" + strconv.Itoa(pos.Line)
	if e := span(pos, end); e.Line > pos.Line {
		anchor += "-L" + strconv.Itoa(e.Line)
	}
	return "[" + text + "](" + MarkdownURL(m.linkBase+escapeURIPath(pos.Filename, false)+anchor) + ")"
}
