package report

import (
	"io"
	"sort"
	"unicode/utf8"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// sonarqubeFormatter writes SonarQube's generic issue import format (SonarQube 10.3 and
// later, SonarQube Cloud; sonar.externalIssuesReportPaths): the rules that raised issues, with
// their impact on a software quality, and one issue per finding with its location. File paths
// are relative to the repository root, which is sonar.projectBaseDir in the usual setup.
type sonarqubeFormatter struct{}

type sqReport struct {
	Rules  []sqRule           `json:"rules"`
	Issues jsonArray[sqIssue] `json:"issues"`
}

type sqRule struct {
	ID                 string     `json:"id"`
	Name               string     `json:"name"`
	Description        string     `json:"description,omitempty"`
	EngineID           string     `json:"engineId"`
	CleanCodeAttribute string     `json:"cleanCodeAttribute"`
	Type               string     `json:"type"`
	Severity           string     `json:"severity"`
	Impacts            []sqImpact `json:"impacts"`
}

type sqImpact struct {
	SoftwareQuality string `json:"softwareQuality"`
	Severity        string `json:"severity"`
}

type sqIssue struct {
	RuleID             string       `json:"ruleId"`
	PrimaryLocation    sqLocation   `json:"primaryLocation"`
	SecondaryLocations []sqLocation `json:"secondaryLocations,omitempty"`
}

type sqLocation struct {
	Message   string       `json:"message"`
	FilePath  string       `json:"filePath"`
	TextRange *sqTextRange `json:"textRange,omitempty"`
}

// sqTextRange: lines are 1-based; columns are 0-based offsets in UTF-16 code units (Java
// characters), which SonarQube checks against the length of the line.
type sqTextRange struct {
	StartLine   int  `json:"startLine"`
	EndLine     int  `json:"endLine,omitempty"`
	StartColumn *int `json:"startColumn,omitempty"`
	EndColumn   *int `json:"endColumn,omitempty"`
}

// Format writes the rules in ID order and the issues in report order. The generic format has
// no per-issue severity: a rule's impact is the highest severity of its findings in this run
// (findings of one rule differ by target version and context). Findings of broken rules and
// findings without a file are left out: SonarQube imports issues on files only.
func (sonarqubeFormatter) Format(w io.Writer, r *Result) error {
	rules := newRuleTable(r)
	src := newSources(r.Source)
	rep := sqReport{Rules: []sqRule{}, Issues: jsonArray[sqIssue]{Items: []sqIssue{}}}
	highest := map[string]checker.Severity{}
	var order []string
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Internal || f.Pos.Filename == "" {
			continue
		}
		if _, ok := highest[f.RuleID]; !ok {
			order = append(order, f.RuleID)
		}
		highest[f.RuleID] = max(highest[f.RuleID], f.Severity)
		is := sqIssue{RuleID: f.RuleID, PrimaryLocation: sqLocationOf(f.Message, f.Pos, f.End, src)}
		for _, rel := range f.Related {
			if rel.Pos.Filename != "" {
				is.SecondaryLocations = append(is.SecondaryLocations, sqLocationOf(rel.Message, rel.Pos, rel.End, src))
			}
		}
		rep.Issues.Items = append(rep.Issues.Items, is)
	}
	sort.Strings(order)
	for _, id := range order {
		sr := sqRule{ID: id, Name: id, EngineID: ToolName, CleanCodeAttribute: "LOGICAL", Type: "BUG",
			Severity: sonarSeverity(highest[id]), Impacts: []sqImpact{{SoftwareQuality: "RELIABILITY", Severity: sonarImpact(highest[id])}}}
		if j, ok := rules.index[id]; ok {
			rule := rules.rules[j]
			sr.Name = id + " " + rule.Name + ": " + rule.Doc.Title
			sr.Description = firstParagraph(rule.Doc.Why)
			if u := rule.URL(); u != "" {
				sr.Description += " " + u
			}
		}
		rep.Rules = append(rep.Rules, sr)
	}
	return writeJSON(w, rep)
}

func sqLocationOf(msg string, pos, end checker.Position, src *sources) sqLocation {
	loc := sqLocation{Message: msg, FilePath: pos.Filename}
	if !pos.IsValid() {
		return loc
	}
	e := span(pos, end)
	tr := &sqTextRange{StartLine: pos.Line, EndLine: e.Line}
	sc, ok1 := utf16Column(pos, src)
	ec, ok2 := utf16Column(e, src)
	if ok1 && ok2 && (e.Line > pos.Line || ec > sc) {
		tr.StartColumn, tr.EndColumn = &sc, &ec
	}
	loc.TextRange = tr
	return loc
}

// utf16Column returns the 0-based UTF-16 column of p from the file's content, when known.
func utf16Column(p checker.Position, src *sources) (int, bool) {
	f := src.file(p.Filename)
	if f == nil || p.Line < 1 || p.Line > f.index.Lines() {
		return 0, false
	}
	start := f.index.LineStart(p.Line)
	off := p.Offset
	if next := f.index.LineStart(p.Line + 1); off < start || off > next || off > len(f.content) {
		if p.Column < 1 {
			return 0, false
		}
		off = f.index.Offset(p.Line, p.Column)
	}
	n := 0
	for b := f.content[start:off]; len(b) > 0; {
		r, size := utf8.DecodeRune(b)
		b = b[size:]
		if r == '\n' || r == '\r' {
			break
		}
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n, true
}

func sonarImpact(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return "HIGH"
	case checker.SeverityWarning:
		return "MEDIUM"
	default:
		return "LOW"
	}
}

func sonarSeverity(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return "CRITICAL"
	case checker.SeverityWarning:
		return "MAJOR"
	default:
		return "INFO"
	}
}
