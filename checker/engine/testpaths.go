package engine

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// DefaultTestDirs are the directory names whose files look like test fixtures rather than
// the user's clusters: a finding there keeps its rule but is at most a warning, so one root
// cause copied into a hundred golden files never fails CI a hundred times.
var DefaultTestDirs = []string{"test", "tests", "e2e", "golden", "fixtures", "testing", "__tests__"}

// testPathNote is appended to the message of a capped finding.
const testPathNote = " (at most a warning in test paths)"

// IsTestPath reports whether file lies below a directory named in dirs. Only the part of the
// path below the longest of bases (the linted directories) counts: linting
// fixtures/repos/demo on purpose judges demo's files in full.
func IsTestPath(file string, dirs, bases []string) bool {
	if len(dirs) == 0 {
		return false
	}
	rel := file
	best := -1
	for _, b := range bases {
		b = strings.TrimSuffix(b, "/")
		if b == "" || b == "." {
			continue
		}
		if strings.HasPrefix(file, b+"/") && len(b) > best {
			best = len(b)
			rel = file[len(b)+1:]
		}
	}
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		for _, d := range dirs {
			if p == d {
				return true
			}
		}
	}
	return false
}

// capTestPaths lowers error findings in test paths (Processing.TestDirs) to warnings and says
// so in the message. It runs after the severity overrides, so the cap holds whatever severity
// a rule was given; a configuration that wants test paths judged in full sets test-dirs: [].
func capTestPaths(st *state) error {
	dirs := st.proc.TestDirs
	if dirs == nil {
		dirs = DefaultTestDirs
	}
	if len(dirs) == 0 {
		return nil
	}
	for _, fs := range [][]checker.Finding{st.out.Findings, st.out.Suppressed} {
		for i := range fs {
			f := &fs[i]
			if f.Internal || f.Severity != checker.SeverityError || !IsTestPath(f.Pos.Filename, dirs, st.proc.LintedDirs) {
				continue
			}
			f.Severity = checker.SeverityWarning
			f.Message += testPathNote
		}
	}
	return nil
}
