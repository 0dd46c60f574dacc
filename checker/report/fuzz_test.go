package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"regexp"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// githubCommandRe is one workflow command of the github format: level, properties without a
// raw ":", then the data.
var githubCommandRe = regexp.MustCompile(`^::(error|warning|notice) [^:]*::`)

// FuzzFormats checks every output format (issue 11) with a file name, messages and source line
// from the fuzzer: JSON-based outputs stay valid JSON, Checkstyle valid XML, and the text,
// github and markdown outputs keep no control or bidi character, no line that GitHub would run
// as a workflow command, and (markdown) no mention.
func FuzzFormats(f *testing.F) {
	for _, n := range HostileNames {
		f.Add(n, "value "+n, "::error::"+n, uint16(1), uint16(1))
	}
	f.Fuzz(func(t *testing.T, name, msg, src string, line, col uint16) {
		pos := checker.Position{Filename: name, Line: int(line%5) + 1, Column: int(col%40) + 1}
		r := &Result{
			Rules:      []*checker.Rule{{ID: "KP102", Name: "mode-ipvs", Severity: checker.SeverityError, Doc: checker.Doc{Title: "t", Why: "w"}}},
			SourceRoot: "/repo",
			Target:     checker.Target{Version: checker.Version{Major: 1, Minor: 40}, Source: msg},
			Findings: []checker.Finding{{RuleID: "KP102", RuleName: "mode-ipvs", Severity: checker.SeverityError, Message: msg, Pos: pos, End: pos,
				Related: []checker.Related{{Pos: pos, Message: msg}}, Fixes: []checker.Fix{{Message: msg}}}},
			Problems: []checker.LoadProblem{{Pos: pos, Message: msg}},
			Notes:    []checker.Note{{Pos: &pos, Message: msg}},
			Source:   func(string) []byte { return []byte(src) },
		}
		for _, format := range Formats() {
			if strings.HasPrefix(format, "report-") {
				continue // the readiness report needs a readiness.Report
			}
			fm, err := New(format, Options{LinkBase: "https://github.com/o/r/blob/sha/"})
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			if err := fm.Format(&buf, r); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			out := buf.String()
			switch format {
			case "json", "sarif", "rdjson", "codeclimate", "sonarqube":
				if !json.Valid(buf.Bytes()) {
					t.Fatalf("%s: invalid JSON", format)
				}
			case "rdjsonl":
				for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
					if l != "" && !json.Valid([]byte(l)) {
						t.Fatalf("rdjsonl: invalid line %q", l)
					}
				}
			case "checkstyle", "junit":
				var v any
				if err := xml.Unmarshal(buf.Bytes(), &v); err != nil {
					t.Fatalf("%s: %v", format, err)
				}
			default: // text, github, markdown
				if c, bad := unsafeIn(out, true); bad {
					t.Fatalf("%s: %U in output", format, c)
				}
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") && (format != "github" || !githubCommandRe.MatchString(l)) {
						t.Fatalf("%s: line %q is a workflow command", format, l)
					}
					if strings.Contains(l, "##[") {
						t.Fatalf("%s: line %q holds ##[", format, l)
					}
				}
				if format == "github" && strings.Count(out, "\n") != 1 {
					t.Fatalf("github: %d lines for one finding", strings.Count(out, "\n"))
				}
				if format == "markdown" && strings.Contains(strings.ReplaceAll(out, "@&#8203;", ""), "@") {
					t.Fatalf("markdown: a mention survives")
				}
			}
		}
	})
}
