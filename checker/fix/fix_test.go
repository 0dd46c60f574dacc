package fix

import (
	"context"
	"errors"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// fakeRules lint a line at a time, with fixes built to exercise Run:
//
//	unused: X          T1, safe: delete the line
//	mode: ipvs         T2, unsafe: set nftables
//	mode: nftables     T3 when no nodePortAddresses line: unsafe insert (none when "# no-t3-fix")
//	stuck: X           T4, safe: a fix that changes nothing, so its finding stays
//	break: X           T5, safe: writes "!!bad", which the fake loader cannot decode
//	tpl: {{ .X }}      T6, safe: rewrites the line and its placeholder
//	dup: 1             T7a, safe: rewrite the whole line to "dup: 2"
//	dup: <digit>       T7b, safe: set the digit to 3 (overlaps T7a)
//	pair: X            T8, two fixes: unsafe "paired" (preferred), safe delete
var (
	reUnused = regexp.MustCompile(`(?m)^unused: .*\n`)
	reIPVS   = regexp.MustCompile(`(?m)^mode: (ipvs)$`)
	reNFT    = regexp.MustCompile(`(?m)^mode: nftables\r?\n`)
	reStuck  = regexp.MustCompile(`(?m)^stuck: .*$`)
	reBreak  = regexp.MustCompile(`(?m)^break: .*$`)
	reTpl    = regexp.MustCompile(`(?m)^tpl: .*$`)
	reDup1   = regexp.MustCompile(`(?m)^dup: 1$`)
	reDupN   = regexp.MustCompile(`(?m)^dup: ([0-9])$`)
	rePair   = regexp.MustCompile(`(?m)^pair: .*\n`)
)

type fakeTree struct {
	files map[string]string
	lints int
}

func (ft *fakeTree) lint(_ context.Context, overlay map[string][]byte) (*Lint, error) {
	ft.lints++
	files := map[string][]byte{}
	for n, c := range ft.files {
		files[n] = []byte(c)
	}
	for n, c := range overlay {
		files[n] = c
	}
	l := &Lint{Content: func(n string) ([]byte, bool) { b, ok := files[n]; return b, ok }}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		src := files[name]
		idx := text.NewLineIndex(src)
		s := string(src)
		pos := func(off int) checker.Position { return idx.Position(name, off) }
		edit := func(a, b int, text string) checker.TextEdit {
			return checker.TextEdit{Pos: pos(a), End: pos(b), NewText: text}
		}
		add := func(rule string, a, b int, fixes ...checker.Fix) {
			// The key before ":" is the finding's path: its identity across edits.
			ls := idx.LineStart(idx.Position(name, a).Line)
			key, _, _ := strings.Cut(s[ls:], ":")
			// A file's directory is its cluster; top-level files are shared.
			cluster, _, _ := strings.Cut(name, "/")
			if cluster == name {
				cluster = ""
			}
			l.Findings = append(l.Findings, checker.Finding{RuleID: rule, RuleName: strings.ToLower(rule),
				Severity: checker.SeverityWarning, Message: rule + " " + strings.TrimSpace(string(src[a:b])),
				Pos: pos(a), End: pos(b), Path: checker.Path{key}, Fixes: fixes, Cluster: cluster})
		}
		if strings.Contains(s, "!!bad") {
			l.Problems = append(l.Problems, checker.LoadProblem{Pos: pos(strings.Index(s, "!!bad")), Message: "cannot decode", Manifest: true})
			continue
		}
		for _, m := range reUnused.FindAllStringIndex(s, -1) {
			add("T1", m[0], m[1], checker.Fix{Message: "delete", Safety: checker.Safe, Edits: []checker.TextEdit{edit(m[0], m[1], "")}})
		}
		for _, m := range reIPVS.FindAllStringSubmatchIndex(s, -1) {
			add("T2", m[2], m[3], checker.Fix{Message: "nftables", Edits: []checker.TextEdit{edit(m[2], m[3], "nftables")}})
		}
		if !strings.Contains(s, "nodePortAddresses:") {
			for _, m := range reNFT.FindAllStringIndex(s, -1) {
				var fixes []checker.Fix
				if !strings.Contains(s, "# no-t3-fix") {
					fixes = append(fixes, checker.Fix{Message: "primary", Edits: []checker.TextEdit{edit(m[1], m[1], "nodePortAddresses: [primary]\n")}})
				}
				add("T3", m[0], m[0]+len("mode: nftables"), fixes...)
			}
		}
		for _, m := range reStuck.FindAllStringIndex(s, -1) {
			add("T4", m[0], m[1], checker.Fix{Message: "noop", Safety: checker.Safe, Edits: []checker.TextEdit{edit(m[0], m[1], s[m[0]:m[1]])}})
		}
		for _, m := range reBreak.FindAllStringIndex(s, -1) {
			add("T5", m[0], m[1], checker.Fix{Message: "bad", Safety: checker.Safe, Edits: []checker.TextEdit{edit(m[0], m[1], "!!bad")}})
		}
		for _, m := range reTpl.FindAllStringIndex(s, -1) {
			if s[m[0]:m[1]] == "tpl: fixed" {
				continue
			}
			add("T6", m[0], m[1], checker.Fix{Message: "tpl", Safety: checker.Safe, Edits: []checker.TextEdit{edit(m[0], m[1], "tpl: fixed")}})
		}
		for _, m := range reDup1.FindAllStringIndex(s, -1) {
			add("T7a", m[0], m[1], checker.Fix{Message: "two", Safety: checker.Safe, Edits: []checker.TextEdit{edit(m[0], m[1], "dup: 2")}})
		}
		for _, m := range reDupN.FindAllStringSubmatchIndex(s, -1) {
			if s[m[2]:m[3]] != "3" {
				add("T7b", m[2], m[3], checker.Fix{Message: "three", Safety: checker.Safe, Edits: []checker.TextEdit{edit(m[2], m[3], "3")}})
			}
		}
		// T9: an alert on an iptables metric, once any file of the tree runs nftables: a
		// consequence in another file (and, for a shared file, outside every cluster).
		if i := strings.Index(s, "alert: iptables"); i >= 0 && anyNFT(files) {
			add("T9", i, i+len("alert: iptables"))
		}
		for _, m := range rePair.FindAllStringIndex(s, -1) {
			add("T8", m[0], m[1]-1,
				checker.Fix{Message: "paired", Preferred: true, Edits: []checker.TextEdit{edit(m[0], m[1]-1, "paired: yes")}},
				checker.Fix{Message: "delete", Safety: checker.Safe, Edits: []checker.TextEdit{edit(m[0], m[1], "")}})
		}
	}
	checker.SortFindings(l.Findings)
	return l, nil
}

func anyNFT(files map[string][]byte) bool {
	for _, c := range files {
		if reNFT.Match(c) {
			return true
		}
	}
	return false
}

// run lints tree, fixes it and returns the fixed files (changed or not) and the result.
func run(t *testing.T, files map[string]string, opts Options) (map[string]string, *Result) {
	t.Helper()
	return runOnce(t, files, opts, true)
}

func runOnce(t *testing.T, files map[string]string, opts Options, idempotent bool) (map[string]string, *Result) {
	t.Helper()
	ft := &fakeTree{files: files}
	first, _ := ft.lint(context.Background(), nil)
	res, err := Run(context.Background(), first, ft.lint, opts)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for n, c := range files {
		out[n] = c
	}
	for _, c := range res.Files {
		if string(c.Old) != files[c.Name] {
			t.Errorf("%s: Old is not the input", c.Name)
		}
		out[c.Name] = string(c.New)
	}
	if res.Lints != ft.lints-1 {
		t.Errorf("Result.Lints = %d, the linter ran %d times after the first lint", res.Lints, ft.lints-1)
	}
	if !idempotent {
		return out, res
	}
	// Idempotence: fixing the output again changes nothing.
	ft2 := &fakeTree{files: out}
	first2, _ := ft2.lint(context.Background(), nil)
	res2, err := Run(context.Background(), first2, ft2.lint, opts)
	if err != nil {
		t.Fatal(err)
	}
	if res2.Changed() {
		t.Errorf("second run changed %s: %q", res2.Files[0].Name, res2.Files[0].New)
	}
	return out, res
}

func skipped(res *Result) map[string]Reason {
	m := map[string]Reason{}
	for _, s := range res.Skipped {
		m[s.Finding.RuleID] = s.Reason
	}
	return m
}

func TestRunSafeOnly(t *testing.T) {
	out, res := run(t, map[string]string{"a.yaml": "unused: 1\nmode: ipvs\nunused: 2\n"}, Options{})
	if got := out["a.yaml"]; got != "mode: ipvs\n" {
		t.Errorf("got %q", got)
	}
	if len(res.Applied) != 2 || len(res.Unsafe) != 1 || res.Unsafe[0].RuleID != "T2" {
		t.Errorf("applied %d, unsafe %v", len(res.Applied), res.Unsafe)
	}
}

func TestRunUnsafeCascades(t *testing.T) {
	// ipvs -> nftables uncovers T3, whose own (unsafe) fix is applied in the next pass.
	out, res := run(t, map[string]string{"a.yaml": "mode: ipvs\nother: x\n"}, Options{Unsafe: true})
	if got, want := out["a.yaml"], "mode: nftables\nnodePortAddresses: [primary]\nother: x\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if len(res.Applied) != 2 || res.Applied[1].Pass != 2 || res.Applied[1].Finding.RuleID != "T3" {
		t.Errorf("applied %+v", res.Applied)
	}
	if len(res.Final.Findings) != 0 {
		t.Errorf("findings left: %v", res.Final.Findings)
	}
}

func TestRunRollsBackNewFinding(t *testing.T) {
	// Without a fix for T3, the ipvs fix introduces a finding: it is rolled back, the safe
	// fix in the same file stays.
	out, res := run(t, map[string]string{"a.yaml": "# no-t3-fix\nmode: ipvs\nunused: 1\n"}, Options{Unsafe: true})
	if got, want := out["a.yaml"], "# no-t3-fix\nmode: ipvs\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	sk := skipped(res)
	if sk["T2"] != Introduces {
		t.Fatalf("skipped %+v", res.Skipped)
	}
	if d := res.Skipped[0].Detail; !strings.Contains(d, "introduces T3") {
		t.Errorf("detail %q", d)
	}
}

// TestRunFollowUpOutsideCluster: a fix is verified in its own cluster. The ipvs fix in
// prod/ makes a shared alert rule's metric go away: that is a follow-up printed after the fix,
// not a reason to roll it back; the same consequence inside the fix's cluster still is.
func TestRunFollowUpOutsideCluster(t *testing.T) {
	files := map[string]string{
		"prod/a.yaml":  "mode: ipvs\nnodePortAddresses: [all]\n",
		"alerts.yaml":  "alert: iptables\n",
		"other/b.yaml": "x: 1\n",
	}
	out, res := run(t, files, Options{Unsafe: true})
	if got := out["prod/a.yaml"]; got != "mode: nftables\nnodePortAddresses: [all]\n" {
		t.Errorf("fix rolled back: %q (skipped %+v)", got, res.Skipped)
	}
	if len(res.FollowUps) != 1 || res.FollowUps[0].RuleID != "T9" || res.FollowUps[0].Pos.Filename != "alerts.yaml" {
		t.Errorf("follow-ups %+v", res.FollowUps)
	}
	files = map[string]string{
		"prod/a.yaml":      "mode: ipvs\nnodePortAddresses: [all]\n",
		"prod/alerts.yaml": "alert: iptables\n",
	}
	out, res = run(t, files, Options{Unsafe: true})
	if out["prod/a.yaml"] != files["prod/a.yaml"] || skipped(res)["T2"] != Introduces || len(res.FollowUps) != 0 {
		t.Errorf("a consequence in the fix's own cluster must roll it back: %q, skipped %+v, follow-ups %+v", out["prod/a.yaml"], res.Skipped, res.FollowUps)
	}
}

func TestRunRollsBackBrokenFile(t *testing.T) {
	// Found by the lint of the fixed files: every fix of the broken file is rolled back.
	out, res := run(t, map[string]string{"a.yaml": "break: 1\nunused: 1\n", "b.yaml": "unused: 2\n"}, Options{})
	if out["a.yaml"] != "break: 1\nunused: 1\n" || out["b.yaml"] != "" {
		t.Errorf("got %q", out)
	}
	if sk := skipped(res); sk["T5"] != Breaks || sk["T1"] != Breaks {
		t.Errorf("skipped %+v", res.Skipped)
	}
	// Found by parsing each fix alone: only the breaking fix is refused.
	parse := func(_ string, c []byte) []checker.LoadProblem {
		if strings.Contains(string(c), "!!bad") {
			return []checker.LoadProblem{{Message: "cannot decode"}}
		}
		return nil
	}
	out, res = run(t, map[string]string{"a.yaml": "break: 1\nunused: 1\n"}, Options{Parse: parse})
	if out["a.yaml"] != "break: 1\n" {
		t.Errorf("got %q", out)
	}
	if sk := skipped(res); sk["T5"] != Breaks || len(sk) != 1 || !strings.Contains(res.Skipped[0].Detail, "no longer decodes") {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

func TestRunUnresolved(t *testing.T) {
	out, res := run(t, map[string]string{"a.yaml": "stuck: 1\n"}, Options{})
	if out["a.yaml"] != "stuck: 1\n" || res.Changed() {
		t.Errorf("got %q", out)
	}
	if sk := skipped(res); sk["T4"] != Unresolved {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

func TestRunPlaceholder(t *testing.T) {
	out, res := run(t, map[string]string{"a.yaml": "tpl: {{ .Values.x }}\ntpl: plain\n"}, Options{})
	if got, want := out["a.yaml"], "tpl: {{ .Values.x }}\ntpl: fixed\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if sk := skipped(res); sk["T6"] != Placeholder {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

func TestRunConflictFirstWins(t *testing.T) {
	// T7a (whole line) comes first and wins; T7b overlaps it and is retried on the result.
	out, res := run(t, map[string]string{"a.yaml": "dup: 1\n"}, Options{})
	if got := out["a.yaml"]; got != "dup: 3\n" {
		t.Errorf("got %q", got)
	}
	if len(res.Applied) != 2 || res.Applied[0].Finding.RuleID != "T7a" || res.Applied[1].Pass != 2 {
		t.Errorf("applied %+v", res.Applied)
	}
}

func TestRunConflictReported(t *testing.T) {
	// With one pass, the loser of the conflict is reported as not applied.
	out, res := runOnce(t, map[string]string{"a.yaml": "dup: 1\n"}, Options{MaxPasses: 1}, false)
	if out["a.yaml"] != "dup: 2\n" {
		t.Errorf("got %q", out["a.yaml"])
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Finding.RuleID != "T7b" || res.Skipped[0].Reason != Conflict ||
		res.Skipped[0].Detail != "overlaps the fix of T7a at a.yaml:1:1" {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

func TestRunPreferred(t *testing.T) {
	// The preferred fix is unsafe: --fix applies nothing (the safe delete stays a
	// suggestion), --unsafe-fixes applies the preferred one.
	out, res := run(t, map[string]string{"a.yaml": "pair: x\n"}, Options{})
	if out["a.yaml"] != "pair: x\n" || len(res.Unsafe) != 1 {
		t.Errorf("safe: got %q, unsafe %v", out["a.yaml"], res.Unsafe)
	}
	out, _ = run(t, map[string]string{"a.yaml": "pair: x\n"}, Options{Unsafe: true})
	if out["a.yaml"] != "paired: yes\n" {
		t.Errorf("unsafe: got %q", out["a.yaml"])
	}
}

func TestRunEligible(t *testing.T) {
	out, _ := run(t, map[string]string{"a.yaml": "unused: 1\n", "b.yaml": "unused: 2\n"},
		Options{Eligible: func(f *checker.Finding) bool { return f.Pos.Filename == "b.yaml" }})
	if out["a.yaml"] != "unused: 1\n" || out["b.yaml"] != "" {
		t.Errorf("got %q", out)
	}
}

func TestRunNotEditable(t *testing.T) {
	out, res := run(t, map[string]string{"a.yaml": "unused: 1\n", "link.yaml": "unused: 2\n"},
		Options{Editable: func(n string) error {
			if n == "link.yaml" {
				return errors.New("link.yaml is a symbolic link")
			}
			return nil
		}})
	if out["a.yaml"] != "" || out["link.yaml"] != "unused: 2\n" {
		t.Errorf("got %q", out)
	}
	if len(res.Skipped) != 1 || res.Skipped[0].Reason != NotEditable || !strings.Contains(res.Skipped[0].Detail, "symbolic link") {
		t.Errorf("skipped %+v", res.Skipped)
	}
}

func TestRunCRLF(t *testing.T) {
	// The fake's insertion writes "\n"; the file's CRLF line ends are kept.
	out, _ := run(t, map[string]string{"a.yaml": "mode: nftables\r\nx: 1\r\n"}, Options{Unsafe: true})
	if got, want := out["a.yaml"], "mode: nftables\r\nnodePortAddresses: [primary]\r\nx: 1\r\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestOverlaps(t *testing.T) {
	e := func(a, b int, s string) checker.TextEdit {
		return checker.TextEdit{Pos: checker.Position{Offset: a}, End: checker.Position{Offset: b}, NewText: s}
	}
	for _, c := range []struct {
		a, b checker.TextEdit
		want bool
	}{
		{e(0, 5, ""), e(5, 9, ""), false},  // adjacent
		{e(0, 5, ""), e(4, 9, ""), true},   // shared byte
		{e(3, 3, "x"), e(0, 5, ""), true},  // insertion inside a deletion
		{e(5, 5, "x"), e(0, 5, ""), false}, // insertion at its end
		{e(5, 5, "x"), e(5, 5, "y"), true}, // two insertions at one place
		{e(5, 5, "x"), e(5, 5, "x"), false},
		{e(1, 4, "a"), e(1, 4, "a"), false}, // the same edit twice
	} {
		if got := overlaps(c.a, c.b); got != c.want {
			t.Errorf("overlaps(%v, %v) = %v", c.a, c.b, got)
		}
	}
}
