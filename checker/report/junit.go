package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
)

// junitFormatter writes JUnit XML, which GitLab (artifacts:reports:junit), Jenkins, Azure
// Pipelines and most CI systems show as test results: one test suite per file with findings,
// one failed test case per finding, named after the rule, as linters' JUnit outputs do
// (ESLint, golangci-lint). A clean run is one suite with one passing case, so that CI shows a
// green check instead of "no tests".
type junitFormatter struct{}

type juSuites struct {
	XMLName  xml.Name  `xml:"testsuites"`
	Name     string    `xml:"name,attr"`
	Tests    int       `xml:"tests,attr"`
	Failures int       `xml:"failures,attr"`
	Errors   int       `xml:"errors,attr"`
	Suites   []juSuite `xml:"testsuite"`
}

type juSuite struct {
	Name     string   `xml:"name,attr"`
	Tests    int      `xml:"tests,attr"`
	Failures int      `xml:"failures,attr"`
	Errors   int      `xml:"errors,attr"`
	Cases    []juCase `xml:"testcase"`
}

type juCase struct {
	Name      string     `xml:"name,attr"`
	Classname string     `xml:"classname,attr"`
	File      string     `xml:"file,attr,omitempty"`
	Line      int        `xml:"line,attr,omitempty"`
	Failure   *juFailure `xml:"failure,omitempty"`
	Error     *juFailure `xml:"error,omitempty"`
}

type juFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// Format writes the suites in file order. Findings of broken rules are <error>s (the tool
// failed), the others <failure>s whose type is the severity.
func (junitFormatter) Format(w io.Writer, r *Result) error {
	byFile := map[string]*juSuite{}
	var names []string
	root := juSuites{Name: ToolName}
	for i := range r.Findings {
		f := &r.Findings[i]
		s := byFile[f.Pos.Filename]
		if s == nil {
			name := f.Pos.Filename
			if name == "" {
				name = ToolName
			}
			s = &juSuite{Name: xmlSafe(name)}
			byFile[f.Pos.Filename] = s
			names = append(names, f.Pos.Filename)
		}
		where := f.Pos.String()
		if f.Pos.Filename == "" {
			where = ToolName
		}
		text := where + ": " + f.Severity.String() + ": " + f.Message + " (" + f.RuleID + " " + f.RuleName + ")"
		for _, rel := range f.Related {
			text += "\n  " + rel.Pos.String() + ": note: " + rel.Message
		}
		c := juCase{
			Name:      xmlSafe(f.RuleID + " " + f.RuleName + " at " + where),
			Classname: xmlSafe(f.Pos.Filename),
			File:      xmlSafe(f.Pos.Filename),
			Line:      f.Pos.Line,
		}
		fl := &juFailure{Message: xmlSafe(f.Message), Type: f.Severity.String(), Text: xmlSafe(text)}
		if f.Internal {
			c.Error = fl
			s.Errors++
			root.Errors++
		} else {
			c.Failure = fl
			s.Failures++
			root.Failures++
		}
		if c.Classname == "" {
			c.Classname = ToolName
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
		root.Tests++
	}
	sort.Strings(names)
	for _, n := range names {
		root.Suites = append(root.Suites, *byFile[n])
	}
	if len(root.Suites) == 0 {
		root.Tests = 1
		root.Suites = []juSuite{{Name: ToolName, Tests: 1, Cases: []juCase{{Name: "no findings", Classname: ToolName}}}}
	}
	var buf bytes.Buffer
	buf.WriteString(xml.Header)
	enc := xml.NewEncoder(&buf)
	enc.Indent("", "  ")
	if err := enc.Encode(root); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	buf.WriteByte('\n')
	if _, err := w.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}
