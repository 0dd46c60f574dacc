package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// rdjsonFormatter writes reviewdog's Diagnostic Format: one DiagnosticResult document
// ("rdjson"), or one Diagnostic per line ("rdjsonl") when lines is set.
type rdjsonFormatter struct{ lines bool }

type rdResult struct {
	Source      rdSource                `json:"source"`
	Diagnostics jsonArray[rdDiagnostic] `json:"diagnostics"`
}

type rdSource struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"`
}

type rdDiagnostic struct {
	Message          string      `json:"message"`
	Location         rdLocation  `json:"location"`
	Severity         string      `json:"severity"`
	Source           *rdSource   `json:"source,omitempty"`
	Code             *rdCode     `json:"code,omitempty"`
	Suggestions      []rdSuggest `json:"suggestions,omitempty"`
	RelatedLocations []rdRelated `json:"related_locations,omitempty"`
}

type rdCode struct {
	Value string `json:"value"`
	URL   string `json:"url,omitempty"`
}

type rdLocation struct {
	Path  string   `json:"path"`
	Range *rdRange `json:"range,omitempty"`
}

type rdRange struct {
	Start rdPosition  `json:"start"`
	End   *rdPosition `json:"end,omitempty"`
}

type rdPosition struct {
	Line   int `json:"line"`
	Column int `json:"column,omitempty"`
}

type rdSuggest struct {
	Range rdRange `json:"range"`
	Text  string  `json:"text"`
}

type rdRelated struct {
	Message  string     `json:"message,omitempty"`
	Location rdLocation `json:"location"`
}

// Format writes the findings. Internal findings are kept: reviewdog shows them like any
// other, and a broken rule must be seen.
func (f rdjsonFormatter) Format(w io.Writer, r *Result) error {
	src := newSources(r.Source)
	rules := newRuleTable(r)
	diags := make([]rdDiagnostic, 0, len(r.Findings))
	for i := range r.Findings {
		diags = append(diags, rdDiagnosticOf(&r.Findings[i], rules, src, f.lines))
	}
	if !f.lines {
		return writeJSON(w, rdResult{Source: rdSource{Name: ToolName, URL: InformationURI}, Diagnostics: jsonArray[rdDiagnostic]{Items: diags}})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, d := range diags {
		if err := enc.Encode(d); err != nil {
			return fmt.Errorf("encode report: %w", err)
		}
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

func rdDiagnosticOf(f *checker.Finding, rules *ruleTable, src *sources, selfContained bool) rdDiagnostic {
	d := rdDiagnostic{
		Message:  f.Message,
		Location: rdLocationOf(f.Pos, f.End, src),
		Severity: rdSeverity(f.Severity),
		Code:     &rdCode{Value: f.RuleID},
	}
	if selfContained {
		// A line of rdjsonl stands alone, so it names its source itself.
		d.Source = &rdSource{Name: ToolName, URL: InformationURI}
	}
	if i, ok := rules.index[f.RuleID]; ok && rules.rules[i].Doc.Title != "" {
		d.Code.URL = rules.rules[i].URL()
	}
	for _, rel := range f.Related {
		d.RelatedLocations = append(d.RelatedLocations, rdRelated{Message: rel.Message, Location: rdLocationOf(rel.Pos, rel.End, src)})
	}
	if fix, ok := f.PreferredFix(); ok {
		// reviewdog suggests changes to the commented file only, one suggestion per edit;
		// a fix that also edits another file cannot be offered in part. Only the preferred
		// fix is suggested: the edits of alternatives overlap it.
		var sug []rdSuggest
		ok := len(fix.Edits) > 0
		for _, e := range fix.Edits {
			if e.Pos.Filename != f.Pos.Filename {
				ok = false
				break
			}
			rg, valid := rdEditRange(e, src)
			if !valid {
				ok = false
				break
			}
			sug = append(sug, rdSuggest{Range: rg, Text: e.NewText})
		}
		if ok {
			d.Suggestions = append(d.Suggestions, sug...)
		}
	}
	return d
}

// rdLocationOf converts a span. reviewdog counts columns in UTF-8 bytes, so columns are
// computed from byte offsets when the file's content is known.
func rdLocationOf(pos, end checker.Position, src *sources) rdLocation {
	loc := rdLocation{Path: pos.Filename}
	if !pos.IsValid() {
		return loc
	}
	e := span(pos, end)
	loc.Range = &rdRange{Start: rdPositionOf(pos, src)}
	ep := rdPositionOf(e, src)
	loc.Range.End = &ep
	return loc
}

func rdPositionOf(p checker.Position, src *sources) rdPosition {
	return rdPosition{Line: p.Line, Column: byteColumn(p, src)}
}

// byteColumn returns the 1-based UTF-8 byte column of p: from its byte offset when the file
// is known and the offset lies on p's line, else by re-encoding the line's code points, else
// p's code-point column.
func byteColumn(p checker.Position, src *sources) int {
	f := src.file(p.Filename)
	if f == nil || p.Line < 1 || p.Line > f.index.Lines() {
		return p.Column
	}
	start := f.index.LineStart(p.Line)
	next := f.index.LineStart(p.Line + 1)
	if p.Offset >= start && (p.Offset < next || (p.Offset == next && p.Line == f.index.Lines())) {
		return p.Offset - start + 1
	}
	if p.Column >= 1 {
		return f.index.Offset(p.Line, p.Column) - start + 1
	}
	return p.Column
}

// rdEditRange converts an edit, whose offsets are authoritative, to a byte-column range.
func rdEditRange(e checker.TextEdit, src *sources) (rdRange, bool) {
	f := src.file(e.Pos.Filename)
	if f == nil || e.End.Offset < e.Pos.Offset || e.End.Offset > len(f.content) {
		return rdRange{}, false
	}
	s := f.index.Position(e.Pos.Filename, e.Pos.Offset)
	en := f.index.Position(e.Pos.Filename, e.End.Offset)
	sp := rdPosition{Line: s.Line, Column: e.Pos.Offset - f.index.LineStart(s.Line) + 1}
	ep := rdPosition{Line: en.Line, Column: e.End.Offset - f.index.LineStart(en.Line) + 1}
	return rdRange{Start: sp, End: &ep}, true
}

func rdSeverity(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return "ERROR"
	case checker.SeverityWarning:
		return "WARNING"
	case checker.SeverityInfo:
		return "INFO"
	default:
		return "UNKNOWN_SEVERITY"
	}
}
