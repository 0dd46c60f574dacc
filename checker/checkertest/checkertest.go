// Package checkertest runs rules over fixture files and compares their findings with
// `# want` expectations written next to the offending lines.
//
// A fixture is a file in the rule's fixture directory (one workspace), or a subdirectory
// (one workspace of several files). Expectations are comments:
//
//	mode: ipvs  # want "mode ipvs is deprecated"
//	# want +1 "regexp"      the finding is on the next line (for lines that cannot hold a comment)
//	# want col=9 "regexp"   also checks the column
//	# want "a" "b"          two findings on the line
//
// Each regexp is matched against "severity: message". A comment "# target: 1.39" anywhere
// sets the target version of the fixture. A file x.yaml with a sibling x.yaml.golden must
// turn into the golden when the preferred fix of every finding is applied, and the golden
// must produce no finding of the rule that has a fix; in a fixture directory each fixed file
// has its own .golden sibling. Every fix must be documented in the rule's Doc.Fixes with its
// safety, and a finding with several fixes must mark one preferred.
package checkertest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

var update = flag.Bool("update", false, "rewrite .golden files from the fixes")

var (
	wantRe   = regexp.MustCompile(`#\s*want((?:\s+[+-]\d+)?)((?:\s+col=\d+)?)((?:\s+"(?:[^"\\]|\\.)*")+)`)
	quotedRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
	targetRe = regexp.MustCompile(`(?m)#\s*target:\s*(v?\d+\.\d+)`)
)

// Stats tells how many fixtures had expectations (positive) and how many had none (negative).
type Stats struct {
	Positive, Negative int
}

type want struct {
	file string
	line int
	col  int
	re   *regexp.Regexp
	raw  string
	met  bool
}

// Run runs rule over every fixture in dir and checks the expectations.
func Run(t *testing.T, rule *checker.Rule, dir string) Stats {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatalf("read fixtures: %v", err)
	}
	var st Stats
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".golden") || strings.HasPrefix(name, ".") || name == "README.md" {
			continue
		}
		p := filepath.Join(dir, name)
		t.Run(name, func(t *testing.T) {
			n := runCase(t, rule, p, e.IsDir())
			if n > 0 {
				st.Positive++
			} else {
				st.Negative++
			}
		})
	}
	return st
}

// Findings loads path (a file or directory) and returns the rule's findings.
func Findings(t *testing.T, rule *checker.Rule, path string) (*checker.Workspace, []checker.Finding) {
	t.Helper()
	var ws *checker.Workspace
	target := fixtureTarget(t, path)
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.IsDir() {
		ws, err = load.Load(context.Background(), load.Options{Paths: []string{path}, Root: path, Target: target, Facts: []*checker.Rule{rule}})
		if err != nil {
			t.Fatalf("load %s: %v", path, err)
		}
	} else {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ws = load.Bytes(filepath.Base(path), b, target)
	}
	var fs []checker.Finding
	pass := checker.NewPass(rule, ws, func(f checker.Finding) { fs = append(fs, f) })
	if err := rule.Run(pass); err != nil {
		t.Fatalf("rule %s failed: %v", rule.ID, err)
	}
	checker.SortFindings(fs)
	return ws, fs
}

func fixtureTarget(t *testing.T, path string) *checker.Version {
	var found *checker.Version
	_ = filepath.WalkDir(path, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(p)
		if m := targetRe.FindSubmatch(b); m != nil {
			v, err := checker.ParseVersion(string(m[1]))
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			found = &v
		}
		return nil
	})
	return found
}

// runCase checks one fixture and returns the number of expectations it had.
func runCase(t *testing.T, rule *checker.Rule, path string, isDir bool) int {
	ws, fs := Findings(t, rule, path)
	wants := collectWants(t, path, isDir)
	for _, f := range fs {
		if !f.Pos.IsValid() {
			t.Errorf("finding without a line: %s: %s", f.Pos, f.Message)
		}
		// The version a message names is the version the finding records (its scope's).
		if m := messageTargetRe.FindStringSubmatch(f.Message); m != nil && (f.Target == nil || f.Target.Version.String() != m[1]) {
			t.Errorf("%s: message names target %s but the finding records %+v: %s", f.Pos, m[1], f.Target, f.Message)
		}
		text := f.Severity.String() + ": " + f.Message
		matched := false
		for _, w := range wants {
			if w.met || w.file != f.Pos.Filename || w.line != f.Pos.Line || (w.col != 0 && w.col != f.Pos.Column) {
				continue
			}
			if w.re.MatchString(text) {
				w.met, matched = true, true
				break
			}
		}
		if !matched {
			t.Errorf("%s: unexpected finding: %s", f.Pos, text)
		}
	}
	for _, w := range wants {
		if !w.met {
			where := fmt.Sprintf("%s:%d", w.file, w.line)
			if w.col != 0 {
				where += fmt.Sprintf(":%d", w.col)
			}
			t.Errorf("%s: no finding matched %s", where, w.raw)
		}
	}
	checkFixes(t, rule, ws, fs)
	checkGolden(t, rule, path, isDir, ws, fs)
	return len(wants)
}

// messageTargetRe finds the target version a message names ("at target 1.41", "(target 1.37)").
var messageTargetRe = regexp.MustCompile(`\btarget (1\.[0-9]+)\b`)

func collectWants(t *testing.T, path string, isDir bool) []*want {
	var wants []*want
	_ = filepath.WalkDir(path, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasSuffix(p, ".golden") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(p)
		if isDir {
			rel, _ := filepath.Rel(path, p)
			name = filepath.ToSlash(rel)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, m := range wantRe.FindAllStringSubmatch(line, -1) {
				ln := i + 1
				if s := strings.TrimSpace(m[1]); s != "" {
					d, _ := strconv.Atoi(s)
					ln += d
				}
				col := 0
				if s := strings.TrimSpace(m[2]); s != "" {
					col, _ = strconv.Atoi(strings.TrimPrefix(s, "col="))
				}
				for _, q := range quotedRe.FindAllString(m[3], -1) {
					s, err := strconv.Unquote(q)
					if err != nil {
						t.Fatalf("%s:%d: bad want %s: %v", p, ln, q, err)
					}
					re, err := regexp.Compile(s)
					if err != nil {
						t.Fatalf("%s:%d: bad want regexp %s: %v", p, ln, q, err)
					}
					wants = append(wants, &want{file: name, line: ln, col: col, re: re, raw: q})
				}
			}
		}
		return nil
	})
	return wants
}

// checkFixes checks the fixes of a fixture's findings: each finding has at most one
// preferred fix, and one when it has several; every fix is documented by a Doc.Fixes entry of
// its safety and applies to the fixture on its own, leaving it decodable.
func checkFixes(t *testing.T, rule *checker.Rule, ws *checker.Workspace, fs []checker.Finding) {
	t.Helper()
	documented := map[checker.Safety]bool{}
	for _, fd := range rule.Doc.Fixes {
		documented[fd.Safety] = true
	}
	content := realFiles(ws)
	for _, f := range fs {
		preferred := 0
		for _, fx := range f.Fixes {
			if fx.Preferred {
				preferred++
			}
		}
		switch {
		case preferred > 1:
			t.Errorf("%s: finding has %d preferred fixes: %s", f.Pos, preferred, f.Message)
		case preferred == 0 && len(f.Fixes) > 1:
			t.Errorf("%s: finding has %d fixes and none is preferred: %s", f.Pos, len(f.Fixes), f.Message)
		}
		for _, fx := range f.Fixes {
			if !documented[fx.Safety] {
				t.Errorf("%s: %s fix %q is not documented in the rule's Doc.Fixes", f.Pos, fx.Safety, fx.Message)
			}
			byFile := map[string][]checker.TextEdit{}
			for _, e := range fx.Edits {
				byFile[e.Pos.Filename] = append(byFile[e.Pos.Filename], e)
			}
			for name, edits := range byFile {
				src, ok := content[name]
				if !ok {
					t.Errorf("%s: fix %q edits %s, which is not a file of the fixture", f.Pos, fx.Message, name)
					continue
				}
				got, err := checker.ApplyEdits(src, edits)
				if err != nil {
					t.Errorf("%s: fix %q: %v", f.Pos, fx.Message, err)
					continue
				}
				if before, after := manifestProblems(name, src), manifestProblems(name, got); after > before {
					t.Errorf("%s: fix %q leaves %s undecodable:\n%s", f.Pos, fx.Message, name, got)
				}
			}
		}
	}
}

// manifestProblems counts the decoding problems of one file on its own.
func manifestProblems(name string, content []byte) int {
	n := 0
	for _, p := range load.Reparse(name, content) {
		if p.Manifest {
			n++
		}
	}
	return n
}

// realFiles returns the content of the real files of ws by name (a released file's read
// again: checker.File.Text).
func realFiles(ws *checker.Workspace) map[string][]byte {
	m := map[string][]byte{}
	for _, f := range ws.Files {
		if f.Parent == nil {
			b, err := f.Text()
			if err != nil {
				panic(err) // fixtures do not change during a test
			}
			m[f.Path] = b
		}
	}
	return m
}

// checkGolden fixes the fixture as --fix --unsafe-fixes would with this rule alone: the
// preferred fix of every finding, in finding order, the first of two overlapping fixes first
// and the other in the next pass on the re-linted files, until no fix is left. Each changed file
// is compared with its .golden sibling: x.yaml.golden for a fixture file, dir/name.golden for
// the files of a fixture directory. The fixed files must decode and have no finding of the
// rule with a fix left.
func checkGolden(t *testing.T, rule *checker.Rule, path string, isDir bool, ws *checker.Workspace, fs []checker.Finding) {
	t.Helper()
	goldenOf := func(name string) string {
		if isDir {
			return filepath.Join(path, filepath.FromSlash(name)) + ".golden"
		}
		return path + ".golden"
	}
	orig := realFiles(ws)
	target := fixtureTarget(t, path)
	cur := map[string][]byte{}
	for name, c := range orig {
		cur[name] = c
	}
	relint := func() ([]checker.Finding, *checker.Workspace) {
		changed := map[string][]byte{}
		for name, c := range cur {
			if string(c) != string(orig[name]) {
				changed[name] = c
			}
		}
		var ws2 *checker.Workspace
		if isDir {
			var err error
			ws2, err = load.Load(context.Background(), load.Options{Paths: []string{path}, Root: path, Target: target, Overlay: changed, Facts: []*checker.Rule{rule}})
			if err != nil {
				t.Fatal(err)
			}
		} else {
			ws2 = load.Bytes(filepath.Base(path), cur[filepath.Base(path)], target)
		}
		var out []checker.Finding
		pass := checker.NewPass(rule, ws2, func(f checker.Finding) { out = append(out, f) })
		if err := rule.Run(pass); err != nil {
			t.Fatal(err)
		}
		checker.SortFindings(out)
		return out, ws2
	}
	var ws2 *checker.Workspace
	for pass := 1; ; pass++ {
		if pass > 10 {
			t.Fatalf("fixing did not settle in 10 passes")
		}
		accepted := map[string][]checker.TextEdit{}
		n := 0
		for _, f := range fs {
			fx, ok := f.PreferredFix()
			if !ok {
				continue
			}
			trial := map[string][]checker.TextEdit{}
			for _, e := range fx.Edits {
				trial[e.Pos.Filename] = append(trial[e.Pos.Filename], e)
			}
			fits := true
			for name, es := range trial {
				if !isDir && name != filepath.Base(path) {
					t.Errorf("fix edits another file: %s", name)
					fits = false
					break
				}
				if _, err := checker.ApplyEdits(cur[name], append(append([]checker.TextEdit(nil), accepted[name]...), es...)); err != nil {
					fits = false // overlaps a fix that came first: next pass
					break
				}
			}
			if fits {
				for name, es := range trial {
					accepted[name] = append(accepted[name], es...)
				}
				n++
			}
		}
		if n == 0 {
			break
		}
		for name, es := range accepted {
			out, err := checker.ApplyEdits(cur[name], es)
			if err != nil {
				t.Fatal(err)
			}
			cur[name] = out
		}
		fs, ws2 = relint()
	}
	var names []string
	for name, c := range cur {
		if string(c) != string(orig[name]) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	// A golden whose file the fixes leave alone is stale.
	changed := map[string]bool{}
	for _, name := range names {
		changed[name] = true
	}
	if isDir {
		_ = filepath.WalkDir(path, func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasSuffix(p, ".golden") {
				rel, _ := filepath.Rel(path, strings.TrimSuffix(p, ".golden"))
				if !changed[filepath.ToSlash(rel)] {
					t.Errorf("%s exists but the fixes do not change its file", p)
				}
			}
			return nil
		})
	} else if _, err := os.Stat(path + ".golden"); err == nil && len(names) == 0 {
		t.Errorf("%s.golden exists but the fixes do not change the file", path)
	}
	for _, name := range names {
		golden := goldenOf(name)
		if *update {
			if err := os.WriteFile(golden, cur[name], 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("rule offers fixes for %s but %s is missing (run go test -update)", name, golden)
			continue
		}
		if string(cur[name]) != string(want) {
			t.Errorf("fixed %s differs from %s:\n--- got\n%s\n--- want\n%s", name, golden, cur[name], want)
		}
	}
	if ws2 == nil {
		return
	}
	// The fixed files must decode and satisfy the rule.
	for _, p := range ws2.Problems {
		if p.Manifest && changed[p.Pos.Filename] {
			t.Errorf("fixed file does not decode: %s: %s", p.Pos, p.Message)
		}
	}
	for _, f := range fs {
		if len(f.Fixes) > 0 {
			t.Errorf("fixed file still has a fixable finding: %s: %s", f.Pos, f.Message)
		}
	}
}

// RunRules runs each rule over root/<ID> and requires at least one positive and one negative
// fixture per rule.
func RunRules(t *testing.T, rules []*checker.Rule, root string) {
	t.Helper()
	for _, r := range rules {
		t.Run(r.ID, func(t *testing.T) {
			dir := filepath.Join(root, r.ID)
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("rule %s has no fixtures in %s", r.ID, dir)
			}
			st := Run(t, r, dir)
			if st.Positive == 0 {
				t.Errorf("rule %s has no positive fixture (a file with # want)", r.ID)
			}
			if st.Negative == 0 {
				t.Errorf("rule %s has no negative fixture (a file without # want)", r.ID)
			}
		})
	}
}
