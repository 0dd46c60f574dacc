package engine

import (
	"path"
	"regexp"
	"strings"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Processing configures the processors that run after the rules. The zero value applies
// inline suppressions and nothing else.
type Processing struct {
	// Registry is every rule the run knows, enabled or not. Suppressions and exclusions name
	// rules by ID or name and are resolved against it; rules receive it as Pass.Registry.
	// When nil, the rules of the run stand in for it.
	Registry []*checker.Rule
	// NoInlineSuppressions ignores suppression comments and ignore annotations (strict mode).
	NoInlineSuppressions bool
	// Now returns the current time for suppression expiry; nil means time.Now.
	Now func() time.Time
	// Exclusions suppress findings by rule, path and message (config file exclusions).
	Exclusions []Exclusion
	// Skip lists path globs whose findings are dropped (see MatchGlob).
	Skip []string
	// Severity overrides the severity of every finding of a rule, by rule ID.
	Severity map[string]checker.Severity
	// TestDirs are directory names whose findings are at most warnings (test fixtures);
	// nil means DefaultTestDirs, an empty non-nil slice caps nothing.
	TestDirs []string
	// LintedDirs are the directories named on the command line, slash-separated and relative
	// to the workspace root; test paths are judged below them.
	LintedDirs []string
	// Baseline drops findings it lists; nil means no baseline.
	Baseline *Baseline
	// BaselineCovers reports whether a file was part of the run, so that baseline entries of
	// files outside the linted paths are not called stale. Nil means: the file is in the
	// workspace.
	BaselineCovers func(file string) bool
	// Changes, when set, keeps only the findings on changed code (--new-from-rev); nil
	// reports everything. See ChangeSet and filterChanged.
	Changes ChangeSet
}

// Exclusion suppresses the findings that match all of its non-empty selectors.
type Exclusion struct {
	// Rules are rule IDs or names; empty means every rule.
	Rules []string
	// Paths are globs on finding file names (see MatchGlob); empty means every file.
	Paths []string
	// Message must match the finding's message when set.
	Message *regexp.Regexp
	// Reason is mandatory: it becomes the suppression's justification.
	Reason string
	// Pos is where the exclusion is written (the config file), when known.
	Pos *checker.Position
}

// now returns the time of the run for expiry checks.
func (p *Processing) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	return time.Now()
}

// resolver returns a function mapping a rule ID or name to the rule, from the registry or,
// without one, from the rules of the run.
func (st *state) resolver() func(string) *checker.Rule {
	rs := st.proc.Registry
	if rs == nil {
		rs = st.rules
	}
	m := make(map[string]*checker.Rule, 2*len(rs))
	for _, r := range rs {
		m[strings.ToLower(r.ID)] = r
		m[strings.ToLower(r.Name)] = r
	}
	return func(s string) *checker.Rule { return m[strings.ToLower(strings.TrimSpace(s))] }
}

// enabled returns the rule of the run with ID id, or nil.
func (st *state) enabled(id string) *checker.Rule {
	for _, r := range st.rules {
		if r.ID == id {
			return r
		}
	}
	return nil
}

// MatchGlob reports whether the slash-separated file name matches pattern. Patterns use
// path.Match syntax per segment plus "**" for any number of segments; a pattern without a
// slash matches the base name at any depth (as in .gitignore), a leading "/" anchors it to
// the root, and a pattern that matches a directory matches every file below it.
func MatchGlob(pattern, name string) bool {
	pattern = strings.TrimSuffix(pattern, "/")
	if p, ok := strings.CutPrefix(pattern, "/"); ok {
		pattern = p
	} else if !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	pattern = strings.TrimPrefix(pattern, "./")
	name = strings.TrimPrefix(name, "./")
	return matchSegments(strings.Split(pattern, "/"), strings.Split(name, "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for i := 0; i <= len(name); i++ {
				if matchSegments(pat[1:], name[i:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	// The pattern named a directory holding the file, or the file itself.
	return true
}
