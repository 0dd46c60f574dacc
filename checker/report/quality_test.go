package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// qualityGoldenCases are the CI code-quality and test-report formats (issue 12).
var qualityGoldenCases = []struct {
	golden string
	format string
}{
	{"codeclimate.golden", "codeclimate"},
	{"junit.golden", "junit"},
	{"sonarqube.golden", "sonarqube"},
}

func TestQualityGolden(t *testing.T) {
	for _, tc := range qualityGoldenCases {
		t.Run(tc.golden, func(t *testing.T) {
			got := format(t, tc.format, Options{}, testResult(t))
			path := filepath.Join(fixtureDir, tc.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run go test -update to accept):\n%s", path, got)
			}
		})
	}
}

// schemaValidator compiles a JSON schema of fixtures/report.
func schemaValidator(t *testing.T, file string) *jsonschema.Schema {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(fixtureDir, file))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource(file, doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile(file)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func validateJSON(t *testing.T, s *jsonschema.Schema, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("does not match the schema: %v\n%s", err, out)
	}
}

// TestCodeClimate: GitLab's Code Quality fields, unique fingerprints, severities, and an empty
// array for a clean run.
func TestCodeClimate(t *testing.T) {
	s := schemaValidator(t, "codeclimate-schema.json")
	r := testResult(t)
	out := format(t, "codeclimate", Options{}, r)
	validateJSON(t, s, out)
	var issues []ccIssue
	if err := json.Unmarshal(out, &issues); err != nil {
		t.Fatal(err)
	}
	if len(issues) != len(r.Findings) {
		t.Errorf("%d issues for %d findings", len(issues), len(r.Findings))
	}
	seen := map[string]bool{}
	for _, is := range issues {
		if seen[is.Fingerprint] {
			t.Errorf("duplicate fingerprint %s", is.Fingerprint)
		}
		seen[is.Fingerprint] = true
	}
	if issues[0].Severity != "critical" || issues[0].Location.Positions == nil || issues[0].Location.Positions.Begin.Line != r.Findings[0].Pos.Line {
		t.Errorf("first issue: %+v", issues[0])
	}
	// Two identical findings get two fingerprints; an internal finding is left out.
	dup := *r
	dup.Findings = append([]checker.Finding{r.Findings[0], r.Findings[0], {RuleID: "KP101", Internal: true, Message: "internal error"}}, r.Findings[1:]...)
	out = format(t, "codeclimate", Options{}, &dup)
	validateJSON(t, s, out)
	if err := json.Unmarshal(out, &issues); err != nil || len(issues) != len(r.Findings)+1 || issues[0].Fingerprint == issues[1].Fingerprint {
		t.Errorf("duplicates: %v %d issues", err, len(issues))
	}
	clean := format(t, "codeclimate", Options{}, &Result{})
	validateJSON(t, s, clean)
	if strings.TrimSpace(string(clean)) != "[]" {
		t.Errorf("clean run: %s", clean)
	}
}

// TestSonarQube: the generic issue format's fields, and text ranges SonarQube accepts: within
// the line, columns in UTF-16 code units from 0.
func TestSonarQube(t *testing.T) {
	s := schemaValidator(t, "sonarqube-generic-issues-schema.json")
	r := testResult(t)
	out := format(t, "sonarqube", Options{}, r)
	validateJSON(t, s, out)
	var rep sqReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatal(err)
	}
	rules := map[string]sqRule{}
	for _, rule := range rep.Rules {
		rules[rule.ID] = rule
	}
	src := newSources(r.Source)
	for _, is := range rep.Issues.Items {
		if _, ok := rules[is.RuleID]; !ok {
			t.Errorf("issue of rule %s without a rule", is.RuleID)
		}
		for _, loc := range append([]sqLocation{is.PrimaryLocation}, is.SecondaryLocations...) {
			tr := loc.TextRange
			if tr == nil || tr.StartColumn == nil {
				continue
			}
			f := src.file(loc.FilePath)
			if f == nil {
				t.Fatalf("columns for %s without its content", loc.FilePath)
			}
			lineLen := func(n int) int {
				line := string(f.content[f.index.LineStart(n):f.index.LineStart(n+1)])
				return len(utf16.Encode([]rune(strings.TrimRight(line, "\r\n"))))
			}
			if *tr.StartColumn > lineLen(tr.StartLine) || *tr.EndColumn > lineLen(tr.EndLine) {
				t.Errorf("%s: range %+v beyond its lines", loc.FilePath, *tr)
			}
		}
	}
	// KP102 has an error and a warning in the fixture: the rule's impact is the highest.
	if rules["KP102"].Impacts[0].Severity != "HIGH" || rules["KP204"].Impacts[0].Severity != "LOW" {
		t.Errorf("impacts: %+v", rep.Rules)
	}
	// The KP204 finding in the ConfigMap: "lc" after "scheduler: " inside the block scalar.
	for _, is := range rep.Issues.Items {
		if is.RuleID == "KP204" {
			tr := is.PrimaryLocation.TextRange
			if tr == nil || tr.StartColumn == nil || *tr.StartColumn != r.Findings[2].Pos.Column-1 || *tr.EndColumn != *tr.StartColumn+2 {
				t.Errorf("KP204 range: %+v", tr)
			}
		}
	}
	clean := format(t, "sonarqube", Options{}, &Result{})
	validateJSON(t, s, clean)
}

// TestUTF16Column: a character outside the BMP counts two columns, as in Java strings.
func TestUTF16Column(t *testing.T) {
	content := []byte("a: \"🙂é\" x\n")
	src := newSources(func(string) []byte { return content })
	idx := text.NewLineIndex(content)
	off := strings.Index(string(content), "x")
	col, ok := utf16Column(idx.Position("f", off), src)
	if !ok || col != 9 {
		t.Errorf("column of x = %d %v, want 9 (a, :, space, quote, 2 for the emoji, é, quote, space)", col, ok)
	}
}

// TestJUnit: the counts add up, each finding is a failed test case named after its rule, a
// broken rule is an error, and a clean run is one passing case.
func TestJUnit(t *testing.T) {
	r := testResult(t)
	r.Findings = append(r.Findings, checker.Finding{RuleID: "KP101", RuleName: "mode-unset", Internal: true, Severity: checker.SeverityError, Message: "internal error: boom"})
	out := format(t, "junit", Options{}, r)
	var root juSuites
	if err := xml.Unmarshal(out, &root); err != nil {
		t.Fatalf("not XML: %v\n%s", err, out)
	}
	tests, failures, errs := 0, 0, 0
	for _, s := range root.Suites {
		if s.Tests != len(s.Cases) {
			t.Errorf("suite %s: tests=%d, %d cases", s.Name, s.Tests, len(s.Cases))
		}
		for _, c := range s.Cases {
			tests++
			if c.Failure != nil {
				failures++
			}
			if c.Error != nil {
				errs++
			}
			if !strings.HasPrefix(c.Name, "KP") {
				t.Errorf("case name %q does not start with the rule", c.Name)
			}
		}
	}
	if root.Tests != tests || root.Failures != failures || root.Errors != errs || tests != len(r.Findings) || errs != 1 {
		t.Errorf("counts: root %d/%d/%d, cases %d/%d/%d, findings %d", root.Tests, root.Failures, root.Errors, tests, failures, errs, len(r.Findings))
	}
	clean := format(t, "junit", Options{}, &Result{})
	root = juSuites{}
	if err := xml.Unmarshal(clean, &root); err != nil || root.Tests != 1 || root.Failures != 0 || len(root.Suites) != 1 || root.Suites[0].Cases[0].Failure != nil {
		t.Errorf("clean run: %v\n%s", err, clean)
	}
}
