package engine

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

func TestMatchGlob(t *testing.T) {
	for _, tt := range []struct {
		pattern, name string
		want          bool
	}{
		{"clusters/legacy/**", "clusters/legacy/a/b.yaml", true},
		{"clusters/legacy", "clusters/legacy/a/b.yaml", true},
		{"clusters/legacy/", "clusters/legacy/b.yaml", true},
		{"clusters/*/kube-proxy.yaml", "clusters/prod/kube-proxy.yaml", true},
		{"clusters/*/kube-proxy.yaml", "clusters/prod/x/kube-proxy.yaml", false},
		{"*.tmpl.yaml", "deep/dir/a.tmpl.yaml", true},
		{"/a.yaml", "a.yaml", true},
		{"/a.yaml", "sub/a.yaml", false},
		{"**/charts/**", "x/charts/y.yaml", true},
		{"./b/*.yaml", "b/c.yaml", true},
		{"clusters/legacy", "clusters/legacy-2/a.yaml", false},
		{"[", "x", false},
	} {
		if got := MatchGlob(tt.pattern, tt.name); got != tt.want {
			t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

// fixed reports the given findings as the rule's.
func fixed(id, name string, fs ...checker.Finding) *checker.Rule {
	return rule(id, name, func(p *checker.Pass) error {
		for _, f := range fs {
			p.Report(f)
		}
		return nil
	})
}

func find(file string, line int, msg string) checker.Finding {
	return checker.Finding{Message: msg, Pos: checker.Position{Filename: file, Line: line, Column: 1}}
}

func TestExclusionsSkipSeverity(t *testing.T) {
	ws := workspace("clusters/legacy/a.yaml", "clusters/prod/a.yaml", "vendor/x.yaml")
	rules := []*checker.Rule{
		fixed("KP102", "mode-ipvs",
			find("clusters/legacy/a.yaml", 1, "mode ipvs"), find("clusters/prod/a.yaml", 1, "mode ipvs"),
			find("vendor/x.yaml", 1, "mode ipvs")),
		fixed("KP201", "flag-ignored", find("clusters/prod/a.yaml", 2, "--proxy-mode ignored"),
			find("clusters/prod/a.yaml", 3, "--v ignored")),
	}
	pos := checker.Position{Filename: ".kube-proxy-lint.yaml", Line: 4, Column: 5}
	out, err := RunWith(context.Background(), ws, rules, Processing{
		Exclusions: []Exclusion{
			{Rules: []string{"mode-ipvs"}, Paths: []string{"clusters/legacy/**"}, Reason: "decommissioned", Pos: &pos},
			{Message: regexp.MustCompile(`^--proxy-mode`), Reason: "documented"},
		},
		Skip:     []string{"vendor"},
		Severity: map[string]checker.Severity{"KP201": checker.SeverityError},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"clusters/prod/a.yaml:1:1 KP102 warning mode ipvs", "clusters/prod/a.yaml:3:1 KP201 error --v ignored"}
	if got := summary(out.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantSup := []string{"clusters/legacy/a.yaml:1:1 KP102 warning mode ipvs", "clusters/prod/a.yaml:2:1 KP201 error --proxy-mode ignored"}
	if got := summary(out.Suppressed); !reflect.DeepEqual(got, wantSup) {
		t.Errorf("suppressed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantSup, "\n"))
	}
	if s := out.Suppressed[0].Suppressions; len(s) != 1 || s[0].Kind != checker.SuppressionExternal ||
		s[0].Justification != "decommissioned" || s[0].Pos == nil || *s[0].Pos != pos {
		t.Errorf("suppression = %+v", s)
	}
}

func TestBaseline(t *testing.T) {
	ws := workspace("a.yaml", "b.yaml")
	obj := &checker.ObjectRef{Kind: "KubeProxyConfiguration", Document: 0}
	at := func(line int, path checker.Path) checker.Finding {
		f := find("a.yaml", line, "mode ipvs")
		f.Object, f.Path = obj, path
		return f
	}
	before := []checker.Finding{at(3, checker.Path{"mode"}), at(5, checker.Path{"ipvs", "scheduler"}), find("b.yaml", 1, "gone")}
	before[2].RuleID = "KP102"
	for i := range before {
		before[i].RuleID = "KP102"
	}
	bl := NewBaseline(before)
	data, err := bl.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := ParseBaseline(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(parsed, bl) || len(parsed.Entries) != 3 || parsed.Entries[0].File != "a.yaml" {
		t.Fatalf("round trip:\n%s", data)
	}
	// Lines moved (the fingerprint does not depend on them), one finding fixed (b.yaml), one
	// new finding with another path.
	rules := []*checker.Rule{fixed("KP102", "mode-ipvs", at(7, checker.Path{"mode"}), at(9, checker.Path{"ipvs", "scheduler"}),
		at(11, checker.Path{"ipvs", "strictARP"}))}
	out, err := RunWith(context.Background(), ws, rules, Processing{Baseline: parsed})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summary(out.Findings), []string{"a.yaml:11:1 KP102 warning mode ipvs"}; !reflect.DeepEqual(got, want) {
		t.Errorf("findings = %q, want %q", got, want)
	}
	if out.Baselined != 2 || len(out.Notes) != 1 || out.Notes[0].Pos.Filename != "b.yaml" ||
		!strings.Contains(out.Notes[0].Message, "stale baseline entry KP102") {
		t.Errorf("baselined %d, notes %+v", out.Baselined, out.Notes)
	}
	// Files outside the run and rules that did not run make no stale notes.
	out, err = RunWith(context.Background(), ws, rules, Processing{Baseline: parsed, BaselineCovers: func(string) bool { return false }})
	if err != nil || len(out.Notes) != 0 {
		t.Errorf("uncovered file: notes %+v, err %v", out.Notes, err)
	}
	out, err = RunWith(context.Background(), ws, []*checker.Rule{fixed("KP101", "x")}, Processing{Baseline: parsed})
	if err != nil || len(out.Notes) != 0 {
		t.Errorf("rule not run: notes %+v, err %v", out.Notes, err)
	}
	// One entry matches one finding: a second identical finding is reported.
	twice := []*checker.Rule{fixed("KP102", "mode-ipvs", at(1, checker.Path{"mode"}), at(2, checker.Path{"mode"}))}
	twice[0].Run = func(p *checker.Pass) error {
		f := at(1, checker.Path{"mode"})
		p.Report(f)
		f.Message = "other message, same fingerprint"
		f.Pos.Line = 2
		p.Report(f)
		return nil
	}
	out, err = RunWith(context.Background(), ws, twice, Processing{Baseline: NewBaseline(before[:1])})
	if err != nil || len(out.Findings) != 1 {
		t.Errorf("duplicate fingerprint: findings %q, err %v", summary(out.Findings), err)
	}
}

func TestParseBaselineErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{`{"version": 1, "findings": [{"fingerprint": ""}]}`, "entry 1 has no fingerprint"},
		{`{"version": 2, "findings": []}`, "unsupported version 2"},
		{`{"version": 1, "issues": []}`, "unknown field (a baseline has"},
		{`[`, "decode baseline"},
		{`{"version": "S3CR3T"}`, "wrong type of value at byte 20 (want int)"},
		{"S3CR3T", "invalid JSON at byte 1"},
		{`{"S3CR3T": 1}`, "unknown field"},
		{`{"version": 1, "findings": [{"fingerprint": 5}]}`, "wrong type of value"},
	} {
		_, err := ParseBaseline([]byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseBaseline(%s) = %v, want %q", tt.in, err, tt.want)
		}
		// A file planted under the baseline's name must not reach the CI log.
		if err != nil && (strings.Contains(err.Error(), "S3CR3T") || strings.Contains(err.Error(), "issues")) {
			t.Errorf("ParseBaseline(%s) error echoes the content: %v", tt.in, err)
		}
	}
}

func TestCapTestPaths(t *testing.T) {
	mk := func(file string, sev checker.Severity) checker.Finding {
		return checker.Finding{RuleID: "KP101", Severity: sev, Message: "mode is not set", Pos: checker.Position{Filename: file, Line: 3, Column: 1}}
	}
	out := &Outcome{Findings: []checker.Finding{
		mk("clusters/prod/kube-proxy.yaml", checker.SeverityError),
		mk("test/e2e/kube-proxy.yaml", checker.SeverityError),
		mk("pkg/tests/golden.yaml", checker.SeverityInfo),
		mk("hack/fixtures/kind.yaml", checker.SeverityError),
		mk("fixtures/repos/demo/kube-proxy.yaml", checker.SeverityError),
		mk("attest/kube-proxy.yaml", checker.SeverityError),
	}}
	st := &state{out: out, proc: Processing{LintedDirs: []string{"fixtures/repos/demo"}}}
	if err := capTestPaths(st); err != nil {
		t.Fatal(err)
	}
	want := []checker.Severity{checker.SeverityError, checker.SeverityWarning, checker.SeverityInfo, checker.SeverityWarning, checker.SeverityError, checker.SeverityError}
	for i, f := range out.Findings {
		if f.Severity != want[i] {
			t.Errorf("%s: severity %s, want %s", f.Pos.Filename, f.Severity, want[i])
		}
		capped := strings.HasSuffix(f.Message, testPathNote)
		if capped != (i == 1 || i == 3) {
			t.Errorf("%s: message %q", f.Pos.Filename, f.Message)
		}
	}
	// An empty list turns the cap off.
	out = &Outcome{Findings: []checker.Finding{mk("test/kube-proxy.yaml", checker.SeverityError)}}
	st = &state{out: out, proc: Processing{TestDirs: []string{}}}
	_ = capTestPaths(st)
	if out.Findings[0].Severity != checker.SeverityError {
		t.Error("TestDirs: [] still capped")
	}
}
