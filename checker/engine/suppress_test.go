package engine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// loadFiles writes files to a temporary directory and loads it.
func loadFiles(t *testing.T, files map[string]string) *checker.Workspace {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// lineRule reports msg at the start of each line of file that contains needle, with the
// object of the document when there is one.
func lineRule(id, name, file, needle string) *checker.Rule {
	return rule(id, name, func(p *checker.Pass) error {
		for _, f := range p.Workspace.Files {
			if f.Path != file {
				continue
			}
			for l := 1; l <= f.Lines.Lines(); l++ {
				if strings.Contains(f.Lines.LineText(l), needle) {
					pos := f.Lines.Position(f.Path, f.Lines.LineStart(l))
					var obj *checker.ObjectRef
					for _, d := range f.Docs {
						if d.Node != nil && d.Node.Line <= l {
							obj = d.Ref()
						}
					}
					p.Report(checker.Finding{Message: needle + " here", Pos: pos, Object: obj})
				}
			}
		}
		return nil
	})
}

func kp900() *checker.Rule {
	return rule(checker.SuppressionRuleID, "suppression-invalid", func(*checker.Pass) error { return nil })
}

const suppressYAML = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
data:
  config.conf: |-
    kind: KubeProxyConfiguration
    # kube-proxy-lint:ignore KP102 -- inside the block scalar, on the line above
    # an unrelated comment between directive and line
    mode: ipvs
    clusterCIDR: 10.0.0.0/8 # kube-proxy-lint:ignore flag-ignored, KP102 -- trailing, by name
    bindAddress: 0.0.0.0
    # kube-proxy-lint:ignore KP102 -- nothing to suppress on the next line
    metricsBindAddress: 0.0.0.0
    # kube-proxy-lint:ignore KP102 until=2000-01-01 -- expired
    healthzBindAddress: 0.0.0.0
    # kube-proxy-lint:ignore KP102
    oomScoreAdj: -999
`

func TestSuppressInline(t *testing.T) {
	ws := loadFiles(t, map[string]string{"cm.yaml": suppressYAML})
	rules := []*checker.Rule{
		lineRule("KP102", "mode-ipvs", "cm.yaml", "mode:"),
		lineRule("KP201", "flag-ignored", "cm.yaml", "clusterCIDR"),
		lineRule("KP202", "other", "cm.yaml", "healthz"),
		lineRule("KP203", "more", "cm.yaml", "oomScoreAdj"),
		kp900(),
	}
	now := func() time.Time { return time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC) }
	out, err := RunWith(context.Background(), ws, rules, Processing{Now: now})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		// Trailing comment names KP102 too, which found nothing on that line.
		"cm.yaml:11:29 KP900 warning suppression of KP102 (mode-ipvs) matched no finding: remove it",
		"cm.yaml:13:5 KP900 warning suppression of KP102 (mode-ipvs) matched no finding: remove it",
		// The expired directive suppresses nothing and is not "unused" either (KP900's Run
		// reports it as expired); the one without a reason likewise.
		"cm.yaml:16:1 KP202 warning healthz here",
		"cm.yaml:18:1 KP203 warning oomScoreAdj here",
	}
	if got := summary(out.Findings); !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	wantSup := []string{"cm.yaml:10:1 KP102 warning mode: here", "cm.yaml:11:1 KP201 warning clusterCIDR here"}
	if got := summary(out.Suppressed); !reflect.DeepEqual(got, wantSup) {
		t.Errorf("suppressed:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantSup, "\n"))
	}
	s := out.Suppressed[0].Suppressions
	if len(s) != 1 || s[0].Kind != checker.SuppressionInSource || s[0].Justification != "inside the block scalar, on the line above" ||
		s[0].Pos == nil || s[0].Pos.Line != 8 || s[0].Pos.Column != 5 {
		t.Errorf("suppression record = %+v", s)
	}
}

func TestSuppressInlineStrictAndNoKP900(t *testing.T) {
	ws := loadFiles(t, map[string]string{"cm.yaml": suppressYAML})
	rules := []*checker.Rule{lineRule("KP102", "mode-ipvs", "cm.yaml", "mode:"), kp900()}
	out, err := RunWith(context.Background(), ws, rules, Processing{NoInlineSuppressions: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := summary(out.Findings); len(got) != 1 || !strings.Contains(got[0], "KP102") || len(out.Suppressed) != 0 {
		t.Errorf("strict mode: findings %q, suppressed %d; want the KP102 finding alone", got, len(out.Suppressed))
	}
	// Without KP900 in the run, unused suppressions are not reported; they still suppress.
	out, err = RunWith(context.Background(), ws, rules[:1], Processing{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 0 || len(out.Suppressed) != 1 {
		t.Errorf("without KP900: findings %q, suppressed %q", summary(out.Findings), summary(out.Suppressed))
	}
	// A suppression of a rule that did not run is not unused.
	out, err = RunWith(context.Background(), ws, []*checker.Rule{kp900()}, Processing{Registry: rules})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 0 {
		t.Errorf("KP102 not run: findings %q, want none", summary(out.Findings))
	}
}

func TestSuppressFileAndObject(t *testing.T) {
	ws := loadFiles(t, map[string]string{
		"a.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: one
  annotations:
    kube-proxy-lint.io/ignore: |
      KP201: object-wide
      # KP202 is not suppressed: this line is a comment
data:
  x: mode
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: two
data:
  x: mode
`,
		"b.sh": "#!/bin/sh\n# kube-proxy-lint:ignore-file KP201 -- whole script\nkube-proxy --proxy-mode=ipvs # mode\n",
	})
	rules := []*checker.Rule{
		lineRule("KP201", "r1", "a.yaml", "mode"),
		lineRule("KP202", "r2", "a.yaml", "mode"),
		lineRule("KP201", "r1", "b.sh", "mode"),
	}
	rules[2].ID, rules[2].Name = "KP203", "r3"
	out, err := RunWith(context.Background(), ws, rules, Processing{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := summary(out.Suppressed), []string{"a.yaml:10:1 KP201 warning mode here"}; !reflect.DeepEqual(got, want) {
		t.Errorf("suppressed = %q, want %q", got, want)
	}
	var ids []string
	for _, f := range out.Findings {
		ids = append(ids, f.Pos.String()+" "+f.RuleID)
	}
	// b.sh: the file directive names KP201, the finding is KP203; whether b.sh is loaded at
	// all depends on the loader, so only a.yaml is asserted exactly.
	for _, w := range []string{"a.yaml:10:1 KP202", "a.yaml:17:1 KP201", "a.yaml:17:1 KP202"} {
		if !strings.Contains(strings.Join(ids, "\n"), w) {
			t.Errorf("finding %s missing from %q", w, ids)
		}
	}
}

func TestScanDirectivesShell(t *testing.T) {
	c := []byte("#!/bin/sh\n# kube-proxy-lint:ignore-file KP401 -- cleanup of old chains\niptables -F KUBE-SERVICES # kube-proxy-lint:ignore KP401,KP402 until=2027-01-31 -- once\n")
	ws := &checker.Workspace{Files: []*checker.File{{Path: "x.sh", Content: c, Lines: text.NewLineIndex(c)}}}
	ds := checker.ScanDirectives(ws)
	if len(ds) != 2 {
		t.Fatalf("directives = %+v", ds)
	}
	if d := ds[0]; d.Scope != checker.ScopeFile || d.Reason != "cleanup of old chains" || d.Pos.Line != 2 || d.Pos.Column != 1 {
		t.Errorf("file directive = %+v", d)
	}
	d := ds[1]
	if d.Scope != checker.ScopeLine || d.Line != 3 || !reflect.DeepEqual(d.Rules, []string{"KP401", "KP402"}) ||
		d.Until != "2027-01-31" || d.Reason != "once" || d.Pos.Column != 27 {
		t.Errorf("line directive = %+v", d)
	}
	if d.Expired(time.Date(2027, 1, 31, 23, 0, 0, 0, time.UTC)) || !d.Expired(time.Date(2027, 2, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("until is the last day the suppression applies")
	}
}

// TestUnusedSuppressionFix checks the fix of a suppression that matched nothing: the whole
// line of a comment that stands alone, the comment and the blanks before it when it trails,
// and no fix when one of the comment's rules matched.
func TestUnusedSuppressionFix(t *testing.T) {
	src := "a: 1 # kube-proxy-lint:ignore KP102 -- trailing, unused\n" +
		"# kube-proxy-lint:ignore KP102 -- alone, unused\n" +
		"b: 2\n" +
		"c: 3 # kube-proxy-lint:ignore KP102,KP202 -- KP202 matched\n"
	ws := loadFiles(t, map[string]string{"x.yaml": src})
	rules := []*checker.Rule{lineRule("KP102", "mode-ipvs", "x.yaml", "nothing"), lineRule("KP202", "other", "x.yaml", "c: 3"), kp900()}
	out, err := RunWith(context.Background(), ws, rules, Processing{})
	if err != nil {
		t.Fatal(err)
	}
	var edits []checker.TextEdit
	fixes := map[int]int{}
	for _, f := range out.Findings {
		if f.RuleID != checker.SuppressionRuleID {
			continue
		}
		fixes[f.Pos.Line] = len(f.Fixes)
		for _, fx := range f.Fixes {
			if fx.Safety != checker.Safe || !fx.Preferred {
				t.Errorf("%s: fix %+v is not safe and preferred", f.Pos, fx)
			}
			edits = append(edits, fx.Edits...)
		}
	}
	if want := map[int]int{1: 1, 2: 1, 4: 0}; !reflect.DeepEqual(fixes, want) {
		t.Errorf("fixes per line %v, want %v", fixes, want)
	}
	got, err := checker.ApplyEdits([]byte(src), edits)
	if err != nil {
		t.Fatal(err)
	}
	if want := "a: 1\nb: 2\nc: 3 # kube-proxy-lint:ignore KP102,KP202 -- KP202 matched\n"; string(got) != want {
		t.Errorf("fixed:\n%s\nwant:\n%s", got, want)
	}
}
