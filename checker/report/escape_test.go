package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/url"
	"path"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// HostileNames are file names and values a repository can hold, each aimed at one consumer
// of the outputs: GitHub's log command parser, terminals, Markdown renderers, SARIF viewers.
// Every escaping function and every format is tested with all of them; the command line's
// tests create files with these names.
var HostileNames = []string{
	"x\n::stop-commands::h1de\n.yaml",
	"::error::pwned.yaml",
	"  ::warning file=x::y.yaml",
	"\t::notice::tab.yaml",
	"esc\x1b[2J\x1b]0;title\x07.yaml",
	"bidi\u202eslm.yaml",
	"iso\u2066x\u2069 lrm\u200e.yaml",
	"md)@octocat **bold** (x.yaml",
	"[link](https://evil.example).yaml",
	"<img src=x onerror=alert(1)>.yaml",
	"##[set-output name=x;]y.yaml",
	"percent%0A::error::x%25.yaml",
	"comma,colon:x=y.yaml",
	"cr\rline.yaml",
	"del\x7f c1\u0085\u009b.yaml",
	"ls\u2028ps\u2029bom\ufeff.yaml",
	"#1 issue &lt; entity.yaml",
	"back\\slash\\[x\\].yaml",
	"invalid\xff\xfe.yaml",
	"|table|cell|_under_~strike~.yaml",
	"..x.yaml",
	"-x.yaml",
}

// unsafeIn returns the first character of s that no escaped output may carry.
func unsafeIn(s string, allowNewline bool) (rune, bool) {
	for _, r := range s {
		if r == '\n' && allowNewline {
			continue
		}
		if unsafeRune(r) {
			return r, true
		}
	}
	return 0, false
}

func TestEscapeFunctions(t *testing.T) {
	for _, name := range HostileNames {
		for fn, esc := range map[string]func(string) string{
			"Terminal": Terminal, "TerminalLine": TerminalLine, "GitHubData": GitHubData,
			"GitHubProperty": GitHubProperty, "Markdown": Markdown, "SARIFText": SARIFText,
		} {
			got := esc(name)
			if r, bad := unsafeIn(got, fn == "SARIFText"); bad {
				t.Errorf("%s(%q) = %q keeps %U", fn, name, got, r)
			}
			if !utf8.ValidString(got) {
				t.Errorf("%s(%q) = %q is not UTF-8", fn, name, got)
			}
			if strings.Contains(got, "##[") {
				t.Errorf("%s(%q) = %q keeps a ##[ command", fn, name, got)
			}
		}
		if l := TerminalLine(name); strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") {
			t.Errorf("TerminalLine(%q) = %q starts a workflow command", name, l)
		}
		for _, l := range strings.Split(TerminalLines("a\n"+name), "\n") {
			if strings.HasPrefix(strings.TrimLeft(l, " \t"), "::") {
				t.Errorf("TerminalLines(%q) has line %q", name, l)
			}
		}
		for _, fn := range []func(string) string{GitHubData, GitHubProperty} {
			if got := fn(name); strings.ContainsAny(got, "\r\n") {
				t.Errorf("GitHub escape of %q = %q keeps a line break", name, got)
			}
		}
		if got := GitHubProperty(name); strings.ContainsAny(got, ",:") {
			t.Errorf("GitHubProperty(%q) = %q keeps a delimiter", name, got)
		}
		md := Markdown(name)
		if regexp.MustCompile(`@[^&]`).MatchString(md) || regexp.MustCompile(`(^|[^\\])[\[\]<>*_|`+"`"+`]`).MatchString(md) {
			t.Errorf("Markdown(%q) = %q keeps markup", name, md)
		}
		if u := MarkdownURL("https://x.example/blob/" + name); strings.ContainsAny(u, "()<> *@[]\\\"'`") {
			t.Errorf("MarkdownURL(%q) = %q", name, u)
		}
		if s := SARIFText(name); regexp.MustCompile(`(^|[^\\])[\[\]]`).MatchString(s) {
			t.Errorf("SARIFText(%q) = %q keeps a link bracket", name, s)
		}
	}
	// Safe text passes unchanged where the format allows it.
	for _, s := range []string{"mode ipvs", "deploy/kube-proxy.yaml:3:7", "日本語 ü"} {
		if Terminal(s) != s || GitHubData(s) != s || SARIFText(s) != s {
			t.Errorf("plain %q changed", s)
		}
	}
	if got := Terminal("a\x1bb\u202ec\xff"); got != `a\x1bb\u202ec\xff` {
		t.Errorf("Terminal = %q", got)
	}
}

// hostileResult is a result whose file names, messages, notes and rule URL are all hostile.
func hostileResult() *Result {
	rule := &checker.Rule{ID: "ORG001", Name: "org-rule", Severity: checker.SeverityError,
		Doc:    checker.Doc{Title: "t", Why: "w"},
		DocURL: "https://x.example/a)(b*c@d'e"}
	r := &Result{Rules: []*checker.Rule{rule}, SourceRoot: "/repo",
		Target: checker.Target{Version: checker.Version{Major: 1, Minor: 40}, Source: HostileNames[0]}}
	for i, name := range HostileNames {
		pos := checker.Position{Filename: name, Line: 1, Column: 1, Offset: 0}
		r.Findings = append(r.Findings, checker.Finding{
			RuleID: "ORG001", RuleName: "org-rule", Severity: checker.Severity(1 + i%3),
			Message: "value " + name, Pos: pos, End: checker.Position{Filename: name, Line: 1, Column: 3, Offset: 2},
			Related: []checker.Related{{Pos: pos, Message: "note " + name}},
			Fixes:   []checker.Fix{{Message: "fix " + name}},
		})
		r.Problems = append(r.Problems, checker.LoadProblem{Pos: pos, Message: "problem " + name})
		r.Notes = append(r.Notes, checker.Note{Pos: &pos, Message: "note " + name})
	}
	r.Source = func(string) []byte { return []byte("::error::from source\u202e\x1b[1m\n") }
	return r
}

// TestEscapingHostileNames runs every format over the hostile table and checks what each
// consumer would make of it.
func TestEscapingHostileNames(t *testing.T) {
	r := hostileResult()
	for _, name := range Formats() {
		if strings.HasPrefix(name, "report-") {
			continue // the readiness report: its texts go through the same functions
		}
		out := format(t, name, Options{LinkBase: "https://github.com/o/r/blob/abc/"}, r)
		s := string(out)
		switch name {
		case "text", "github", "markdown":
			if c, bad := unsafeIn(s, true); bad {
				t.Errorf("%s output keeps %U", name, c)
			}
			for _, l := range strings.Split(s, "\n") {
				trimmed := strings.TrimLeft(l, " \t")
				if strings.HasPrefix(trimmed, "::") && name != "github" {
					t.Errorf("%s output line %q is a workflow command", name, l)
				}
				if strings.Contains(l, "##[") {
					t.Errorf("%s output line %q holds a ##[ command", name, l)
				}
			}
		}
		switch name {
		case "text":
			// One line per finding, two for its source, one note, one fix; a blank line and
			// the summary.
			if got, want := strings.Count(s, "\n"), len(r.Findings)*5+2; got != want {
				t.Errorf("text: %d lines, want %d:\n%s", got, want, s)
			}
		case "github":
			lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
			if len(lines) != len(r.Findings) {
				t.Fatalf("github: %d lines for %d findings:\n%s", len(lines), len(r.Findings), s)
			}
			cmd := regexp.MustCompile(`^::(error|warning|notice) ([^:]*)::(.*)$`)
			for i, l := range lines {
				m := cmd.FindStringSubmatch(l)
				if m == nil {
					t.Errorf("github: line %q is not one workflow command", l)
					continue
				}
				props := map[string]string{}
				for _, p := range strings.Split(m[2], ",") {
					k, v, ok := strings.Cut(p, "=")
					if !ok || props[k] != "" {
						t.Errorf("github: property %q in %q", p, l)
					}
					props[k] = strings.NewReplacer("%3A", ":", "%2C", ",", "%0A", "\n", "%0D", "\r", "%25", "%").Replace(v)
				}
				want := r.Findings[i].Pos.Filename
				if _, bad := unsafeIn(want, false); props["file"] != want && !bad && utf8.ValidString(want) && !strings.Contains(want, "##[") {
					t.Errorf("github: file property decodes to %q, want %q", props["file"], want)
				}
			}
		case "markdown":
			for _, n := range HostileNames {
				if !strings.Contains(s, "\n### "+Markdown(n)+"\n") {
					t.Errorf("markdown: no heading %q", Markdown(n))
				}
			}
			if regexp.MustCompile(`@[^&]`).MatchString(s) {
				t.Errorf("markdown: a mention survives in\n%s", s)
			}
			for _, link := range regexp.MustCompile(`\]\(([^)]*)\)`).FindAllStringSubmatch(s, -1) {
				u, err := url.Parse(link[1])
				if err != nil || (u.Scheme != "https") || strings.ContainsAny(link[1], "()<> *@") {
					t.Errorf("markdown: link destination %q", link[1])
				}
			}
		case "sarif":
			var log struct {
				Runs []struct {
					Tool struct {
						Driver struct {
							Rules []struct {
								HelpURI string `json:"helpUri"`
							} `json:"rules"`
						} `json:"driver"`
					} `json:"tool"`
					Results []struct {
						Message struct {
							Text string `json:"text"`
						} `json:"message"`
						Locations []struct {
							PhysicalLocation struct {
								ArtifactLocation struct {
									URI string `json:"uri"`
								} `json:"artifactLocation"`
							} `json:"physicalLocation"`
						} `json:"locations"`
					} `json:"results"`
				} `json:"runs"`
			}
			if err := json.Unmarshal(out, &log); err != nil {
				t.Fatalf("sarif: %v", err)
			}
			for i, res := range log.Runs[0].Results {
				if c, bad := unsafeIn(res.Message.Text, true); bad {
					t.Errorf("sarif: message %q keeps %U", res.Message.Text, c)
				}
				// The links to related locations, [text](id), are the only brackets left
				// unescaped; their text escapes its own.
				text := regexp.MustCompile(`\[(?:[^\[\]\\]|\\.)*\]\([0-9]+\)`).ReplaceAllString(res.Message.Text, "")
				if regexp.MustCompile(`(^|[^\\])[\[\]]`).MatchString(text) {
					t.Errorf("sarif: message %q holds an unescaped link bracket", res.Message.Text)
				}
				uri := res.Locations[0].PhysicalLocation.ArtifactLocation.URI
				u, err := url.Parse(uri)
				want := path.Clean(r.Findings[i].Pos.Filename)
				if err != nil || u.Scheme != "" || u.Path != want && utf8.ValidString(want) {
					t.Errorf("sarif: uri %q of %q (%v)", uri, r.Findings[i].Pos.Filename, err)
				}
			}
			for _, rule := range log.Runs[0].Tool.Driver.Rules {
				if u, err := url.Parse(rule.HelpURI); err != nil || u.Scheme != "https" {
					t.Errorf("sarif: helpUri %q", rule.HelpURI)
				}
			}
		case "json":
			var doc struct {
				Findings []struct {
					Pos struct {
						File string `json:"file"`
					} `json:"pos"`
				} `json:"findings"`
			}
			if err := json.Unmarshal(out, &doc); err != nil {
				t.Fatalf("json: %v", err)
			}
			for i, f := range doc.Findings {
				// JSON carries names exactly (invalid UTF-8 aside): it is data, not display.
				if want := r.Findings[i].Pos.Filename; f.Pos.File != want && utf8.ValidString(want) {
					t.Errorf("json: file %q, want %q", f.Pos.File, want)
				}
			}
		case "rdjson", "rdjsonl":
			dec := json.NewDecoder(bytes.NewReader(out))
			for dec.More() {
				var v any
				if err := dec.Decode(&v); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
			}
		case "checkstyle":
			var v any
			if err := xml.Unmarshal(out, &v); err != nil {
				t.Errorf("checkstyle: %v", err)
			}
		}
	}
}
