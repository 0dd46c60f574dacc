// Package policy runs Rego rules: the built-in ones embedded in this package (one rule per
// file, package kube_proxy_lint.rules.kpNNN) and user policies loaded with --policy DIR. Each
// rule becomes a checker.Rule in the same registry as the Go rules, so findings share
// positions, severities, suppressions and outputs.
//
// The contract of a rule module: a package-scoped `# METADATA` block whose custom section
// holds id, name, severity (and optionally since, default, kinds, workloads, modes,
// replacements, remediation, before, after, severity_text, url), and a set rule `findings` of
// objects {msg, path} with optional fix, related and location. input is one document (see
// Input); data.kube_proxy_lint is the workspace view (see View). docs/policies.md documents it
// and docs/policy-input.schema.json is its JSON Schema.
//
// User policies are compiled when loaded, into one compiler per policy set; each embedded rule
// is compiled alone, on the first document it applies to (see Builtin). Each rule has one
// prepared query, evaluated per matching document and safe for concurrent use. They run
// sandboxed: the capabilities are pinned to the OPA release this package was built with,
// minus every builtin that reaches the network, the environment, the file system, the clock or
// a random source (sandbox.go), plus kpl.placeholder, the placeholder contract of the Go rules
// (builtins.go).
package policy

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/safefile"
)

//go:embed *.rego
var builtinFS embed.FS

// CapabilitiesVersion is the OPA release whose builtins policies may use. The capabilities
// come from the linked OPA (loading the release's JSON file costs more than the rest of
// startup); TestCapabilitiesPinned fails when an OPA upgrade changes them, so that a wider
// sandbox is a reviewed change here, never a side effect of go get.
const CapabilitiesVersion = "v1.22.3"

// DefaultTimeout bounds the evaluation of one rule over a whole workspace.
const DefaultTimeout = 30 * time.Second

// Timeout is the evaluation budget of one Rego rule in one run; the CLI sets it from
// --policy-timeout before any rule runs.
var Timeout = DefaultTimeout

var (
	capsOnce sync.Once
	caps     *ast.Capabilities
)

// Capabilities returns the builtins policies may use: the pinned OPA release's, without the
// forbidden ones, and kube-proxy-lint's own (kpl.placeholder, builtins.go). Callers must not
// modify the result.
func Capabilities() *ast.Capabilities {
	c, _ := capabilities()
	return c
}

// capabilities returns the pinned capabilities without the forbidden builtins.
func capabilities() (*ast.Capabilities, error) {
	capsOnce.Do(func() {
		c := ast.CapabilitiesForThisVersion()
		kept := c.Builtins[:0]
		for _, b := range c.Builtins {
			if _, no := forbidden(b.Name); !no {
				kept = append(kept, b)
			}
		}
		// kube-proxy-lint's own builtins (builtins.go): pure functions of their operand.
		c.Builtins = append(kept, customBuiltins()...)
		c.AllowNet = []string{}
		caps = c
	})
	return caps, nil
}

// Source is one Rego file to load.
type Source struct {
	// Name is the file name shown in errors and test results.
	Name string
	Text string
}

var (
	builtinOnce  sync.Once
	builtinRules []*checker.Rule
	builtinErr   error
)

// Builtin returns the embedded Rego rules. Their metadata is read once per process from the
// METADATA block of each file; each rule's module is parsed, compiled and prepared only when
// the rule first meets a document it applies to (compiling every embedded policy costs more
// than the rest of a one-file run, most of whose documents no Rego rule applies to). The
// modules are independent, so each is compiled alone. A broken embedded policy is a
// programmer error, caught by the tests of this package: Builtin panics on bad metadata, and
// the rule's Run returns the compile error.
func Builtin() []*checker.Rule {
	builtinOnce.Do(func() {
		srcs, err := builtinSources(false)
		if err != nil {
			builtinErr = err
			return
		}
		for _, src := range srcs {
			r, err := lazyBuiltin(src)
			if err != nil {
				builtinErr = errors.Join(builtinErr, err)
				continue
			}
			builtinRules = append(builtinRules, r)
		}
		sort.Slice(builtinRules, func(i, j int) bool { return builtinRules[i].ID < builtinRules[j].ID })
	})
	if builtinErr != nil {
		panic(fmt.Sprintf("embedded Rego rules: %v", builtinErr))
	}
	return builtinRules
}

// lazyBuiltin reads the metadata of an embedded rule from its header (the METADATA block and
// the package line) and returns the rule, to be compiled on first use.
func lazyBuiltin(src Source) (*checker.Rule, error) {
	header, ok := moduleHeader(src.Text)
	if !ok {
		return nil, fmt.Errorf("%s: no package line", src.Name)
	}
	m, err := ast.ParseModuleWithOpts(src.Name, header, parseOptions())
	if err != nil {
		return nil, errors.Join(regoErrors(err)...)
	}
	var a *ast.Annotations
	for _, x := range m.Annotations {
		if x.Scope == "package" {
			a = x
			break
		}
	}
	// Whether findings exists is checked when the module is compiled (prepare).
	meta, err := annotationMeta(a, m.Package, true, true)
	if err != nil {
		return nil, err
	}
	rr := newRegoState(src.Name, m.Package.Path.String(), meta)
	rr.src = &src
	return rr.rule(meta, true), nil
}

// moduleHeader returns the text of a module up to the end of its package line.
func moduleHeader(text string) (string, bool) {
	i := 0
	if !strings.HasPrefix(text, "package ") {
		i = strings.Index(text, "\npackage ")
		if i < 0 {
			return "", false
		}
		i++
	}
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		return text[:i+j+1], true
	}
	return text, true
}

// BuiltinSources returns the embedded Rego files, with their tests when tests is true.
func BuiltinSources(tests bool) ([]Source, error) { return builtinSources(tests) }

func builtinSources(tests bool) ([]Source, error) {
	entries, err := fs.ReadDir(builtinFS, ".")
	if err != nil {
		return nil, fmt.Errorf("read embedded policies: %w", err)
	}
	var out []Source
	for _, e := range entries {
		if isTest(e.Name()) && !tests {
			continue
		}
		b, err := builtinFS.ReadFile(e.Name())
		if err != nil {
			return nil, fmt.Errorf("read embedded policies: %w", err)
		}
		out = append(out, Source{Name: "policy/" + e.Name(), Text: string(b)})
	}
	return out, nil
}

func isTest(name string) bool { return strings.HasSuffix(name, "_test.rego") }

// MaxPolicySize is the largest policy file read; real ones are a few kilobytes.
const MaxPolicySize = 1 << 20

// ReadDirs reads the *.rego files below each directory (recursively; a file argument is read
// as is), in a stable order. Test files are included only when tests is true. Policy
// directories may come from the repository under test, so nothing is read through a symbolic
// link (neither a directory argument nor a file below it: a link is an error), only regular
// files are read, each at most MaxPolicySize bytes.
func ReadDirs(dirs []string, tests bool) ([]Source, error) {
	var out []Source
	for _, dir := range dirs {
		st, err := os.Lstat(dir)
		if err != nil {
			return nil, fmt.Errorf("read policies: %w", err)
		}
		if !st.IsDir() {
			b, err := safefile.ReadFile(dir, MaxPolicySize)
			if err != nil {
				return nil, fmt.Errorf("read policies: %w", err)
			}
			out = append(out, Source{Name: filepath.ToSlash(dir), Text: string(b)})
			continue
		}
		n := len(out)
		err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if e.IsDir() {
				if p != dir && strings.HasPrefix(e.Name(), ".") {
					return filepath.SkipDir
				}
				return nil
			}
			if !strings.HasSuffix(p, ".rego") || (isTest(p) && !tests) {
				return nil
			}
			// WalkDir does not follow links to directories; safefile refuses links to files,
			// FIFOs and devices.
			b, err := safefile.ReadFile(p, MaxPolicySize)
			if err != nil {
				return err
			}
			out = append(out, Source{Name: filepath.ToSlash(p), Text: string(b)})
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("read policies: %w", err)
		}
		if len(out) == n {
			return nil, fmt.Errorf("read policies: no .rego files in %s", dir)
		}
	}
	return out, nil
}

// Load reads and compiles the user policies in dirs. The rules are sorted by ID; an ID or
// name that clashes with a rule of reserved (the built-in registry) or with another user rule
// is an error naming the policy file.
func Load(dirs []string, reserved []*checker.Rule) ([]*checker.Rule, error) {
	srcs, err := ReadDirs(dirs, false)
	if err != nil {
		return nil, err
	}
	return LoadSources(srcs, reserved)
}

// LoadSources is Load for policies already read, such as those of a Git revision.
func LoadSources(srcs []Source, reserved []*checker.Rule) ([]*checker.Rule, error) {
	rules, err := Compile(srcs, false)
	if err != nil {
		return nil, err
	}
	taken := map[string]string{}
	for _, r := range reserved {
		taken[r.ID] = "built-in rule " + r.ID + " (" + r.Name + ")"
		taken["name:"+r.Name] = "built-in rule " + r.ID + " (" + r.Name + ")"
	}
	var errs []error
	for _, r := range rules {
		file := File(r)
		if by, ok := taken[r.ID]; ok {
			errs = append(errs, fmt.Errorf("%s: rule ID %s is already used by %s; give user policies an ID of their own, e.g. ORG001", file, r.ID, by))
		}
		if by, ok := taken["name:"+r.Name]; ok {
			errs = append(errs, fmt.Errorf("%s: rule name %s is already used by %s", file, r.Name, by))
		}
		taken[r.ID] = "rule " + r.ID + " in " + file
		taken["name:"+r.Name] = "rule " + r.ID + " in " + file
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return rules, nil
}

// regoRules maps each Rego checker.Rule to its compiled state, for error messages and File.
var regoRules sync.Map // *checker.Rule -> *regoRule

// File returns the policy file of a Rego rule, or "" for other rules.
func File(r *checker.Rule) string {
	if rr, ok := regoRules.Load(r); ok {
		return rr.(*regoRule).file
	}
	return ""
}

// Merge returns the rules of all sets in one list sorted by ID, the order checker.Validate
// requires. Duplicates are kept so that Validate reports them.
func Merge(sets ...[]*checker.Rule) []*checker.Rule {
	var out []*checker.Rule
	for _, s := range sets {
		out = append(out, s...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// parseOptions returns the parser settings of every policy: Rego v1 syntax only, annotations
// read. The capabilities are the ones the parser would build for every module (for its
// keywords and features) when given none, built once: building them cost a quarter of
// reading the embedded rules' metadata at start-up.
func parseOptions() ast.ParserOptions {
	return ast.ParserOptions{RegoVersion: ast.RegoV1, ProcessAnnotation: true, Capabilities: parseCapabilities()}
}

var parseCapabilities = sync.OnceValue(func() *ast.Capabilities {
	return ast.CapabilitiesForThisVersion(ast.CapabilitiesRegoVersion(ast.RegoV1))
})

// Parse parses sources as Rego v1 modules. Errors name file:line.
func Parse(srcs []Source) (map[string]*ast.Module, error) {
	mods := make(map[string]*ast.Module, len(srcs))
	var errs []error
	for _, s := range srcs {
		m, err := ast.ParseModuleWithOpts(s.Name, s.Text, parseOptions())
		if err != nil {
			errs = append(errs, regoErrors(err)...)
			continue
		}
		if _, dup := mods[s.Name]; dup {
			errs = append(errs, fmt.Errorf("%s: loaded twice", s.Name))
			continue
		}
		mods[s.Name] = m
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if errs := sandboxErrors(mods); len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return mods, nil
}

// sandboxErrors lists calls to forbidden builtins with their file:line, before the compiler
// would report them as merely "undefined".
func sandboxErrors(mods map[string]*ast.Module) []error {
	var errs []error
	for _, name := range sortedKeys(mods) {
		ast.WalkTerms(mods[name], func(t *ast.Term) bool {
			var op string
			switch v := t.Value.(type) {
			case ast.Call:
				op = v[0].String()
			case ast.Ref:
				op = v.String()
			default:
				return false
			}
			if why, no := forbidden(op); no {
				errs = append(errs, fmt.Errorf("%s: %s is not allowed: policies run sandboxed, without network, environment, file, clock or random access (%s)", where(t.Location), op, why))
				return true
			}
			return false
		})
	}
	return errs
}

// Compile parses, checks and compiles sources into rules. builtin marks the embedded rules,
// whose metadata must be complete.
func Compile(srcs []Source, builtin bool) ([]*checker.Rule, error) {
	mods, err := Parse(srcs)
	if err != nil {
		return nil, err
	}
	compiler, err := newCompiler(mods)
	if err != nil {
		return nil, err
	}
	var rules []*checker.Rule
	var errs []error
	for _, name := range sortedKeys(mods) {
		m := mods[name]
		meta, err := ruleMeta(name, m, builtin)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if meta == nil {
			continue // a library module: no METADATA id and no findings
		}
		r, err := newRegoRule(compiler, name, m, meta, builtin)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		rules = append(rules, r)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
	return rules, nil
}

// regoRule is the compiled state behind one Rego checker.Rule.
type regoRule struct {
	id   string
	file string
	pkg  string
	// src is the module of an embedded rule, compiled on first use by prepare; nil for rules
	// compiled eagerly (user policies, Compile).
	src     *Source
	once    sync.Once
	loadErr error
	query   rego.PreparedEvalQuery
	// findingsLine is the line of the first findings rule, named in contract errors.
	findingsLine int
	kinds        map[string]bool
	// kubeProxyWorkloads: skip workload documents that run no kube-proxy.
	kubeProxyWorkloads bool
	// commandLines: the rule's kinds list CommandLineKind, so it is also evaluated on each
	// text file holding kube-proxy command lines.
	commandLines bool
	// modes: evaluate only inputs with a kube-proxy instance in one of these modes.
	modes map[string]bool
	// needsReplacements: evaluate only when the view lists replacements.
	needsReplacements bool
}

func newRegoState(file, pkg string, meta *ruleMetadata) *regoRule {
	rr := &regoRule{id: meta.ID, file: file, pkg: pkg, kubeProxyWorkloads: meta.KubeProxyWorkloads, needsReplacements: meta.NeedsReplacements}
	if len(meta.Modes) > 0 {
		rr.modes = map[string]bool{}
		for _, m := range meta.Modes {
			rr.modes[m] = true
		}
	}
	if len(meta.Kinds) > 0 {
		rr.kinds = map[string]bool{}
		for _, k := range meta.Kinds {
			rr.kinds[k] = true
		}
		rr.commandLines = rr.kinds[CommandLineKind]
	}
	return rr
}

// rule returns the checker.Rule backed by rr.
func (rr *regoRule) rule(meta *ruleMetadata, builtin bool) *checker.Rule {
	r := &checker.Rule{
		ID:       meta.ID,
		Name:     meta.Name,
		Severity: meta.Severity,
		Disabled: meta.Disabled,
		Kinds:    meta.Kinds,
		Doc:      meta.Doc,
		DocURL:   meta.URL,
		External: !builtin,
		// The Rego rules share the workspace's view (stateFor), released once they all
		// returned (releaseAfterRules), before the Go rules that report most run on.
		Shares: "policy view",
	}
	if !meta.KubeProxyWorkloads && meta.Modes == nil {
		// Evaluated on every document of its kinds (eval.go), not only on kube-proxy's.
		for _, k := range meta.Kinds {
			if workloadKinds[k] {
				r.Reads = append(r.Reads, k)
			}
		}
	}
	r.Run = func(p *checker.Pass) error { return rr.run(p) }
	regoRules.Store(r, rr)
	return r
}

// prepare compiles the module of an embedded rule alone and prepares its query, once; it
// does nothing for rules compiled eagerly.
func (rr *regoRule) prepare() error {
	if rr.src == nil {
		return nil
	}
	rr.once.Do(func() {
		mods, err := Parse([]Source{*rr.src})
		if err != nil {
			rr.loadErr = err
			return
		}
		compiler, err := newCompiler(mods)
		if err != nil {
			rr.loadErr = err
			return
		}
		m := mods[rr.src.Name]
		if rr.findingsLine, err = findingsLine(m, rr.id); err == nil {
			rr.query, err = prepareQuery(compiler, rr)
		}
		rr.loadErr = err
	})
	if rr.loadErr != nil {
		return fmt.Errorf("load embedded policy: %w", rr.loadErr)
	}
	return nil
}

// newCompiler compiles mods in the sandbox.
func newCompiler(mods map[string]*ast.Module) (*ast.Compiler, error) {
	c, err := capabilities()
	if err != nil {
		return nil, err
	}
	compiler := ast.NewCompiler().
		WithCapabilities(c).
		WithDefaultRegoVersion(ast.RegoV1).
		WithEnablePrintStatements(false)
	compiler.Compile(mods)
	if compiler.Failed() {
		return nil, errors.Join(regoErrors(compiler.Errors)...)
	}
	return compiler, nil
}

// findingsLine checks the findings rules of m (a set rule, whose literal objects have msg
// and path) and returns the line of the first one; id names the rule in errors.
func findingsLine(m *ast.Module, id string) (int, error) {
	line := 0
	for _, r := range m.Rules {
		if len(r.Head.Ref()) == 1 && r.Head.Ref()[0].Value.Compare(ast.Var("findings")) == 0 {
			if r.Head.Key == nil {
				return 0, fmt.Errorf("%s: findings must be a set rule (findings contains {...} if ...)", where(r.Location))
			}
			if line == 0 {
				line = r.Location.Row
			}
		}
	}
	if line == 0 {
		return 0, fmt.Errorf("%s: rule %s has no findings rule (findings contains {\"msg\": ..., \"path\": [...]} if ...)", where(m.Package.Location), id)
	}
	if err := checkFindingHeads(m); err != nil {
		return 0, err
	}
	return line, nil
}

// prepareQuery prepares the query of the findings of rr's package.
func prepareQuery(compiler *ast.Compiler, rr *regoRule) (rego.PreparedEvalQuery, error) {
	opts := append([]func(*rego.Rego){
		rego.Compiler(compiler),
		rego.Query(rr.pkg + ".findings"),
		rego.SetRegoVersion(ast.RegoV1),
		rego.StrictBuiltinErrors(true),
	}, customFunctions()...)
	pq, err := rego.New(opts...).PrepareForEval(context.Background())
	if err != nil {
		return pq, fmt.Errorf("%s: prepare rule %s: %w", rr.file, rr.id, err)
	}
	return pq, nil
}

func newRegoRule(compiler *ast.Compiler, file string, m *ast.Module, meta *ruleMetadata, builtin bool) (*checker.Rule, error) {
	line, err := findingsLine(m, meta.ID)
	if err != nil {
		return nil, err
	}
	rr := newRegoState(file, m.Package.Path.String(), meta)
	if rr.query, err = prepareQuery(compiler, rr); err != nil {
		return nil, err
	}
	rr.findingsLine = line
	return rr.rule(meta, builtin), nil
}

// checkFindingHeads checks the findings whose value is an object literal at load time: msg
// and path present, path an array. Computed values are checked when they are produced.
func checkFindingHeads(m *ast.Module) error {
	var errs []error
	for _, r := range m.Rules {
		if len(r.Head.Ref()) != 1 || r.Head.Ref()[0].Value.Compare(ast.Var("findings")) != 0 || r.Head.Key == nil {
			continue
		}
		obj, ok := r.Head.Key.Value.(ast.Object)
		if !ok {
			continue
		}
		if obj.Get(ast.StringTerm("msg")) == nil {
			errs = append(errs, fmt.Errorf("%s: finding has no \"msg\"", where(r.Location)))
		}
		p := obj.Get(ast.StringTerm("path"))
		if p == nil {
			errs = append(errs, fmt.Errorf("%s: finding has no \"path\" (an array of keys and indices, [] for the whole document)", where(r.Location)))
			continue
		}
		switch p.Value.(type) {
		case ast.String, ast.Number, ast.Boolean, ast.Null, ast.Object, ast.Set:
			errs = append(errs, fmt.Errorf("%s: finding \"path\" must be an array of keys and indices, got %s", where(r.Location), p))
		}
	}
	return errors.Join(errs...)
}

// where formats a Rego location as file:line.
func where(l *ast.Location) string {
	if l == nil {
		return "<unknown>"
	}
	return fmt.Sprintf("%s:%d", l.File, l.Row)
}

// regoErrors turns OPA errors into errors that start with file:line.
func regoErrors(err error) []error {
	var aerrs ast.Errors
	if errors.As(err, &aerrs) {
		out := make([]error, 0, len(aerrs))
		for i, e := range aerrs {
			if restated(aerrs, i) {
				continue
			}
			out = append(out, fmt.Errorf("%s: %s", where(e.Location), e.Message))
		}
		return out
	}
	return []error{err}
}

// restated reports whether error i says nothing that another error at the same line does not
// say: OPA's parser reports a syntax error once bare ("unexpected eof token") and once with a
// hint ("unexpected eof token: expected rule value term ..."), and a user must read it once.
func restated(errs ast.Errors, i int) bool {
	e := errs[i]
	for j, o := range errs {
		if j == i || where(o.Location) != where(e.Location) {
			continue
		}
		if o.Message == e.Message && j < i {
			return true // an exact repeat: keep the first
		}
		if o.Message != e.Message && strings.HasPrefix(o.Message, e.Message) {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
