package report

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/readiness"
)

// maxReadinessMarkdown bounds the markdown report: GitHub accepts 65,536 characters in a
// pull-request comment and 1 MiB in a job summary. The overview always fits; scope sections
// follow while they fit, and a last line says what was left out.
const maxReadinessMarkdown = 65000

// maxItemsPerGroup bounds the blockers and the advisories listed per category of a scope.
const maxItemsPerGroup = 15

// errNoReadiness is returned by the report-* formats when the caller built no model.
var errNoReadiness = errors.New("no readiness report was built for this run")

// readinessMarkdown writes the readiness report for a pull-request comment or
// $GITHUB_STEP_SUMMARY.
type readinessMarkdown struct{ linkBase string }

// Format writes the report.
func (m readinessMarkdown) Format(w io.Writer, r *Result) error {
	rd := r.Readiness
	if rd == nil {
		return errNoReadiness
	}
	var b strings.Builder
	b.WriteString("## kube-proxy migration readiness\n\n")
	b.WriteString(mdTotals(rd))
	m.overview(&b, rd)
	const footerRoom = 400
	for i := range rd.Scopes {
		sec := m.scope(&rd.Scopes[i], maxItemsPerGroup)
		if b.Len()+len(sec)+footerRoom > maxReadinessMarkdown {
			sec = m.scope(&rd.Scopes[i], 3)
		}
		if b.Len()+len(sec)+footerRoom > maxReadinessMarkdown {
			n := len(rd.Scopes) - i
			fmt.Fprintf(&b, "\n_%s not shown: the report is cut at %d characters to fit a GitHub comment; `--format report-html` or `report-json` has everything._\n",
				plural(n, "more scope is", "more scopes are"), maxReadinessMarkdown)
			break
		}
		b.WriteString(sec)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// mdTotals is the line of repository totals.
func mdTotals(rd *readiness.Report) string {
	t := rd.Totals
	if t.Scopes == 0 && t.SharedBlockers+t.SharedAdvisories == 0 {
		return "**No kube-proxy, replacement or finding in this repository.**\n"
	}
	var parts []string
	for _, sc := range t.ByStatus {
		parts = append(parts, strconv.Itoa(sc.Count)+" "+statusWord(sc.Status))
	}
	s := "**" + plural(t.Scopes, "cluster", "clusters") + "**: " + strings.Join(parts, " · ") +
		" — " + plural(t.Instances, "kube-proxy", "kube-proxies") + ", " +
		plural(t.Blockers, "blocker", "blockers") + ", " + plural(t.Advisories, "advisory", "advisories")
	if t.SharedBlockers+t.SharedAdvisories > 0 {
		s += " (shared files: " + plural(t.SharedBlockers, "blocker", "blockers") + ", " + plural(t.SharedAdvisories, "advisory", "advisories") + ")"
	}
	if t.Nodes.Total > 0 {
		s += fmt.Sprintf(", node kernels: %d of %d ready for nftables", t.Nodes.Ready, t.Nodes.Total)
	}
	s += "\n"
	if len(t.BlockersBy) > 0 {
		var bs []string
		for _, v := range t.BlockersBy {
			bs = append(bs, arrivesWord(v.Version)+": "+strconv.Itoa(v.Count))
		}
		s += "\nBlockers by the version they arrive in: " + strings.Join(bs, " · ") + "\n"
	}
	return s
}

// statusWord names a status in the overview.
func statusWord(s readiness.Status) string {
	switch s {
	case readiness.StatusBlocked:
		return "blocked today"
	case readiness.StatusBreaks:
		return "break later"
	case readiness.StatusNoKubeProxy:
		return "without kube-proxy"
	}
	return string(s)
}

// statusText is a scope's status with its version.
func statusText(s *readiness.Scope) string {
	switch s.Status {
	case readiness.StatusBlocked:
		return "blocked at " + s.Target.Version
	case readiness.StatusBreaks:
		return "breaks at " + s.BreaksAt
	case readiness.StatusNoKubeProxy:
		return "no kube-proxy"
	}
	return string(s.Status)
}

func arrivesWord(v string) string {
	if v == "" {
		return "today"
	}
	return v
}

// stateCell is a timeline cell in the overview table.
func stateCell(c readiness.Cell) string {
	s := string(c.State)
	switch c.State {
	case checker.StateExits, checker.StateRemoved:
		s = "**" + s + "**"
	case checker.StateDeprecated:
		s = "deprecated"
	case checker.StateUnknown:
		s = "?"
	}
	if c.Blockers > 0 {
		s += " (" + strconv.Itoa(c.Blockers) + ")"
	}
	return s
}

// overview writes the matrix of scopes and versions.
func (m readinessMarkdown) overview(b *strings.Builder, rd *readiness.Report) {
	if len(rd.Scopes) == 0 {
		return
	}
	b.WriteString("\n| cluster | today |")
	for _, v := range rd.Versions {
		b.WriteString(" " + v + " |")
	}
	b.WriteString(" status |\n| --- | --- |")
	for range rd.Versions {
		b.WriteString(" --- |")
	}
	b.WriteString(" --- |\n")
	const rowBudget = maxReadinessMarkdown / 3
	start := b.Len()
	for i := range rd.Scopes {
		s := &rd.Scopes[i]
		if b.Len()-start > rowBudget {
			fmt.Fprintf(b, "| … %s |\n", plural(len(rd.Scopes)-i, "more scope", "more scopes"))
			break
		}
		cells := map[string]readiness.Cell{}
		for _, c := range s.Timeline {
			cells[c.Version] = c
		}
		today := Markdown(strings.Join(s.ModeToday, ", "))
		if today == "" {
			today = "—"
		}
		fmt.Fprintf(b, "| %s | %s at %s |", m.dirLink(s.Dir), today, Markdown(s.Target.Version))
		for _, v := range rd.Versions {
			c, ok := cells[v]
			if !ok {
				b.WriteString(" |")
				continue
			}
			b.WriteString(" " + stateCell(c) + " |")
		}
		b.WriteString(" " + Markdown(statusText(s)) + " |\n")
	}
	b.WriteString("\nStates: runs · switches (the default mode changes) · deprecated · **exits** at startup · **removed**; (N): blockers that arrive at that version.\n")
}

// dirLink links a scope directory when a link base is known.
func (m readinessMarkdown) dirLink(dir string) string {
	text := Markdown(dir)
	if m.linkBase == "" || dir == "." {
		return text
	}
	return "[" + text + "](" + MarkdownURL(m.linkBase+escapeURIPath(dir, false)) + ")"
}

// at links a location: "[file:line](url#Lline)".
func (m readinessMarkdown) at(l readiness.Location) string {
	text := Markdown(l.File + ":" + strconv.Itoa(l.Line))
	if m.linkBase == "" || l.File == "" || l.Line < 1 {
		return text
	}
	anchor := "#L" + strconv.Itoa(l.Line)
	if l.EndLine > l.Line {
		anchor += "-L" + strconv.Itoa(l.EndLine)
	}
	return "[" + text + "](" + MarkdownURL(m.linkBase+escapeURIPath(l.File, false)+anchor) + ")"
}

// scope renders one scope section, listing at most limit items per list.
func (m readinessMarkdown) scope(s *readiness.Scope, limit int) string {
	var b strings.Builder
	b.WriteString("\n### " + Markdown(s.Dir) + ": " + Markdown(statusText(s)) + "\n\n")
	b.WriteString(Markdown(s.Headline) + ".\n")
	src := "Version " + Markdown(s.Target.Version) + " " + Markdown(targetWords(s.Target))
	if s.Target.At != nil {
		src += " at " + m.at(*s.Target.At)
	}
	b.WriteString(src + ".\n\n")
	b.WriteString("**Next step:** " + Markdown(s.NextStep) + ".\n")
	for _, r := range s.Replaced {
		word := "Replaced"
		if r.Conflicting {
			word = "Replaced, but kube-proxy is still deployed"
		}
		b.WriteString("\n**" + word + ":** " + Markdown(r.Message) + " (" + m.at(r.At) + ")\n")
	}
	if len(s.Instances) > 0 {
		b.WriteString("\n**kube-proxy** (" + strconv.Itoa(len(s.Instances)) + ")\n\n")
		for i := range s.Instances {
			m.instance(&b, &s.Instances[i])
		}
	}
	b.WriteString("\n" + m.nodes(s) + "\n")
	for _, kind := range []string{"Blockers", "Advisories"} {
		n := s.Blockers
		if kind == "Advisories" {
			n = s.Advisories
		}
		if n == 0 {
			continue
		}
		if kind == "Advisories" {
			b.WriteString("\n<details><summary>" + plural(n, "advisory", "advisories") + "</summary>\n\n")
		} else {
			b.WriteString("\n**" + plural(n, "blocker", "blockers") + "**\n\n")
		}
		for _, g := range s.Groups {
			its := g.Blockers
			if kind == "Advisories" {
				its = g.Advisories
			}
			if len(its) == 0 {
				continue
			}
			b.WriteString("- " + Markdown(g.Title) + "\n")
			for j, it := range its {
				if j == limit {
					b.WriteString("  - … " + plural(len(its)-j, "more", "more") + "\n")
					break
				}
				b.WriteString("  - " + m.item(it) + "\n")
			}
		}
		if kind == "Advisories" {
			b.WriteString("\n</details>\n")
		}
	}
	return b.String()
}

func (m readinessMarkdown) instance(b *strings.Builder, in *readiness.Instance) {
	mode := "mode unknown"
	if in.Mode != "" {
		mode = "**" + Markdown(in.Mode) + "** (" + Markdown(in.Origin) + ")"
	}
	if in.Disabled {
		mode = "not run by the installer"
	}
	line := "- " + Markdown(in.Label) + ": " + mode
	if in.ModeAt != nil {
		line += " at " + m.at(*in.ModeAt)
	}
	b.WriteString(line + "\n")
	var srcs []string
	for _, s := range in.Sources {
		srcs = append(srcs, Markdown(s.Role)+" "+m.at(s.At))
	}
	if len(srcs) > 0 {
		b.WriteString("  - sources: " + strings.Join(srcs, " · ") + "\n")
	}
	var cells []string
	for _, c := range in.Timeline {
		cells = append(cells, c.Version+" "+strings.TrimSuffix(stateCell(c), ""))
	}
	if len(cells) > 0 {
		b.WriteString("  - timeline: " + strings.Join(cells, " · ") + "\n")
	}
}

func (m readinessMarkdown) item(it readiness.Item) string {
	rule := Markdown(it.Rule + " " + it.RuleName)
	if it.URL != "" {
		rule = "[" + rule + "](" + MarkdownURL(it.URL) + ")"
	}
	when := "today"
	if it.Arrives != "" {
		when = "from " + it.Arrives
		if it.Today != "" && it.Today != it.Severity {
			when += " (" + it.Today + " today)"
		}
	} else if it.Severity != checker.SeverityError.String() {
		when = it.Severity
	}
	return "**" + Markdown(when) + "** " + m.at(it.At) + ": " + Markdown(it.Message) + " (" + rule + ")"
}

// nodes is the node kernel line of a scope.
func (m readinessMarkdown) nodes(s *readiness.Scope) string {
	if s.Nodes == nil {
		return "**Node kernels:** unknown (no node inventory covers this scope; pass `--nodes`)."
	}
	n := s.Nodes
	line := fmt.Sprintf("**Node kernels:** %d of %d nodes ready for nftables (Linux %s or newer)", n.Ready, n.Total, checker.NFTablesMinKernel)
	var pools []string
	for _, p := range n.Pools {
		t := Markdown(p.Name) + " " + strconv.Itoa(p.Ready) + "/" + strconv.Itoa(p.Total)
		if len(p.OldKernels) > 0 {
			t += " (older: " + Markdown(strings.Join(p.OldKernels, ", ")) + ")"
			if p.At != nil {
				t += " " + m.at(*p.At)
			}
		}
		pools = append(pools, t)
	}
	if len(pools) > 0 {
		line += "; pools: " + strings.Join(pools, " · ")
	}
	return line + "."
}

// targetWords says where a scope's version comes from: "from kubeadm kubernetesVersion".
func targetWords(t readiness.Target) string {
	switch t.Source {
	case "default":
		return "by default (no version found)"
	case "--target-version":
		return "from --target-version"
	}
	return "from " + t.Source
}
