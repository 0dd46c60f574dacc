package engine

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

func TestPipelineOrder(t *testing.T) {
	want := []string{"run rules", "drop disabled", "inline suppressions", "quiet replaced", "exclusions", "skip paths",
		"severity overrides", "cap test paths", "dedupe", "baseline", "new from rev", "sort"}
	if got := Steps(); !reflect.DeepEqual(got, want) {
		t.Fatalf("pipeline steps = %q, want %q", got, want)
	}
}

// workspace builds a workspace of files named names, each with a few lines.
func workspace(names ...string) *checker.Workspace {
	ws := &checker.Workspace{Root: "/repo", Target: checker.Target{Version: checker.DefaultTarget, Source: "default"}}
	for _, n := range names {
		c := []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n")
		ws.Files = append(ws.Files, &checker.File{Path: n, Content: c, Lines: text.NewLineIndex(c), Format: checker.FormatYAML})
	}
	return ws
}

func rule(id, name string, run func(*checker.Pass) error) *checker.Rule {
	return &checker.Rule{
		ID: id, Name: name, Severity: checker.SeverityWarning, Run: run,
		Doc: checker.Doc{Title: "t", Why: "w", Remediation: "r", Since: "v0.1.0"},
	}
}

// at reports msg at line of file.
func at(p *checker.Pass, file string, line int, msg string) {
	p.Report(checker.Finding{Message: msg, Pos: checker.Position{Filename: file, Line: line, Column: 1}})
}

func TestRunFindings(t *testing.T) {
	ws := workspace("a.yaml", "b.yaml")
	r1 := rule("KP101", "one", func(p *checker.Pass) error {
		at(p, "b.yaml", 2, "second")
		at(p, "a.yaml", 3, "first")
		at(p, "a.yaml", 3, "first") // duplicate
		p.Report(checker.Finding{Severity: checker.SeverityError, Message: "explicit", Pos: checker.Position{Filename: "a.yaml", Line: 1, Column: 1}})
		return nil
	})
	r2 := rule("KP102", "two", func(p *checker.Pass) error {
		at(p, "a.yaml", 3, "first") // same place and message as KP101: not a duplicate
		return nil
	})
	out, err := Run(context.Background(), ws, []*checker.Rule{r1, r2})
	if err != nil {
		t.Fatal(err)
	}
	got := summary(out.Findings)
	want := []string{
		"a.yaml:1:1 KP101 error explicit",
		"a.yaml:3:1 KP101 warning first",
		"a.yaml:3:1 KP102 warning first",
		"b.yaml:2:1 KP101 warning second",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out.InternalErrors != 0 || len(out.Failures) != 0 {
		t.Errorf("internal errors = %d, failures = %v; want none", out.InternalErrors, out.Failures)
	}
	if f := out.Findings[0]; f.RuleName != "one" || f.End != f.Pos {
		t.Errorf("pass did not fill rule name and end: %+v", f)
	}
}

func summary(fs []checker.Finding) []string {
	var s []string
	for _, f := range fs {
		internal := ""
		if f.Internal {
			internal = " internal"
		}
		s = append(s, fmt.Sprintf("%s %s %s%s %s", f.Pos, f.RuleID, f.Severity, internal, f.Message))
	}
	return s
}

func TestRunPanicAndError(t *testing.T) {
	ws := workspace("a.yaml", "b.yaml")
	rules := []*checker.Rule{
		rule("KP001", "panics", func(p *checker.Pass) error {
			at(p, "b.yaml", 4, "before the panic")
			var s []int
			_ = s[len(p.Workspace.Files)] // an index out of range, as a real bug would be
			return nil
		}),
		rule("KP002", "fails", func(*checker.Pass) error { return errors.New("no luck") }),
		rule("KP003", "works", func(p *checker.Pass) error { at(p, "a.yaml", 2, "fine"); return nil }),
		rule("KP004", "no-run", nil),
	}
	out, err := Run(context.Background(), ws, rules)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"a.yaml:1:1 KP001 error internal internal error: rule panicked: runtime error: index out of range [2] with length 0",
		"a.yaml:1:1 KP002 error internal internal error: rule failed: no luck",
		"a.yaml:1:1 KP004 error internal internal error: rule failed: no Run function",
		"a.yaml:2:1 KP003 warning fine",
		"b.yaml:4:1 KP001 warning before the panic",
	}
	got := summary(out.Findings)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out.InternalErrors != 3 {
		t.Errorf("InternalErrors = %d, want 3", out.InternalErrors)
	}
	if len(out.Failures) != 3 || out.Failures[0].Rule.ID != "KP001" || len(out.Failures[0].Stack) == 0 {
		t.Fatalf("failures = %+v; want KP001 (with stack), KP002, KP004", out.Failures)
	}
	if !strings.Contains(string(out.Failures[0].Stack), "TestRunPanicAndError") {
		t.Errorf("panic stack does not show the rule's frame:\n%s", out.Failures[0].Stack)
	}
	if out.Failures[1].Stack != nil {
		t.Errorf("returned error has a stack")
	}
}

func TestRunPanicEmptyWorkspace(t *testing.T) {
	out, err := Run(context.Background(), workspace(), []*checker.Rule{
		rule("KP001", "panics", func(*checker.Pass) error { panic("boom") }),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 1 || !out.Findings[0].Internal || out.Findings[0].Pos.IsValid() ||
		out.Findings[0].Message != "internal error: rule panicked: boom" {
		t.Fatalf("findings = %+v", out.Findings)
	}
}

func TestRunSkipsVirtualFilesForInternalPosition(t *testing.T) {
	ws := workspace("b.yaml")
	virt := &checker.File{Path: "a.yaml#data.config.conf", Parent: ws.Files[0]}
	ws.Files = append([]*checker.File{virt}, ws.Files...)
	out, err := Run(context.Background(), ws, []*checker.Rule{rule("KP001", "panics", func(*checker.Pass) error { panic("x") })})
	if err != nil {
		t.Fatal(err)
	}
	if got := out.Findings[0].Pos.Filename; got != "b.yaml" {
		t.Errorf("internal finding in %q, want b.yaml", got)
	}
}

// TestRunDeterministic runs many rules that report from goroutines of their own, in random
// order, and requires the same output each time. Run it with -race.
func TestRunDeterministic(t *testing.T) {
	ws := workspace("a.yaml", "b.yaml", "c.yaml")
	var rules []*checker.Rule
	for i := range 40 {
		rules = append(rules, rule(fmt.Sprintf("KP%03d", i), fmt.Sprintf("r%d", i), func(p *checker.Pass) error {
			var wg sync.WaitGroup
			for j := range 10 {
				wg.Go(func() {
					runtime.Gosched()
					file := ws.Files[j%3].Path
					// Same rule, position and message, different fixes: dedupe must keep the
					// same one every time.
					p.Report(checker.Finding{
						Message: "same", Pos: checker.Position{Filename: file, Line: 1, Column: 1},
						Fixes: []checker.Fix{{Message: fmt.Sprint(j)}},
					})
					p.Report(checker.Finding{Message: fmt.Sprintf("m%d", j), Pos: checker.Position{Filename: file, Line: j + 1, Column: 1}})
				})
			}
			wg.Wait()
			if i%7 == 0 {
				panic(fmt.Sprintf("rule %d", i))
			}
			return nil
		}))
	}
	first, err := Run(context.Background(), ws, rules)
	if err != nil {
		t.Fatal(err)
	}
	if first.InternalErrors != 6 {
		t.Errorf("InternalErrors = %d, want 6", first.InternalErrors)
	}
	for range 20 {
		again, err := Run(context.Background(), ws, rules)
		if err != nil {
			t.Fatal(err)
		}
		// The fixes of deduplicated findings depend on which report came first inside one
		// rule, which is the rule's own business; compare everything else.
		if a, b := summary(first.Findings), summary(again.Findings); !reflect.DeepEqual(a, b) {
			t.Fatalf("output differs between runs:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
		}
	}
}

func TestRunDedupeKeepsFirstInRuleOrder(t *testing.T) {
	ws := workspace("a.yaml")
	r := rule("KP101", "one", func(p *checker.Pass) error {
		for i := range 3 {
			p.Report(checker.Finding{Message: "same", Pos: checker.Position{Filename: "a.yaml", Line: 1, Column: 1},
				Fixes: []checker.Fix{{Message: fmt.Sprint(i)}}})
		}
		return nil
	})
	out, err := Run(context.Background(), ws, []*checker.Rule{r})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 1 || out.Findings[0].Fixes[0].Message != "0" {
		t.Fatalf("findings = %+v, want the first of three", out.Findings)
	}
}

func TestRunCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, workspace("a.yaml"), []*checker.Rule{rule("KP101", "one", func(*checker.Pass) error { return nil })})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if _, err := Run(context.Background(), nil, nil); err == nil {
		t.Fatal("nil workspace: no error")
	}
}

func TestDropDisabled(t *testing.T) {
	st := &state{
		rules: []*checker.Rule{{ID: "KP101"}},
		out: &Outcome{Findings: []checker.Finding{
			{RuleID: "KP101", Message: "kept"}, {RuleID: "KP999", Message: "dropped"},
		}},
	}
	if err := dropDisabled(st); err != nil {
		t.Fatal(err)
	}
	if len(st.out.Findings) != 1 || st.out.Findings[0].Message != "kept" {
		t.Fatalf("findings = %+v", st.out.Findings)
	}
}

func TestNoRules(t *testing.T) {
	out, err := Run(context.Background(), workspace("a.yaml"), nil)
	if err != nil || len(out.Findings) != 0 || out.InternalErrors != 0 {
		t.Fatalf("Run(no rules) = %+v, %v", out, err)
	}
}

// TestCancelStopsRun: a cancelled run returns without waiting for a rule that never checks
// the context (issue 11, item 12); the rule's pass reports the cancellation.
func TestCancelStopsRun(t *testing.T) {
	ws := &checker.Workspace{Root: "."}
	release := make(chan struct{})
	defer close(release)
	sawCancel := make(chan bool, 1)
	started := make(chan struct{})
	stuck := &checker.Rule{ID: "KP999", Name: "stuck", Severity: checker.SeverityError, Run: func(p *checker.Pass) error {
		close(started)
		<-p.Context().Done()
		sawCancel <- p.Cancelled()
		<-release
		return nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, ws, []*checker.Rule{stuck})
		done <- err
	}()
	<-started
	cancel()
	deadline, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run = %v, want context.Canceled", err)
		}
	case <-deadline.Done():
		t.Fatal("a cancelled run waits for a stuck rule")
	}
	if !<-sawCancel {
		t.Error("Pass.Cancelled is false in a cancelled run")
	}
}
