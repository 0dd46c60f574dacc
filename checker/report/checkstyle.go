package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// checkstyleFormatter writes Checkstyle XML, the lingua franca of CI code-quality plugins
// (Jenkins warnings-ng, GitLab via converters, reviewdog -f=checkstyle).
type checkstyleFormatter struct{}

type csRoot struct {
	XMLName xml.Name `xml:"checkstyle"`
	Version string   `xml:"version,attr"`
	Files   []csFile `xml:"file"`
}

type csFile struct {
	Name   string    `xml:"name,attr"`
	Errors []csError `xml:"error"`
}

type csError struct {
	Line     int    `xml:"line,attr"`
	Column   int    `xml:"column,attr,omitempty"`
	Severity string `xml:"severity,attr"`
	Message  string `xml:"message,attr"`
	Source   string `xml:"source,attr"`
}

// Format writes one <file> per file in name order, its findings in report order. A finding
// without a file is listed under the empty name, which Checkstyle consumers show as global.
func (checkstyleFormatter) Format(w io.Writer, r *Result) error {
	byFile := map[string][]csError{}
	var names []string
	for i := range r.Findings {
		f := &r.Findings[i]
		if _, ok := byFile[f.Pos.Filename]; !ok {
			names = append(names, f.Pos.Filename)
		}
		msg := f.Message
		for _, rel := range f.Related {
			msg += "\n" + rel.Pos.String() + ": " + rel.Message
		}
		byFile[f.Pos.Filename] = append(byFile[f.Pos.Filename], csError{
			Line:     f.Pos.Line,
			Column:   f.Pos.Column,
			Severity: checkstyleSeverity(f.Severity),
			Message:  xmlSafe(msg),
			Source:   ToolName + "." + f.RuleID,
		})
	}
	sort.Strings(names)
	root := csRoot{Version: "4.3"}
	for _, n := range names {
		root.Files = append(root.Files, csFile{Name: xmlSafe(n), Errors: byFile[n]})
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

func checkstyleSeverity(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return "error"
	case checker.SeverityWarning:
		return "warning"
	default:
		return "info"
	}
}

// xmlSafe drops the characters XML 1.0 cannot carry at all (most C0 controls); the encoder
// escapes the rest. A message quoting a file's bytes must not make the document invalid.
func xmlSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return r
		case r < 0x20, r == 0xFFFE, r == 0xFFFF:
			return '\uFFFD'
		}
		return r
	}, s)
}
