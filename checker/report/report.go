package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/readiness"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// ToolName is the name every format reports as the producing tool.
const ToolName = "kube-proxy-lint"

// InformationURI is the project's home page, named in SARIF's tool.driver.informationUri.
const InformationURI = "https://github.com/kube-proxy-lint/kube-proxy-lint"

// Result is everything a formatter may show about one run.
type Result struct {
	// Findings are the findings to report, already processed and sorted.
	Findings []checker.Finding
	// Rules are the rules that ran (enabled), sorted by ID.
	Rules []*checker.Rule
	// Target is the repository's target version and where it came from; each finding carries
	// the target of its own scope (Finding.Target).
	Target checker.Target
	// Targets lists the target of every scope (checker.Workspace.ScopeTargets); nil when
	// unknown.
	Targets []checker.Target
	// Problems are load notices (files skipped and the like); informational.
	Problems []checker.LoadProblem
	// ToolVersion is the kube-proxy-lint version; empty when unknown.
	ToolVersion string
	// SourceRoot is the absolute directory that Finding.Pos.Filename paths are relative to (repo
	// root: the Git work tree containing the linted path, else the linted directory). SARIF URIs
	// are relative to it with uriBaseId %SRCROOT%.
	SourceRoot string
	// Source returns the content of a file by its Filename (nil if unknown); used for the text
	// format's source line and for SARIF primaryLocationLineHash.
	Source func(filename string) []byte
	// Suppressed are findings that a suppression comment, annotation or config exclusion
	// removed, each with Suppressions set. JSON lists them apart, SARIF as results with
	// suppressions; the other formats leave them out.
	Suppressed []checker.Finding
	// Notes are informational messages of the run, such as stale baseline entries.
	Notes []checker.Note
	// Baselined counts the findings the baseline hid (they are not listed anywhere).
	Baselined int
	// Readiness is the migration readiness model that the report-* formats render; the
	// caller builds it (readiness.Build) when one of them is asked for.
	Readiness *readiness.Report
}

// Formatter writes a Result in one output format.
type Formatter interface {
	Format(w io.Writer, r *Result) error
}

// Options tune formatters. Formats that cannot use an option ignore it.
type Options struct {
	// Color enables ANSI colours in the text format. The caller decides (terminal, NO_COLOR,
	// --color); formatters never look at the environment.
	Color bool
	// LinkBase, when set, turns file positions in the markdown format into links: the URL of
	// the repository's tree at the linted commit, ending in "/", such as
	// "https://github.com/org/repo/blob/<sha>/"; "#L<line>" anchors are appended.
	LinkBase string
}

// constructors maps format names to formatter constructors.
var constructors = map[string]func(Options) Formatter{
	"text":  func(o Options) Formatter { return &textFormatter{color: o.Color} },
	"json":  func(Options) Formatter { return jsonFormatter{} },
	"sarif": func(Options) Formatter { return sarifFormatter{} },
	// Formats for CI and review tools (issue 6).
	"github":     func(Options) Formatter { return githubFormatter{} },
	"rdjson":     func(Options) Formatter { return rdjsonFormatter{} },
	"rdjsonl":    func(Options) Formatter { return rdjsonFormatter{lines: true} },
	"checkstyle": func(Options) Formatter { return checkstyleFormatter{} },
	"markdown":   func(o Options) Formatter { return markdownFormatter{linkBase: o.LinkBase} },
	// The migration readiness report (issue 15).
	"report-markdown": func(o Options) Formatter { return readinessMarkdown{linkBase: o.LinkBase} },
	"report-html":     func(o Options) Formatter { return readinessHTML{linkBase: o.LinkBase} },
	"report-json":     func(Options) Formatter { return readinessJSON{} },
	// CI code-quality and test-report formats (issue 12).
	"codeclimate": func(Options) Formatter { return codeclimateFormatter{} },
	"junit":       func(Options) Formatter { return junitFormatter{} },
	"sonarqube":   func(Options) Formatter { return sonarqubeFormatter{} },
}

// formatOrder is the order Formats lists names in: the default first.
var formatOrder = []string{"text", "json", "sarif", "github", "rdjson", "rdjsonl", "checkstyle", "markdown", "codeclimate", "junit", "sonarqube", "report-markdown", "report-html", "report-json"}

// Formats returns the names New accepts, the default ("text") first.
func Formats() []string { return append([]string(nil), formatOrder...) }

// New returns the formatter for format, one of Formats (case-insensitive).
func New(format string, opts Options) (Formatter, error) {
	c, ok := constructors[strings.ToLower(strings.TrimSpace(format))]
	if !ok {
		return nil, fmt.Errorf("unknown output format %q (valid: %s)", format, strings.Join(formatOrder, ", "))
	}
	return c(opts), nil
}

// sources caches per-file content and line indexes, so a file is fetched once per Format call.
type sources struct {
	get   func(string) []byte
	files map[string]*sourceFile
}

type sourceFile struct {
	content []byte
	index   *text.LineIndex
	hashes  []string // primaryLocationLineHash per line, computed lazily
}

func newSources(get func(string) []byte) *sources {
	return &sources{get: get, files: map[string]*sourceFile{}}
}

// file returns the file's content and index, or nil when Source does not know it.
func (s *sources) file(name string) *sourceFile {
	if s == nil || s.get == nil || name == "" {
		return nil
	}
	if f, ok := s.files[name]; ok {
		return f
	}
	var f *sourceFile
	if content := s.get(name); content != nil {
		f = &sourceFile{content: content, index: text.NewLineIndex(content)}
	}
	s.files[name] = f
	return f
}

// lineHash returns GitHub's primaryLocationLineHash for a 1-based line, or "" when unknown.
func (s *sources) lineHash(name string, line int) string {
	f := s.file(name)
	if f == nil || line < 1 {
		return ""
	}
	if f.hashes == nil {
		f.hashes = LineHashes(f.content)
	}
	if line > len(f.hashes) {
		return ""
	}
	return f.hashes[line-1]
}

// span returns a finding's end clamped to its start: same file, not before it.
func span(pos, end checker.Position) checker.Position {
	if !end.IsValid() || end.Filename != pos.Filename || end.Line < pos.Line ||
		(end.Line == pos.Line && end.Column < pos.Column) {
		return pos
	}
	return end
}

// ruleTable indexes the rules that ran, adding a minimal entry for any rule ID that appears in
// findings but not in Rules, so that every finding has rule metadata to point at.
type ruleTable struct {
	rules []*checker.Rule
	index map[string]int
}

func newRuleTable(r *Result) *ruleTable {
	t := &ruleTable{index: map[string]int{}}
	for _, rule := range r.Rules {
		if rule == nil {
			continue
		}
		if _, dup := t.index[rule.ID]; dup {
			continue
		}
		t.index[rule.ID] = len(t.rules)
		t.rules = append(t.rules, rule)
	}
	var extra []*checker.Rule
	seen := map[string]bool{}
	for _, f := range r.Findings {
		if _, ok := t.index[f.RuleID]; ok || seen[f.RuleID] || f.RuleID == "" {
			continue
		}
		seen[f.RuleID] = true
		// No Doc and no default severity: nothing is known about the rule but its names.
		extra = append(extra, &checker.Rule{ID: f.RuleID, Name: f.RuleName})
	}
	sort.Slice(extra, func(i, j int) bool { return extra[i].ID < extra[j].ID })
	for _, rule := range extra {
		t.index[rule.ID] = len(t.rules)
		t.rules = append(t.rules, rule)
	}
	return t
}

// findingTargets returns the distinct targets the findings were checked at, by scope, version
// and source, sorted by scope; nil when no finding records one.
func findingTargets(fs []checker.Finding) []checker.Target {
	type key struct {
		scope, source string
		v             checker.Version
	}
	seen := map[key]bool{}
	var out []checker.Target
	for i := range fs {
		t := fs[i].Target
		if t == nil {
			continue
		}
		k := key{t.Scope, t.Source, t.Version}
		if !seen[k] {
			seen[k] = true
			out = append(out, *t)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Scope != out[j].Scope {
			return out[i].Scope < out[j].Scope
		}
		if out[i].Version != out[j].Version {
			return out[i].Version.Less(out[j].Version)
		}
		return out[i].Source < out[j].Source
	})
	return out
}

// targetGroup is a target and the scopes of the findings checked at it.
type targetGroup struct {
	checker.Target
	scopes []string
}

// summaryTargets returns the targets a summary shows: the one target every finding was
// checked at (one group), one group per distinct target with the scopes of its findings when
// they differ, or the run's target when no finding records one.
func summaryTargets(r *Result) []targetGroup {
	ts := findingTargets(r.Findings)
	if len(ts) == 0 {
		if r.Target.Version == (checker.Version{}) {
			return nil
		}
		return []targetGroup{{Target: r.Target}}
	}
	var out []targetGroup
	idx := map[[2]string]int{}
	for _, t := range ts {
		k := [2]string{t.Version.String(), t.Source}
		i, ok := idx[k]
		if !ok {
			i = len(out)
			idx[k] = i
			out = append(out, targetGroup{Target: t})
		}
		out[i].scopes = append(out[i].scopes, scopeName(t.Scope))
	}
	return out
}

// scopeName shows a scope directory for people: "." for the repository root.
// scopeName names a cluster for people: its name, or "shared files" for the files of no
// cluster.
func scopeName(s string) string {
	if s == "" {
		return "shared files"
	}
	return s
}

// targetSource describes where the target version came from, for people.
func targetSource(t checker.Target) string {
	switch t.Source {
	case "":
		return ""
	case "flag":
		return "from --target-version"
	case "default":
		return "default"
	default:
		return "from " + t.Source
	}
}

// HiddenCounts says how many findings the run did not report and why, for summary lines:
// ", 2 suppressed, 1 excluded, 3 quiet where kube-proxy is replaced, 5 in the baseline"; ""
// when it hid none. Suppressed are those an inline comment or annotation hid, excluded those
// only the configuration file's exclusions hid, quiet the kube-proxy rules' findings where
// kube-proxy is replaced (KP601 reports the replacement instead).
func HiddenCounts(r *Result) string {
	suppressed, excluded, quiet := 0, 0, 0
	for i := range r.Suppressed {
		inSource, replaced := false, false
		for _, s := range r.Suppressed[i].Suppressions {
			inSource = inSource || s.Kind == checker.SuppressionInSource
			replaced = replaced || s.Replaced()
		}
		switch {
		case inSource:
			suppressed++
		case replaced:
			quiet++
		default:
			excluded++
		}
	}
	var b strings.Builder
	if suppressed > 0 {
		fmt.Fprintf(&b, ", %d suppressed", suppressed)
	}
	if excluded > 0 {
		fmt.Fprintf(&b, ", %d excluded", excluded)
	}
	if quiet > 0 {
		fmt.Fprintf(&b, ", %d quiet where kube-proxy is replaced", quiet)
	}
	if r.Baselined > 0 {
		fmt.Fprintf(&b, ", %d in the baseline", r.Baselined)
	}
	return b.String()
}
