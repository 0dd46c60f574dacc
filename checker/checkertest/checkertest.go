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
// turn into the golden when the first fix of every finding is applied, and the golden must
// produce no finding of the rule.
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
		ws, err = load.Load(context.Background(), load.Options{Paths: []string{path}, Root: path, Target: target})
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
	if !isDir {
		checkGolden(t, rule, path, ws, fs)
	}
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

// checkGolden applies the first fix of every finding and compares with path.golden.
func checkGolden(t *testing.T, rule *checker.Rule, path string, ws *checker.Workspace, fs []checker.Finding) {
	golden := path + ".golden"
	var edits []checker.TextEdit
	for _, f := range fs {
		if len(f.Fixes) > 0 {
			edits = append(edits, f.Fixes[0].Edits...)
		}
	}
	_, err := os.Stat(golden)
	if len(edits) == 0 {
		if err == nil {
			t.Errorf("%s exists but the rule offers no fix", golden)
		}
		return
	}
	var src []byte
	for _, f := range ws.Files {
		if f.Path == filepath.Base(path) {
			src = f.Content
		}
	}
	for _, e := range edits {
		if e.Pos.Filename != filepath.Base(path) {
			t.Errorf("fix edits another file: %s", e.Pos)
		}
	}
	got, aerr := checker.ApplyEdits(src, edits)
	if aerr != nil {
		t.Fatalf("apply fixes: %v", aerr)
	}
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, rerr := os.ReadFile(golden)
	if rerr != nil {
		t.Errorf("rule offers fixes but %s is missing (run go test -update)", golden)
		return
	}
	if string(got) != string(want) {
		t.Errorf("fixed file differs from %s:\n--- got\n%s\n--- want\n%s", golden, got, want)
	}
	// The fixed file must parse and satisfy the rule.
	target := fixtureTarget(t, path)
	ws2 := load.Bytes(filepath.Base(path), got, target)
	for _, p := range ws2.Problems {
		if p.Manifest {
			t.Errorf("fixed file does not decode: %s: %s", p.Pos, p.Message)
		}
	}
	var left []string
	pass := checker.NewPass(rule, ws2, func(f checker.Finding) {
		if len(f.Fixes) > 0 {
			left = append(left, f.Pos.String()+": "+f.Message)
		}
	})
	if err := rule.Run(pass); err != nil {
		t.Fatal(err)
	}
	sort.Strings(left)
	for _, l := range left {
		t.Errorf("fixed file still has a fixable finding: %s", l)
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
