package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"unicode"

	"golang.org/x/text/width"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// textFormatter writes the "text" format described in the package documentation.
type textFormatter struct {
	color bool
}

// ANSI SGR sequences used when colour is on.
const (
	sgrReset  = "\x1b[0m"
	sgrBold   = "\x1b[1m"
	sgrDim    = "\x1b[2m"
	sgrRed    = "\x1b[1;31m"
	sgrGreen  = "\x1b[1;32m"
	sgrYellow = "\x1b[1;33m"
	sgrBlue   = "\x1b[1;34m"
	sgrCyan   = "\x1b[1;36m"
)

// Layout of the source line.
const (
	tabWidth     = 8      // tab stops, as terminals have them
	maxCells     = 120    // longer lines are cut around the span
	leadCells    = 40     // cells kept before the span when a line is cut
	sourceIndent = "    " // before the source and caret lines
)

func (f *textFormatter) paint(sgr, s string) string {
	if !f.color || s == "" {
		return s
	}
	return sgr + s + sgrReset
}

func severityColor(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return sgrRed
	case checker.SeverityWarning:
		return sgrYellow
	default:
		return sgrBlue
	}
}

// Format writes the findings and a summary; nothing at all when there are no findings.
func (f *textFormatter) Format(w io.Writer, r *Result) error {
	if len(r.Findings) == 0 {
		return nil
	}
	var buf bytes.Buffer
	src := newSources(r.Source)
	// With several clusters, a line names the cluster before its findings (again when the
	// file order moves to another cluster and back), so that messages need not.
	headers := len(r.Targets) > 1
	last := "\x00"
	for i := range r.Findings {
		fd := &r.Findings[i]
		if headers && fd.Cluster != last && !fd.Internal {
			last = fd.Cluster
			name := "cluster " + fd.Cluster
			if fd.Cluster == "" {
				name = "shared files (no cluster)"
			}
			buf.WriteString(f.paint(sgrBold, TerminalLine(name)+":") + "\n")
		}
		f.finding(&buf, src, fd)
	}
	buf.WriteString("\n")
	buf.WriteString(f.summary(r))
	buf.WriteString("\n")
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func (f *textFormatter) finding(w *bytes.Buffer, src *sources, fd *checker.Finding) {
	var b strings.Builder
	if loc := location(fd.Pos); loc != "" {
		b.WriteString(f.paint(sgrBold, loc+":"))
		b.WriteString(" ")
	}
	b.WriteString(f.paint(severityColor(fd.Severity), fd.Severity.String()+":"))
	b.WriteString(" ")
	b.WriteString(Terminal(fd.Message))
	if ref := ruleRef(fd); ref != "" {
		b.WriteString(" ")
		b.WriteString(f.paint(sgrDim, "("+ref+")"))
	}
	b.WriteString("\n")
	w.WriteString(b.String())

	if text, caret, ok := snippet(src, fd.Pos, span(fd.Pos, fd.End)); ok {
		// The source line is the repository's text: a line reading "::error::…" would be a
		// workflow command in a CI log.
		w.WriteString(sourceIndent + guardLineStart(text) + "\n")
		marker := strings.TrimLeft(caret, " ")
		w.WriteString(sourceIndent + caret[:len(caret)-len(marker)] + f.paint(sgrGreen, marker) + "\n")
	}
	for _, rel := range fd.Related {
		var nb strings.Builder
		nb.WriteString("  ")
		if loc := location(rel.Pos); loc != "" {
			nb.WriteString(f.paint(sgrBold, loc+":"))
			nb.WriteString(" ")
		}
		nb.WriteString(f.paint(sgrCyan, "note:"))
		if rel.Message != "" {
			nb.WriteString(" " + Terminal(rel.Message))
		}
		nb.WriteString("\n")
		w.WriteString(nb.String())
	}
	for i, fix := range fd.Fixes {
		msg := Terminal(fix.Message)
		if msg == "" {
			msg = "available"
		}
		w.WriteString("  " + f.paint(sgrGreen, fixLabel(fd, i)+":") + " " + msg + "\n")
	}
}

// location formats a position as path:line:col, path alone without a line, "" without a file.
// It starts a line of output, so a file named "::error::x" cannot pass for a workflow command.
func location(p checker.Position) string {
	if p.Filename == "" {
		return ""
	}
	return TerminalLine(p.String())
}

// ruleRef formats "KP102 mode-ipvs".
func ruleRef(fd *checker.Finding) string {
	return strings.TrimSpace(fd.RuleID + " " + fd.RuleName)
}

// summary formats "3 findings (1 error, 2 warnings), 2 suppressed, 5 in the baseline · target
// 1.40 (from …)".
func (f *textFormatter) summary(r *Result) string {
	var counts [checker.SeverityError + 1]int
	for i := range r.Findings {
		if s := r.Findings[i].Severity; s >= checker.SeverityNone && s <= checker.SeverityError {
			counts[s]++
		}
	}
	var b strings.Builder
	b.WriteString(f.paint(sgrBold, plural(len(r.Findings), "finding", "findings")))
	var parts []string
	for _, s := range []checker.Severity{checker.SeverityError, checker.SeverityWarning, checker.SeverityInfo} {
		if counts[s] == 0 {
			continue
		}
		name := s.String()
		parts = append(parts, f.paint(severityColor(s), plural(counts[s], name, pluralSeverity(name))))
	}
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, ", ") + ")")
	}
	b.WriteString(HiddenCounts(r))
	switch ts := summaryTargets(r); {
	case len(ts) == 1:
		b.WriteString(" · target " + ts[0].Version.String())
		if s := targetSource(ts[0].Target); s != "" {
			b.WriteString(" (" + Terminal(s) + ")")
		}
	case len(ts) > maxTargetGroups:
		// A monorepo's hundreds of scopes: the count at each version, not a line each.
		var all []checker.Target
		for _, g := range ts {
			for range g.scopes {
				all = append(all, g.Target)
			}
		}
		b.WriteString(" · targets by cluster: " + VersionCounts(all) + " (each cluster's target: kube-proxy-lint clusters, or the JSON output)")
	case len(ts) > 1:
		// Clusters checked at different versions: one line each.
		b.WriteString(" · targets by cluster:")
		for _, g := range ts {
			b.WriteString("\n  " + TerminalLine(strings.Join(g.scopes, ", ")) + ": " + g.Version.String())
			if s := targetSource(g.Target); s != "" {
				b.WriteString(" (" + Terminal(s) + ")")
			}
		}
	}
	return b.String()
}

func pluralSeverity(name string) string {
	if name == "info" {
		return name
	}
	return name + "s"
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// cell is one code point of a source line as displayed.
type cell struct {
	text  string
	start int // first terminal cell
	width int
}

// layout lays a line out in terminal cells: tabs to the next multiple of tabWidth, wide
// characters in two cells, combining marks and format characters in none.
func layout(line string) []cell {
	cells := make([]cell, 0, len(line))
	pos := 0
	for i, r := range line {
		c := cell{start: pos}
		switch {
		case r == '#' && i > 0 && line[i-1] == '#' && strings.HasPrefix(line[i:], "#["):
			// "##[" starts a GitHub log command anywhere on a line: break it up.
			c.text, c.width = `\x23`, 4
		case r == '\t':
			c.width = tabWidth - pos%tabWidth
			c.text = strings.Repeat(" ", c.width)
		case unsafeRune(r):
			// Shown as an escape such as \x1b or \u202e, never passed to the terminal.
			var b strings.Builder
			writeEscape(&b, r)
			c.text, c.width = b.String(), b.Len()
		default:
			c.text, c.width = string(r), runeWidth(r)
		}
		pos += c.width
		cells = append(cells, c)
	}
	return cells
}

func runeWidth(r rune) int {
	if unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf) {
		return 0
	}
	switch width.LookupRune(r).Kind() {
	case width.EastAsianWide, width.EastAsianFullwidth:
		return 2
	}
	return 1
}

// snippet renders the line of pos and the caret line under [pos, end). ok is false when the
// file or line is unknown.
func snippet(src *sources, pos, end checker.Position) (text, caret string, ok bool) {
	f := src.file(pos.Filename)
	if f == nil || pos.Line < 1 || pos.Line > f.index.Lines() || pos.Column < 1 {
		return "", "", false
	}
	cells := layout(f.index.LineText(pos.Line))
	total := 0
	if n := len(cells); n > 0 {
		total = cells[n-1].start + cells[n-1].width
	}
	// cellAt maps a 1-based column to its first terminal cell; columns past the end of the line
	// (a position after the last character) continue one cell each.
	cellAt := func(col int) int {
		if col-1 < len(cells) {
			return cells[col-1].start
		}
		return total + col - 1 - len(cells)
	}
	from := cellAt(pos.Column)
	to := total
	if end.Line == pos.Line {
		to = cellAt(end.Column)
	}
	if to < from {
		to = from
	}

	// Cut long lines to a window of maxCells around the start of the span.
	lo, hi := 0, max(total, from+1)
	if hi > maxCells {
		lo = max(0, from-leadCells)
		hi = min(hi, lo+maxCells)
		lo = max(0, hi-maxCells)
	}
	if lo > 0 {
		// Start the window on a whole character.
		for _, c := range cells {
			if c.start >= lo {
				lo = c.start
				break
			}
		}
	}
	var tb strings.Builder
	shift := lo
	if lo > 0 {
		tb.WriteString("…")
		shift-- // the ellipsis takes one cell
	}
	for _, c := range cells {
		if c.start >= lo && c.start+c.width <= hi {
			tb.WriteString(c.text)
		}
	}
	if hi < total {
		tb.WriteString("…")
	}
	to = min(to, hi)
	caret = strings.Repeat(" ", from-shift) + "^"
	if to-from > 1 {
		caret += strings.Repeat("~", to-from-1)
	}
	return tb.String(), caret, true
}
