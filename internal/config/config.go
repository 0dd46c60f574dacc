// Package config reads .kube-proxy-lint.yaml, the configuration file of kube-proxy-lint: the
// target version, which rules run and at what severity, exclusions, policy directories and
// paths to skip. Decoding is strict: an unknown key or a value of the wrong type is an error
// at its file:line:col. Command-line flags override the file; see Merge.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/safefile"
)

// FileName is the configuration file looked up from the linted path up to the repository root.
const FileName = ".kube-proxy-lint.yaml"

// Version is the only configuration format version.
const Version = 1

// MaxSize is the largest configuration file read; a real one is a few kilobytes.
const MaxSize = 1 << 20

// Config is a decoded configuration file, or the effective configuration after Merge.
type Config struct {
	// Path is the file the configuration came from; "" when there is none.
	Path string `yaml:"-"`
	// Version of the format; 0 when the file does not say (it means Version).
	Version int `yaml:"version,omitempty"`
	// TargetVersion is the Kubernetes version to check against; "" detects it.
	TargetVersion string `yaml:"target-version,omitempty"`
	// FailOn is the severity threshold of exit code 1; "" means error.
	FailOn string `yaml:"fail-on,omitempty"`
	// Enable and Disable name rules by ID or name; "all" is allowed, as on the command line.
	Enable  []string `yaml:"enable,omitempty"`
	Disable []string `yaml:"disable,omitempty"`
	// Severity overrides the severity of every finding of a rule: rule ID or name to error,
	// warning or info.
	Severity map[string]string `yaml:"severity,omitempty"`
	// InlineSuppressions, when false, ignores suppression comments and annotations.
	InlineSuppressions *bool `yaml:"inline-suppressions,omitempty"`
	// Exclusions suppress findings by rule, path and message, with a reason.
	Exclusions []Exclusion `yaml:"exclusions,omitempty"`
	// PolicyDirs are directories of user Rego policies, relative to the configuration file.
	PolicyDirs []string `yaml:"policy-dirs,omitempty"`
	// Skip lists path globs whose findings are not reported.
	Skip []string `yaml:"skip,omitempty"`
	// IncludeTestdata walks testdata directories too (skipped by default).
	IncludeTestdata bool `yaml:"include-testdata,omitempty"`
	// TestDirs are the directory names whose findings are at most warnings; nil means the
	// default list, an empty list caps nothing.
	TestDirs []string `yaml:"test-dirs,omitempty"`
	// Baseline is the baseline file (--baseline), relative to the configuration file.
	Baseline string `yaml:"baseline,omitempty"`
	// NewFromRev and NewFromMergeBase report only the findings on lines changed since a
	// revision (--new-from-rev, --new-from-merge-base); at most one is set.
	NewFromRev       string `yaml:"new-from-rev,omitempty"`
	NewFromMergeBase string `yaml:"new-from-merge-base,omitempty"`
	// MaxFileSize skips larger files (--max-file-size), as written: "4MiB", "500KB", "1048576".
	MaxFileSize string `yaml:"max-file-size,omitempty"`
	// MaxMemory is the run's memory budget (--max-memory), a size as written.
	MaxMemory string `yaml:"max-memory,omitempty"`
	// Timeout is the run's time budget (--timeout), a Go duration as written ("10m").
	Timeout string `yaml:"timeout,omitempty"`
	// Helm configures the rendering of Helm charts.
	Helm *Helm `yaml:"helm,omitempty"`
	// Clusters are the declared clusters: they replace cluster inference for the files their
	// globs match.
	Clusters []Cluster `yaml:"clusters,omitempty"`

	// refs are the rule names the file uses, with their positions, for CheckRules.
	refs []ruleRef
}

// Helm is the helm key: whether charts are rendered, and with which values files.
type Helm struct {
	// Render, when false, turns chart rendering off (templates are read masked).
	Render *bool `yaml:"render,omitempty"`
	// Charts maps a chart directory (relative to the configuration file) to its settings.
	Charts map[string]HelmChart `yaml:"charts,omitempty"`
}

// HelmChart configures one chart.
type HelmChart struct {
	// Values are values files relative to the chart directory, each rendered as its own
	// variant on top of values.yaml (instead of the values-*.yaml files beside Chart.yaml).
	Values []string `yaml:"values"`
}

// Cluster is one entry of clusters: a cluster declared by name, the globs of its files and
// optionally its Kubernetes version.
type Cluster struct {
	Name  string   `yaml:"name"`
	Paths []string `yaml:"paths"`
	// Version is the cluster's Kubernetes version as written ("1.34"), "" when not declared.
	Version string `yaml:"version,omitempty"`
	// Pos is where the entry starts, PathPos where each glob is written and VersionPos where
	// the version is.
	Pos        checker.Position   `yaml:"-"`
	PathPos    []checker.Position `yaml:"-"`
	VersionPos checker.Position   `yaml:"-"`
}

// Exclusion is one entry of exclusions: findings matching every given selector are
// suppressed (reported as suppressed in JSON and SARIF, not in text).
type Exclusion struct {
	Rules   []string `yaml:"rules,omitempty"`
	Paths   []string `yaml:"paths,omitempty"`
	Message string   `yaml:"message,omitempty"`
	Reason  string   `yaml:"reason"`
	// Pos is where the entry starts in the file.
	Pos checker.Position `yaml:"-"`
}

type ruleRef struct {
	name string
	pos  checker.Position
}

// Error is a problem in a configuration file at a position.
type Error struct {
	Pos checker.Position
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Find returns the configuration file that applies to path: the first FileName found in the
// directory of path (path itself when it is a directory) or its parents, up to and including
// root. It returns "" when there is none.
func Find(path, root string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		abs = filepath.Dir(abs)
	}
	root, err = filepath.Abs(root)
	if err != nil {
		return ""
	}
	for d := abs; ; {
		p := filepath.Join(d, FileName)
		// Lstat: a symbolic link or FIFO planted under the name is found, and then refused by
		// Load, instead of being followed or silently passed over for a parent's file.
		if _, err := os.Lstat(p); err == nil {
			return p
		}
		if d == root {
			return ""
		}
		parent := filepath.Dir(d)
		if parent == d {
			return ""
		}
		if rel, err := filepath.Rel(root, d); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			// d is not below root (the linted path lies outside it): look in d only.
			return ""
		}
		d = parent
	}
}

// Load reads and parses the configuration file at path.
func Load(path string) (*Config, error) {
	data, err := Read(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Read reads the configuration file at path: a regular file, not a symbolic link, at most
// MaxSize bytes.
func Read(path string) ([]byte, error) {
	data, err := safefile.ReadFile(path, MaxSize)
	if err != nil {
		return nil, fmt.Errorf("read config: %w", err)
	}
	return data, nil
}

// MinMaxMemory is the least memory budget a run accepts: below it, the Go runtime and the
// rule registry alone would exceed it.
const MinMaxMemory = 256 << 20

// keys are the top-level keys, in the order of the documentation.
var keys = []string{"version", "target-version", "fail-on", "enable", "disable", "severity",
	"inline-suppressions", "exclusions", "policy-dirs", "skip", "include-testdata", "test-dirs",
	"baseline", "new-from-rev", "new-from-merge-base", "max-file-size", "max-memory", "timeout", "helm",
	"clusters"}

// Keys returns the top-level keys of the configuration file, in the order of the
// documentation (the JSON Schema and docs/config.md are tested against it).
func Keys() []string { return slices.Clone(keys) }

var exclusionKeys = []string{"rules", "paths", "message", "reason"}

var clusterKeys = []string{"name", "paths", "version"}

// Parse decodes a configuration file; name is used in error positions.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{Path: name}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return c, nil // an empty file is an empty configuration
		}
		return nil, fmt.Errorf("parse config %s", yamlError(name, data, err))
	}
	p := &parser{name: name}
	if len(doc.Content) == 0 {
		return c, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return c, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, p.errorf(root, "the configuration must be a mapping of keys, not %s", kindName(root))
	}
	p.mapping(root, keys, func(key string, k, v *yaml.Node) {
		switch key {
		case "version":
			c.Version = p.integer(v)
			if c.Version != Version {
				p.fail(v, "unsupported version (want %d)", Version)
			}
		case "target-version":
			c.TargetVersion = p.str(v)
			if c.TargetVersion != "" && c.TargetVersion != "auto" {
				if _, err := checker.ParseVersion(c.TargetVersion); err != nil {
					p.fail(v, "invalid target-version (want auto or a Kubernetes version such as 1.40 or v1.37.2)")
				}
			}
		case "fail-on":
			c.FailOn = p.str(v)
			if _, err := checker.ParseSeverity(c.FailOn); err != nil {
				p.fail(v, "invalid fail-on (want error, warning, info or none)")
			}
		case "enable":
			c.Enable = p.ruleList(c, v)
		case "disable":
			c.Disable = p.ruleList(c, v)
		case "severity":
			c.Severity = map[string]string{}
			if v.Kind != yaml.MappingNode {
				p.fail(v, "severity must be a mapping of rule to severity, not %s", kindName(v))
				return
			}
			p.mapping(v, nil, func(rule string, rk, rv *yaml.Node) {
				c.refs = append(c.refs, ruleRef{rule, p.pos(rk)})
				s := p.str(rv)
				if sev, err := checker.ParseSeverity(s); err != nil || sev == checker.SeverityNone {
					p.fail(rv, "invalid severity (want error, warning or info)")
				}
				c.Severity[rule] = s
			})
		case "inline-suppressions":
			b := p.boolean(v)
			c.InlineSuppressions = &b
		case "exclusions":
			c.Exclusions = p.exclusions(c, v)
		case "policy-dirs":
			c.PolicyDirs = p.strList(v)
		case "include-testdata":
			c.IncludeTestdata = p.boolean(v)
		case "test-dirs":
			c.TestDirs = p.strList(v)
			if c.TestDirs == nil {
				c.TestDirs = []string{}
			}
		case "baseline":
			c.Baseline = p.str(v)
			if c.Baseline == "" {
				p.fail(v, "baseline must name a file")
			}
		case "new-from-rev", "new-from-merge-base":
			rev := p.str(v)
			if rev == "" || strings.HasPrefix(rev, "-") {
				p.fail(v, "%s must be a revision, not %q", key, rev)
			}
			if key == "new-from-rev" {
				c.NewFromRev = rev
			} else {
				c.NewFromMergeBase = rev
			}
			if c.NewFromRev != "" && c.NewFromMergeBase != "" {
				p.fail(k, "new-from-rev and new-from-merge-base exclude each other")
			}
		case "max-file-size":
			c.MaxFileSize = p.str(v)
			if _, err := ParseSize(c.MaxFileSize); err != nil {
				p.fail(v, "%v", err)
			}
		case "max-memory":
			c.MaxMemory = p.str(v)
			if n, err := ParseSize(c.MaxMemory); err != nil {
				p.fail(v, "%v", err)
			} else if n < MinMaxMemory {
				p.fail(v, "max-memory must be at least 256MiB, got %s", c.MaxMemory)
			}
		case "timeout":
			c.Timeout = p.str(v)
			if d, err := time.ParseDuration(c.Timeout); err != nil || d <= 0 {
				p.fail(v, "timeout must be a positive duration (30s, 10m, 1h), got %q", c.Timeout)
			}
		case "helm":
			c.Helm = p.helm(v)
		case "clusters":
			c.Clusters = p.clusters(v)
		case "skip":
			c.Skip = p.strList(v)
			for i, g := range c.Skip {
				p.checkGlob(v.Content[i], g)
			}
		}
	})
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return c, nil
}

// CheckRules reports rule names in the file that registry does not know, with the closest
// one as a suggestion. It is separate from Parse because the registry may grow with the
// policy directories the file itself names.
func (c *Config) CheckRules(registry []*checker.Rule) error {
	var errs []error
	for _, r := range c.refs {
		if strings.EqualFold(r.name, engine.AllKeyword) {
			continue
		}
		if _, err := engine.Find(registry, r.name); err != nil {
			// The name is not quoted: errors never echo the file's content.
			msg := "unknown rule"
			var ue *engine.UnknownRuleError
			if errors.As(err, &ue) && ue.Suggestion != nil {
				msg += fmt.Sprintf("; did you mean %s (%s)?", ue.Suggestion.ID, ue.Suggestion.Name)
			}
			errs = append(errs, &Error{Pos: r.pos, Msg: msg})
		}
	}
	return errors.Join(errs...)
}

// Processing returns the engine settings of the configuration: exclusions, skipped paths and
// severity overrides, with paths rebased from the configuration file's directory to root
// (the directory finding paths are relative to). Rule names must have passed CheckRules.
func (c *Config) Processing(registry []*checker.Rule, root string) (engine.Processing, error) {
	var p engine.Processing
	prefix := c.prefix(root)
	for _, e := range c.Exclusions {
		ex := engine.Exclusion{Rules: e.Rules, Reason: e.Reason}
		pos := e.Pos
		ex.Pos = &pos
		for _, g := range e.Paths {
			ex.Paths = append(ex.Paths, rebase(prefix, g))
		}
		if e.Message != "" {
			re, err := regexp.Compile(e.Message)
			if err != nil {
				return p, &Error{Pos: e.Pos, Msg: "invalid message regexp: " + regexpError(err)}
			}
			ex.Message = re
		}
		p.Exclusions = append(p.Exclusions, ex)
	}
	for _, g := range c.Skip {
		p.Skip = append(p.Skip, rebase(prefix, g))
	}
	if len(c.Severity) > 0 {
		p.Severity = map[string]checker.Severity{}
		for name, s := range c.Severity {
			r, err := engine.Find(registry, name)
			if err != nil {
				return p, fmt.Errorf("config %s: severity: unknown rule", c.Path)
			}
			sev, _ := checker.ParseSeverity(s)
			p.Severity[r.ID] = sev
		}
	}
	p.NoInlineSuppressions = c.InlineSuppressions != nil && !*c.InlineSuppressions
	p.TestDirs = c.TestDirs
	return p, nil
}

// BaselinePath returns the baseline file relative to the configuration file, "" when unset.
func (c *Config) BaselinePath() string {
	if c.Baseline == "" || filepath.IsAbs(c.Baseline) || c.Path == "" {
		return c.Baseline
	}
	return filepath.Join(filepath.Dir(c.Path), c.Baseline)
}

// Policies returns the policy directories, made absolute relative to the configuration file.
func (c *Config) Policies() []string {
	var out []string
	for _, d := range c.PolicyDirs {
		if !filepath.IsAbs(d) && c.Path != "" {
			d = filepath.Join(filepath.Dir(c.Path), d)
		}
		out = append(out, d)
	}
	return out
}

// prefix is the slash path of the configuration file's directory relative to root, "" when
// it is root itself or lies outside it (globs are then relative to root).
func (c *Config) prefix(root string) string {
	if c.Path == "" || root == "" {
		return ""
	}
	return relBelow(root, filepath.Dir(c.Path))
}

// relBelow returns the slash path of directory to relative to directory from when to lies
// strictly below from, else "".
func relBelow(from, to string) string {
	a, err1 := filepath.Abs(from)
	b, err2 := filepath.Abs(to)
	if err1 != nil || err2 != nil {
		return ""
	}
	rel, err := filepath.Rel(a, b)
	if err != nil || rel == "." || !filepath.IsLocal(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// rebase makes glob g, written relative to the directory prefix, relative to the root.
func rebase(prefix, g string) string {
	if prefix == "" {
		return g
	}
	p, anchored := strings.CutPrefix(g, "/")
	if !anchored && !strings.Contains(strings.TrimSuffix(p, "/"), "/") {
		p = "**/" + p
	}
	return "/" + prefix + "/" + strings.TrimPrefix(p, "./")
}

// Merge returns the effective configuration: c with the command-line values applied. Flags
// win: a target version or threshold replaces the file's; a rule enabled on the command line
// is removed from the file's disable list and vice versa; "--disable all" drops the file's
// enable list and "--enable all" its disable list; noInline set turns suppressions off.
func (c *Config) Merge(registry []*checker.Rule, target, failOn string, enable, disable []string, noInline bool) *Config {
	m := *c
	if target != "" {
		m.TargetVersion = target
	}
	if failOn != "" {
		m.FailOn = failOn
	}
	id := func(s string) string {
		if strings.EqualFold(strings.TrimSpace(s), engine.AllKeyword) {
			return engine.AllKeyword
		}
		if r, err := engine.Find(registry, s); err == nil {
			return r.ID
		}
		return strings.ToUpper(strings.TrimSpace(s))
	}
	without := func(list, drop []string) []string {
		var out []string
		for _, s := range list {
			if !slices.ContainsFunc(drop, func(d string) bool { return id(d) == id(s) }) {
				out = append(out, s)
			}
		}
		return out
	}
	en, dis := c.Enable, c.Disable
	if slices.ContainsFunc(disable, func(s string) bool { return id(s) == engine.AllKeyword }) {
		en = nil
	}
	if slices.ContainsFunc(enable, func(s string) bool { return id(s) == engine.AllKeyword }) {
		dis = nil
	}
	m.Enable = append(without(en, disable), nonEmpty(enable)...)
	m.Disable = append(without(dis, enable), nonEmpty(disable)...)
	if noInline {
		f := false
		m.InlineSuppressions = &f
	}
	return &m
}

func nonEmpty(s []string) []string {
	var out []string
	for _, v := range s {
		if strings.TrimSpace(v) != "" {
			out = append(out, v)
		}
	}
	return out
}

// Marshal writes the configuration as YAML in the documented key order, with defaults
// filled in so that it shows what a run does.
func (c *Config) Marshal() ([]byte, error) {
	e := *c
	if e.Version == 0 {
		e.Version = Version
	}
	if e.TargetVersion == "" {
		e.TargetVersion = "auto"
	}
	if e.FailOn == "" {
		e.FailOn = "error"
	}
	if e.InlineSuppressions == nil {
		t := true
		e.InlineSuppressions = &t
	}
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(&e); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("encode config: %w", err)
	}
	return buf.Bytes(), nil
}

// parser collects every error of a file instead of stopping at the first.
type parser struct {
	name string
	errs []error
}

func (p *parser) pos(n *yaml.Node) checker.Position {
	return checker.Position{Filename: p.name, Line: n.Line, Column: n.Column}
}

func (p *parser) fail(n *yaml.Node, format string, args ...any) {
	p.errs = append(p.errs, p.errorf(n, format, args...))
}

func (p *parser) errorf(n *yaml.Node, format string, args ...any) error {
	return &Error{Pos: p.pos(n), Msg: fmt.Sprintf(format, args...)}
}

// mapping calls f for each key of m. With known non-nil, other keys are errors that suggest
// the closest known key; duplicate keys are always errors.
func (p *parser) mapping(m *yaml.Node, known []string, f func(key string, k, v *yaml.Node)) {
	seen := map[string]bool{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			p.fail(k, "keys must be strings")
			continue
		}
		if seen[k.Value] {
			p.fail(k, "duplicate key")
			continue
		}
		seen[k.Value] = true
		if known != nil && !slices.Contains(known, k.Value) {
			// The key is not quoted: errors never echo the file's content.
			msg := "unknown key"
			if s := closest(k.Value, known); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			} else {
				msg += " (known keys: " + strings.Join(known, ", ") + ")"
			}
			p.fail(k, "%s", msg)
			continue
		}
		for v.Kind == yaml.AliasNode && v.Alias != nil {
			v = v.Alias
		}
		f(k.Value, k, v)
	}
}

func (p *parser) str(v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode || v.Tag == "!!null" {
		p.fail(v, "want a string, not %s", kindName(v))
		return ""
	}
	return v.Value
}

func (p *parser) integer(v *yaml.Node) int {
	var i int
	if v.Kind != yaml.ScalarNode || v.Decode(&i) != nil {
		p.fail(v, "want an integer, not %s", kindName(v))
	}
	return i
}

func (p *parser) boolean(v *yaml.Node) bool {
	var b bool
	if v.Kind != yaml.ScalarNode || v.Tag != "!!bool" || v.Decode(&b) != nil {
		p.fail(v, "want true or false, not %s", kindName(v))
	}
	return b
}

// strList decodes a sequence of strings; a single string stands for a list of one.
// helm parses the helm key.
func (p *parser) helm(v *yaml.Node) *Helm {
	h := &Helm{}
	if v.Kind != yaml.MappingNode {
		p.fail(v, "helm must be a mapping (render, charts), not %s", kindName(v))
		return h
	}
	p.mapping(v, []string{"render", "charts"}, func(key string, _, hv *yaml.Node) {
		switch key {
		case "render":
			b := p.boolean(hv)
			h.Render = &b
		case "charts":
			if hv.Kind != yaml.MappingNode {
				p.fail(hv, "helm.charts must be a mapping of chart directory to settings, not %s", kindName(hv))
				return
			}
			h.Charts = map[string]HelmChart{}
			p.mapping(hv, nil, func(dir string, dk, cv *yaml.Node) {
				if !localPath(dir) {
					p.fail(dk, "a chart directory must be a relative path inside the repository")
					return
				}
				var hc HelmChart
				if cv.Kind != yaml.MappingNode {
					p.fail(cv, "a chart's settings must be a mapping (values), not %s", kindName(cv))
					return
				}
				p.mapping(cv, []string{"values"}, func(_ string, _, vv *yaml.Node) {
					hc.Values = p.strList(vv)
					for i, f := range hc.Values {
						n := vv
						if vv.Kind == yaml.SequenceNode {
							n = vv.Content[i]
						}
						if !localPath(f) || f == "." {
							p.fail(n, "a values file must be a relative path inside the chart directory")
						}
					}
				})
				h.Charts[path.Clean(dir)] = hc
			})
		}
	})
	return h
}

// localPath reports whether a slash path is relative and stays below its directory.
func localPath(s string) bool {
	return s != "" && !strings.HasPrefix(s, "/") && !strings.Contains(s, "\\") && filepath.IsLocal(filepath.FromSlash(s))
}

// HelmCharts returns the configured charts by directory relative to root (the directory the
// loader's names are relative to), with their values files.
func (c *Config) HelmCharts(root string) map[string][]string {
	if c == nil || c.Helm == nil || len(c.Helm.Charts) == 0 {
		return nil
	}
	prefix := c.prefix(root)
	out := map[string][]string{}
	for dir, hc := range c.Helm.Charts {
		d := dir
		if prefix != "" {
			d = path.Join(prefix, dir)
		}
		if d == "." {
			d = ""
		}
		out[d] = hc.Values
	}
	return out
}

// HelmRender reports whether charts are rendered (the default).
func (c *Config) HelmRender() bool {
	return c == nil || c.Helm == nil || c.Helm.Render == nil || *c.Helm.Render
}

func (p *parser) strList(v *yaml.Node) []string {
	if v.Kind == yaml.ScalarNode && v.Tag != "!!null" {
		return []string{v.Value}
	}
	if v.Kind != yaml.SequenceNode {
		p.fail(v, "want a list of strings, not %s", kindName(v))
		return nil
	}
	var out []string
	for _, e := range v.Content {
		out = append(out, p.str(e))
	}
	return out
}

// ruleList is strList that also records the rule names for CheckRules.
func (p *parser) ruleList(c *Config, v *yaml.Node) []string {
	list := p.strList(v)
	nodes := v.Content
	if v.Kind == yaml.ScalarNode {
		nodes = []*yaml.Node{v}
	}
	for i, s := range list {
		if i < len(nodes) {
			c.refs = append(c.refs, ruleRef{s, p.pos(nodes[i])})
		}
	}
	return list
}

func (p *parser) checkGlob(n *yaml.Node, g string) {
	if g == "" {
		p.fail(n, "empty path glob")
		return
	}
	for _, seg := range strings.Split(g, "/") {
		if _, err := filepath.Match(seg, ""); err != nil {
			p.fail(n, "invalid path glob: %v", err)
			return
		}
	}
}

func (p *parser) exclusions(c *Config, v *yaml.Node) []Exclusion {
	if v.Kind != yaml.SequenceNode {
		p.fail(v, "exclusions must be a list, not %s", kindName(v))
		return nil
	}
	var out []Exclusion
	for _, item := range v.Content {
		if item.Kind != yaml.MappingNode {
			p.fail(item, "an exclusion must be a mapping with rules, paths, message and reason, not %s", kindName(item))
			continue
		}
		e := Exclusion{Pos: p.pos(item)}
		p.mapping(item, exclusionKeys, func(key string, _, ev *yaml.Node) {
			switch key {
			case "rules":
				e.Rules = p.ruleList(c, ev)
			case "paths":
				e.Paths = p.strList(ev)
				for i, g := range e.Paths {
					n := ev
					if ev.Kind == yaml.SequenceNode {
						n = ev.Content[i]
					}
					p.checkGlob(n, g)
				}
			case "message":
				e.Message = p.str(ev)
				if _, err := regexp.Compile(e.Message); err != nil {
					p.fail(ev, "invalid message regexp: %s", regexpError(err))
				}
			case "reason":
				e.Reason = strings.TrimSpace(p.str(ev))
			}
		})
		if e.Reason == "" {
			p.fail(item, "exclusion has no reason: say why these findings do not apply")
		}
		if len(e.Rules) == 0 && len(e.Paths) == 0 && e.Message == "" {
			p.fail(item, "exclusion selects every finding: give rules, paths or message")
		}
		out = append(out, e)
	}
	return out
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		// The value itself is never quoted: errors do not echo the file's content.
		switch n.ShortTag() {
		case "!!null":
			return "null"
		case "!!bool":
			return "a boolean"
		case "!!int", "!!float":
			return "a number"
		}
		return "a string"
	}
	return "an alias"
}

// yamlError describes a YAML syntax error as "name:line:col: message", as the loader reports
// a manifest's: yaml.v3 gives the line of the construct it was in (0-based for the parser's
// "did not find expected …" errors) and no column, so the column is that of the flow
// collection's opening bracket that the line leaves open, for a missing ',' or closing
// bracket, else of the line's first
// character. The message keeps the syntax characters yaml.v3 quotes (`',' or ']'`) and drops
// every other quoted fragment (anchor names, tags, values): the file's content is never
// echoed.
func yamlError(name string, data []byte, err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
		if strings.HasPrefix(msg, "did not find expected") {
			line++
		}
	}
	if m := anchorRe.FindStringSubmatch(msg); m != nil && line == 0 {
		for i, l := range strings.Split(string(data), "\n") {
			if strings.Contains(l, "*"+m[1]) {
				line = i + 1
				break
			}
		}
	}
	lines := strings.Split(string(data), "\n")
	line = min(max(line, 1), len(lines))
	text := strings.TrimSuffix(lines[line-1], "\r")
	col := len(text) - len(strings.TrimLeft(text, " \t"))
	if strings.Contains(msg, "']'") || strings.Contains(msg, "'}'") {
		if i := unclosedBracket(text); i >= 0 {
			col = i
		}
	}
	col = utf8.RuneCountInString(text[:col]) + 1
	msg = quotedRe.ReplaceAllStringFunc(msg, func(q string) string {
		if syntaxRe.MatchString(q) {
			return q
		}
		return "…"
	})
	return fmt.Sprintf("%s:%d:%d: %s", name, line, col, msg)
}

// unclosedBracket returns the byte offset of the first '[' or '{' of line that the line does
// not close, or -1.
func unclosedBracket(line string) int {
	var open []int
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '[', '{':
			open = append(open, i)
		case ']', '}':
			if len(open) > 0 {
				open = open[:len(open)-1]
			}
		}
	}
	if len(open) == 0 {
		return -1
	}
	return open[0]
}

var (
	// quotedRe matches the quoted source fragments yaml.v3 and regexp put in their messages;
	// syntaxRe those that are only YAML syntax characters, which say what was expected.
	quotedRe   = regexp.MustCompile("'[^']*'|\"[^\"]*\"|`[^`]*`")
	syntaxRe   = regexp.MustCompile(`^'[\[\]{},:\-?|>&*!%@#]{1,3}'$`)
	yamlLineRe = regexp.MustCompile(`^line (\d+): (.*)$`)
	anchorRe   = regexp.MustCompile(`unknown anchor '([^']*)'`)
)

// regexpError is a regexp syntax error without the fragment of the expression it quotes.
func regexpError(err error) string {
	var se *syntax.Error
	if errors.As(err, &se) {
		return string(se.Code)
	}
	return "invalid expression"
}

// closest returns the known key nearest to s when it is a likely typo.
func closest(s string, known []string) string {
	best, bestD := "", -1
	for _, k := range known {
		if d := checker.EditDistance(s, k); bestD < 0 || d < bestD {
			best, bestD = k, d
		}
	}
	if bestD < 0 || bestD > max(2, len(s)/3) {
		return ""
	}
	return best
}
