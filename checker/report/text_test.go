package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

func TestNew(t *testing.T) {
	if got := strings.Join(Formats(), ","); got != "text,json,sarif,github,rdjson,rdjsonl,checkstyle,markdown,codeclimate,junit,sonarqube,report-markdown,report-html,report-json" {
		t.Errorf("Formats() = %s", got)
	}
	for _, name := range append(Formats(), "SARIF", " Json ") {
		if _, err := New(name, Options{}); err != nil {
			t.Errorf("New(%q): %v", name, err)
		}
	}
	_, err := New("xml", Options{})
	if err == nil || !strings.Contains(err.Error(), `"xml"`) || !strings.Contains(err.Error(), "text, json, sarif") {
		t.Errorf("New(xml) error = %v, want the valid names", err)
	}
}

// TestTextQuietWhenClean: no findings, no output, even with load notices.
func TestTextQuietWhenClean(t *testing.T) {
	r := testResult(t)
	r.Findings = nil
	for _, color := range []bool{false, true} {
		if out := format(t, "text", Options{Color: color}, r); len(out) != 0 {
			t.Errorf("clean run printed %q", out)
		}
	}
}

func TestTextWithoutSource(t *testing.T) {
	r := testResult(t)
	r.Source = nil
	out := string(format(t, "text", Options{}, r))
	if strings.Contains(out, "^") {
		t.Errorf("source line shown without Source:\n%s", out)
	}
	if !strings.HasPrefix(out, "cluster clusters/zürich:\nclusters/zürich/kube-proxy.yaml:12:11: error: ") {
		t.Errorf("unexpected output:\n%s", out)
	}
}

func TestTextSanitizesControlCharacters(t *testing.T) {
	r := &Result{Findings: []checker.Finding{{
		RuleID: "KP103", RuleName: "mode-invalid", Severity: checker.SeverityError,
		Message: "mode \x1b[31mred\x1b[0m is not valid",
		Pos:     checker.Position{Filename: "a\x07.yaml", Line: 1, Column: 7},
		End:     checker.Position{Filename: "a\x07.yaml", Line: 1, Column: 10},
	}}, Source: func(string) []byte { return []byte("mode: \x1b[2J\n") }}
	out := string(format(t, "text", Options{}, r))
	if strings.Contains(out, "\x1b") || strings.Contains(out, "\x07") {
		t.Errorf("control characters reach the terminal: %q", out)
	}
}

// caretUnder returns the text of line that the caret's first cell sits under, assuming every
// character of line takes one cell.
func caretUnder(line, caret string) string {
	col := strings.Index(caret, "^")
	rs := []rune(line)
	if col >= len(rs) {
		return ""
	}
	return string(rs[col:])
}

func TestSnippet(t *testing.T) {
	pos := func(line, col int) checker.Position {
		return checker.Position{Filename: "f", Line: line, Column: col}
	}
	long := strings.Repeat("a", 299) + "XYZ" + strings.Repeat("b", 300)
	content := strings.Join([]string{
		"e\u0301X = combining mark", // 1
		"abc",                       // 2
		long,                        // 3
		"",                          // 4
		"\tkey:\tvalue",             // 5
		"東京: x",                     // 6
	}, "\n") + "\n"
	src := newSources(func(name string) []byte {
		if name != "f" {
			return nil
		}
		return []byte(content)
	})

	tests := []struct {
		name             string
		pos, end         checker.Position
		wantText, wantCa string
	}{
		{"combining mark takes no cell", pos(1, 3), pos(1, 4), "e\u0301X = combining mark", " ^"},
		{"past the end of the line", pos(2, 5), pos(2, 5), "abc", "    ^"},
		{"to the end of the line", pos(2, 2), pos(3, 1), "abc", " ^~"},
		{"empty line", pos(4, 1), pos(4, 1), "", "^"},
		{"tabs expand to stops of 8", pos(5, 7), pos(5, 12), "        key:    value", "                ^~~~~"},
		{"wide characters take two cells", pos(6, 5), pos(6, 6), "東京: x", "      ^"},
	}
	for _, tt := range tests {
		text, caret, ok := snippet(src, tt.pos, tt.end)
		if !ok || text != tt.wantText || caret != tt.wantCa {
			t.Errorf("%s: got %q / %q (%v), want %q / %q", tt.name, text, caret, ok, tt.wantText, tt.wantCa)
		}
	}

	// A long line is cut around the span, and the caret still points at it.
	text, caret, ok := snippet(src, pos(3, 300), pos(3, 303))
	if !ok || !strings.HasPrefix(text, "…") || !strings.HasSuffix(text, "…") {
		t.Fatalf("long line not cut: %q", text)
	}
	if w := utf8.RuneCountInString(text); w > maxCells+2 {
		t.Errorf("cut line is %d cells wide", w)
	}
	if got := caretUnder(text, caret); !strings.HasPrefix(got, "XYZ") || !strings.HasSuffix(caret, "^~~") {
		t.Errorf("caret points at %q (caret %q)", got, caret)
	}
	// Near the start of a long line there is no leading ellipsis.
	text, caret, _ = snippet(src, pos(3, 2), pos(3, 3))
	if strings.HasPrefix(text, "…") || caret != " ^" {
		t.Errorf("start of long line: %q / %q", text, caret)
	}

	for _, p := range []checker.Position{pos(0, 1), pos(99, 1), {Filename: "unknown", Line: 1, Column: 1}} {
		if _, _, ok := snippet(src, p, p); ok {
			t.Errorf("snippet(%v) should not exist", p)
		}
	}
}

func TestSummary(t *testing.T) {
	f := &textFormatter{}
	r := &Result{
		Findings: []checker.Finding{{Severity: checker.SeverityWarning}},
		Target:   checker.Target{Version: checker.Version{Major: 1, Minor: 38}, Source: "flag"},
	}
	if got, want := f.summary(r), "1 finding (1 warning) · target 1.38 (from --target-version)"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
	r.Target = checker.Target{Version: checker.DefaultTarget, Source: "default"}
	r.Findings = append(r.Findings, checker.Finding{Severity: checker.SeverityInfo}, checker.Finding{Severity: checker.SeverityInfo})
	if got, want := f.summary(r), "3 findings (1 warning, 2 info) · target 1.40 (default)"; got != want {
		t.Errorf("summary = %q, want %q", got, want)
	}
}

func TestJSONEmptyArrays(t *testing.T) {
	out := format(t, "json", Options{}, &Result{})
	for _, want := range []string{`"findings": []`, `"rules": []`, `"problems": []`, `"version": 1`} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("empty result lacks %s:\n%s", want, out)
		}
	}
}

func TestJSONFingerprints(t *testing.T) {
	r := testResult(t)
	var env struct {
		Findings []struct {
			RuleID      string `json:"ruleId"`
			Fingerprint string `json:"fingerprint"`
		} `json:"findings"`
	}
	if err := json.Unmarshal(format(t, "json", Options{}, r), &env); err != nil {
		t.Fatal(err)
	}
	if len(env.Findings) != len(r.Findings) {
		t.Fatalf("%d findings, want %d", len(env.Findings), len(r.Findings))
	}
	for i, f := range env.Findings {
		if f.RuleID != r.Findings[i].RuleID || f.Fingerprint != r.Findings[i].Fingerprint() {
			t.Errorf("finding %d: %+v", i, f)
		}
	}
}
