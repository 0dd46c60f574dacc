package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// ciGoldenCases are the goldens of the formats for CI and review tools, from the same
// testResult as the other goldens.
var ciGoldenCases = []struct {
	golden string
	format string
	opts   Options
}{
	{"github.golden", "github", Options{}},
	{"rdjson.golden", "rdjson", Options{}},
	{"rdjsonl.golden", "rdjsonl", Options{}},
	{"checkstyle.golden", "checkstyle", Options{}},
	{"markdown.golden", "markdown", Options{}},
	{"markdown-links.golden", "markdown", Options{LinkBase: "https://github.com/example/infra/blob/0123abc/"}},
}

func TestCIGolden(t *testing.T) {
	for _, tc := range ciGoldenCases {
		t.Run(tc.golden, func(t *testing.T) {
			got := format(t, tc.format, tc.opts, testResult(t))
			path := filepath.Join(fixtureDir, tc.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run go test -update to accept):\n%s", path, lineDiff(string(want), string(got)))
			}
			// Same bytes every time, whatever the map order.
			if again := format(t, tc.format, tc.opts, testResult(t)); !bytes.Equal(again, got) {
				t.Errorf("%s output is not deterministic", tc.format)
			}
		})
	}
}

func TestFormatsListed(t *testing.T) {
	for _, name := range []string{"github", "rdjson", "rdjsonl", "checkstyle", "markdown"} {
		if _, err := New(name, Options{}); err != nil {
			t.Errorf("New(%q): %v", name, err)
		}
		found := false
		for _, f := range Formats() {
			found = found || f == name
		}
		if !found {
			t.Errorf("Formats() does not list %q", name)
		}
	}
}

// TestGitHubCommands checks the workflow command syntax the runner parses: properties and
// message escaped as @actions/core escapes them, one command per line.
func TestGitHubCommands(t *testing.T) {
	f := checker.Finding{
		RuleID: "KP102", RuleName: "mode-ipvs", Severity: checker.SeverityError,
		Message: "100% broken, really:\nsecond line",
		Pos:     checker.Position{Filename: "a,b:c.yaml", Line: 3, Column: 5, Offset: 20},
		End:     checker.Position{Filename: "a,b:c.yaml", Line: 3, Column: 9, Offset: 24},
	}
	got := githubCommand(&f)
	want := "::error file=a%2Cb%3Ac.yaml,line=3,col=5,endLine=3,endColumn=8,title=KP102 mode-ipvs::100%25 broken, really:%0Asecond line (KP102 mode-ipvs)"
	if got != want {
		t.Errorf("githubCommand =\n %s\nwant\n %s", got, want)
	}
	f.Severity = checker.SeverityInfo
	f.End = checker.Position{Filename: "a,b:c.yaml", Line: 5, Column: 2}
	got = githubCommand(&f)
	if !strings.HasPrefix(got, "::notice ") || !strings.Contains(got, ",endLine=5,") || strings.Contains(got, "endColumn") {
		t.Errorf("multi-line info finding: %s", got)
	}
	out := format(t, "github", Options{}, testResult(t))
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if !strings.HasPrefix(line, "::error ") && !strings.HasPrefix(line, "::warning ") && !strings.HasPrefix(line, "::notice ") {
			t.Errorf("not a workflow command: %q", line)
		}
	}
}

// rdjsonValidator compiles reviewdog's JSON schema (fixtures/report/rdjson-schema-*.json,
// from reviewdog v0.20.3) in a strict form: reviewdog's schema allows any extra property, so
// additionalProperties is turned off to catch misspelt field names too.
func rdjsonValidator(t testing.TB, file string) *jsonschema.Schema {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(fixtureDir, file))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	strict(doc)
	c := jsonschema.NewCompiler()
	if err := c.AddResource("rdjson.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("rdjson.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func strict(v any) {
	switch x := v.(type) {
	case map[string]any:
		if _, ok := x["properties"]; ok {
			x["additionalProperties"] = false
		} else if x["additionalProperties"] == true {
			// A $ref with a sibling additionalProperties: draft-04 ignores siblings of $ref.
			delete(x, "additionalProperties")
		}
		for _, e := range x {
			strict(e)
		}
	case []any:
		for _, e := range x {
			strict(e)
		}
	}
}

func TestRDJSONMatchesSchema(t *testing.T) {
	out := format(t, "rdjson", Options{}, testResult(t))
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("rdjson output is not JSON: %v", err)
	}
	if err := rdjsonValidator(t, "rdjson-schema-DiagnosticResult.json").Validate(inst); err != nil {
		t.Errorf("rdjson output does not match reviewdog's schema: %v", err)
	}
	line := rdjsonValidator(t, "rdjson-schema-Diagnostic.json")
	out = format(t, "rdjsonl", Options{}, testResult(t))
	sc := bufio.NewScanner(bytes.NewReader(out))
	n := 0
	for sc.Scan() {
		n++
		inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(sc.Bytes()))
		if err != nil {
			t.Fatalf("rdjsonl line %d is not JSON: %v", n, err)
		}
		if err := line.Validate(inst); err != nil {
			t.Errorf("rdjsonl line %d does not match reviewdog's Diagnostic schema: %v", n, err)
		}
	}
	if n != len(testResult(t).Findings) {
		t.Errorf("rdjsonl has %d lines, want one per finding (%d)", n, len(testResult(t).Findings))
	}
}

// TestRDJSONByteColumns checks that columns count UTF-8 bytes, as reviewdog requires, and
// that fixes become suggestions whose range replaces exactly the edited bytes.
func TestRDJSONByteColumns(t *testing.T) {
	content := "name: zürich\nmode: ipvs\n"
	idx := text.NewLineIndex([]byte(content))
	off := strings.Index(content, "ich")
	pos, end := idx.Position("x.yaml", off), idx.Position("x.yaml", off+3)
	modeOff := strings.Index(content, "ipvs")
	r := &Result{
		Findings: []checker.Finding{{
			RuleID: "KP1", Severity: checker.SeverityWarning, Message: "m", Pos: pos, End: end,
			Fixes: []checker.Fix{
				{Message: "same file", Preferred: true, Edits: []checker.TextEdit{{Pos: idx.Position("x.yaml", modeOff), End: idx.Position("x.yaml", modeOff+4), NewText: "nftables"}}},
				{Message: "alternative", Edits: []checker.TextEdit{{Pos: idx.Position("x.yaml", modeOff), End: idx.Position("x.yaml", modeOff+4), NewText: "iptables"}}},
				{Message: "other file", Edits: []checker.TextEdit{{Pos: checker.Position{Filename: "y.yaml"}, End: checker.Position{Filename: "y.yaml"}, NewText: "x"}}},
			},
		}},
		Source: func(string) []byte { return []byte(content) },
	}
	var res rdResult
	if err := json.Unmarshal(format(t, "rdjson", Options{}, r), &res); err != nil {
		t.Fatal(err)
	}
	d := res.Diagnostics.Items[0]
	if pos.Column != 10 || d.Location.Range.Start.Column != 11 || d.Location.Range.End.Column != 14 {
		t.Errorf("code-point column %d, byte range %+v..%+v; want byte columns 11..14", pos.Column, d.Location.Range.Start, d.Location.Range.End)
	}
	if len(d.Suggestions) != 1 {
		t.Fatalf("suggestions = %+v, want only the preferred fix", d.Suggestions)
	}
	s := d.Suggestions[0]
	if s.Text != "nftables" || s.Range.Start != (rdPosition{Line: 2, Column: 7}) || *s.Range.End != (rdPosition{Line: 2, Column: 11}) {
		t.Errorf("suggestion = %+v %+v", s.Range.Start, s.Range.End)
	}
}

// TestCheckstyleIsXML parses the output back: well-formed, every finding present, and
// messages with XML special and control characters survive.
func TestCheckstyleIsXML(t *testing.T) {
	r := testResult(t)
	r.Findings = append(r.Findings, checker.Finding{
		RuleID: "KP103", Severity: checker.SeverityError, Message: `bad <mode> & "quote" ` + "\x01\x1b",
		Pos: checker.Position{Filename: "z.yaml", Line: 1, Column: 1},
	})
	out := format(t, "checkstyle", Options{}, r)
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		_, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("checkstyle output is not well-formed XML: %v\n%s", err, out)
		}
	}
	var root csRoot
	if err := xml.Unmarshal(out, &root); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range root.Files {
		n += len(f.Errors)
		for _, e := range f.Errors {
			if !strings.HasPrefix(e.Source, "kube-proxy-lint.KP") {
				t.Errorf("source %q", e.Source)
			}
		}
	}
	if n != len(r.Findings) {
		t.Errorf("%d errors in XML, want %d", n, len(r.Findings))
	}
	last := root.Files[len(root.Files)-1]
	if last.Name != "z.yaml" || !strings.HasPrefix(last.Errors[0].Message, `bad <mode> & "quote" `) {
		t.Errorf("last file = %+v", last)
	}
}

func TestMarkdownCleanAndEscaping(t *testing.T) {
	r := &Result{Target: checker.Target{Version: checker.Version{Major: 1, Minor: 40}, Source: "default"}}
	out := string(format(t, "markdown", Options{}, r))
	if !strings.Contains(out, "**No findings.**") || !strings.Contains(out, "target 1.40") {
		t.Errorf("clean run:\n%s", out)
	}
	if got := Markdown("@team *bold* <b>|x|</b>\n`code` #12 &amp;"); got != `@&#8203;team \*bold\* \<b\>\|x\|\</b\> \`+"`code\\`"+` \#&#8203;12 &amp;amp;` {
		t.Errorf("Markdown = %s", got)
	}
	// Past the cap, findings are counted, not listed.
	var many []checker.Finding
	for i := range maxMarkdownFindings + 5 {
		many = append(many, checker.Finding{RuleID: "KP101", Severity: checker.SeverityWarning, Message: "m",
			Pos: checker.Position{Filename: "a.yaml", Line: i + 1, Column: 1}})
	}
	out = string(format(t, "markdown", Options{}, &Result{Findings: many}))
	if !strings.Contains(out, "and 5 more findings") || strings.Count(out, "\n- ") != maxMarkdownFindings {
		t.Errorf("cap not applied:\n%s", out[len(out)-300:])
	}
}
