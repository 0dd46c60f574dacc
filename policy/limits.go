package policy

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
	"github.com/open-policy-agent/opa/v1/topdown/builtins"

	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
)

// Memory bounds of Rego evaluation. The timeout stops an evaluation between steps, but one
// builtin call can allocate gigabytes before the next step (replace(s, "", s) on a 1 MB
// string builds 1 TB), and a few calls in a comprehension can exhaust memory within the
// timeout. So every builtin that builds a value is checked before it allocates (the size it
// would build, computed from its operands) and charged after (the size it built) against
// one meter per evaluation, which also draws from the run's budget (internal/budget).
var (
	// MaxValueBytes bounds one value built by one builtin call.
	MaxValueBytes int64 = 64 << 20
	// MaxEvalBytes bounds what the builtins of one evaluation (one rule on one document)
	// build together; with a run budget, at most a quarter of it.
	MaxEvalBytes int64 = 512 << 20
)

// termBytes is what one term costs beyond its string content, roughly (the Term, its Value
// interface and a slot in its container).
const termBytes = 64

// errValueBudget is the cause of a refused builtin call.
var errValueBudget = errors.New("the evaluation's memory budget")

// meter is the memory account of one evaluation.
type meter struct {
	used, limit int64
	run         *budget.Budget
	what        func() string // names the rule and document, for the message
	named       string
}

type meterKey struct{}

// withMeter returns ctx carrying a new meter for one evaluation.
func withMeter(ctx context.Context, what func() string) (context.Context, *meter) {
	b := budget.From(ctx)
	m := &meter{limit: MaxEvalBytes, run: b, what: what}
	if b != nil {
		m.limit = min(m.limit, b.Fraction(4, m.limit))
	}
	return context.WithValue(ctx, meterKey{}, m), m
}

// done returns the meter's charge to the run budget.
func (m *meter) done() {
	if m != nil {
		m.run.Release(m.used)
	}
}

func meterOf(bctx topdown.BuiltinContext) *meter {
	if bctx.Context == nil {
		return nil
	}
	m, _ := bctx.Context.Value(meterKey{}).(*meter)
	return m
}

// check refuses a call that would build n bytes: over MaxValueBytes, or over what the
// evaluation has left.
func (m *meter) check(name string, n int64) error {
	limit := MaxValueBytes
	if m != nil {
		limit = min(limit, m.limit-m.used)
	}
	if n <= limit {
		return nil
	}
	return m.refuse(name, n)
}

// charge accounts for n bytes built.
func (m *meter) charge(name string, n int64) error {
	if m == nil || n <= 0 {
		return nil
	}
	m.used += n
	if m.used > m.limit {
		return m.refuse(name, n)
	}
	if err := m.run.Charge(n, m.name()); err != nil {
		return topdown.Halt{Err: err}
	}
	return nil
}

// name names the rule and document, computed once per evaluation.
func (m *meter) name() string {
	if m == nil || m.what == nil {
		return "a policy"
	}
	if m.named == "" {
		m.named = m.what()
	}
	return m.named
}

// refuse stops the evaluation; with a run budget, the run stops too (the policy spent it).
// n is what the call would build (check) or has built (charge).
func (m *meter) refuse(name string, n int64) error {
	// Which bound it went over: what the evaluation has left, else one value's.
	bound, of := MaxValueBytes, "one value may hold"
	if m != nil && n <= MaxValueBytes {
		bound, of = m.limit, "one evaluation may build"
	}
	err := fmt.Errorf("%s would build %s, over %w (%s %s)", name, budget.Size(n), errValueBudget, budget.Size(bound), of)
	if m != nil && m.run != nil {
		what := fmt.Sprintf("%s (%s: over the %s %s)", m.name(), name, budget.Size(bound), of)
		m.run.Fail(&budget.ExceededError{Resource: budget.Memory, Limit: m.run.MaxMemory, What: what, While: what})
	}
	return topdown.Halt{Err: err}
}

// valueSize is the size of v, counted as a tree (a value referenced twice counts twice, as
// serializing it would build it twice), stopping once it exceeds limit.
func valueSize(v ast.Value, limit int64) int64 {
	var n int64
	var walk func(v ast.Value)
	walk = func(v ast.Value) {
		if n > limit {
			return
		}
		n += termBytes
		switch x := v.(type) {
		case ast.String:
			n += int64(len(x))
		case ast.Number:
			n += int64(len(x))
		case *ast.Array:
			for i := 0; i < x.Len() && n <= limit; i++ {
				walk(x.Elem(i).Value)
			}
		case ast.Set:
			_ = x.Iter(func(t *ast.Term) error {
				walk(t.Value)
				if n > limit {
					return errValueBudget
				}
				return nil
			})
		case ast.Object:
			_ = x.Iter(func(k, e *ast.Term) error {
				walk(k.Value)
				walk(e.Value)
				if n > limit {
					return errValueBudget
				}
				return nil
			})
		}
	}
	walk(v)
	return n
}

// operandsSize is the size of the operands of a call, bounded by limit.
func operandsSize(ops []*ast.Term, limit int64) int64 {
	var n int64
	for _, t := range ops {
		n += valueSize(t.Value, limit-n)
		if n > limit {
			break
		}
	}
	return n
}

// guard is a check made before a builtin runs: the size it would build.
type guard func(ops []*ast.Term) (int64, error)

// limited wraps the implementation of builtin name: guard (when set) before the call, the
// size of the result charged after it.
func limited(name string, g guard, orig topdown.BuiltinFunc) topdown.BuiltinFunc {
	return func(bctx topdown.BuiltinContext, ops []*ast.Term, iter func(*ast.Term) error) error {
		m := meterOf(bctx)
		if g != nil {
			n, err := g(ops)
			if err != nil {
				return err
			}
			if err := m.check(name, n); err != nil {
				return err
			}
		}
		size := resultSize
		if freshResults[name] {
			size = func(v ast.Value) int64 { return valueSize(v, MaxValueBytes+1) }
		}
		return orig(bctx, ops, func(t *ast.Term) error {
			if t != nil {
				if err := m.charge(name, size(t.Value)); err != nil {
					return err
				}
			}
			return iter(t)
		})
	}
}

// freshResults are the builtins whose whole result is new (decoders and parsers): charged
// as a tree, not by their top-level elements.
var freshResults = map[string]bool{
	"json.unmarshal": true, "yaml.unmarshal": true, "base64.decode": true, "rego.parse_module": true,
	"graphql.parse": true, "graphql.parse_query": true, "graphql.parse_schema": true,
	"graphql.parse_and_verify": true, "urlquery.decode_object": true,
}

// resultSize is what a result costs: strings and numbers by their length, containers by
// their number of elements (their elements are often shared with the operands).
func resultSize(v ast.Value) int64 {
	switch x := v.(type) {
	case ast.String:
		return int64(len(x))
	case ast.Number:
		return int64(len(x))
	case *ast.Array:
		return int64(x.Len()) * termBytes
	case ast.Set:
		return int64(x.Len()) * termBytes
	case ast.Object:
		return int64(x.Len()) * 2 * termBytes
	}
	return 0
}

// deepGuard bounds the operands as trees: the builtin serializes or copies them whole.
func deepGuard(ops []*ast.Term) (int64, error) {
	return operandsSize(ops, MaxValueBytes+1), nil
}

func str(ops []*ast.Term, i int) string {
	if i < len(ops) {
		if s, ok := ops[i].Value.(ast.String); ok {
			return string(s)
		}
	}
	return ""
}

// replaceGuard: replace(s, old, new) builds len(s) + count*(len(new)-len(old)).
func replaceGuard(ops []*ast.Term) (int64, error) {
	s, old, nw := str(ops, 0), str(ops, 1), str(ops, 2)
	n := int64(utf8.RuneCountInString(s) + 1)
	if old != "" {
		n = int64(strings.Count(s, old))
	}
	return int64(len(s)) + n*int64(max(len(nw)-len(old), 0)), nil
}

// replaceNGuard: strings.replace_n(patterns, s) writes at most one replacement per byte of s
// (and one more at its end), each at most the longest replacement.
func replaceNGuard(ops []*ast.Term) (int64, error) {
	obj, _ := ops[0].Value.(ast.Object)
	s := str(ops, 1)
	longest, empty := 0, false
	if obj != nil {
		_ = obj.Iter(func(k, v *ast.Term) error {
			if ks, ok := k.Value.(ast.String); ok {
				empty = empty || ks == ""
				if vs, ok := v.Value.(ast.String); ok && len(vs) > longest {
					longest = len(vs)
				}
			}
			return nil
		})
	}
	if !empty && longest <= 1 {
		return int64(len(s)) + 1, nil
	}
	return int64(len(s)) + int64(len(s)+1)*int64(longest), nil
}

// regexReplaceGuard: regex.replace(s, pattern, repl) writes, per match, repl with each $
// reference expanded to at most the match.
func regexReplaceGuard(ops []*ast.Term) (int64, error) {
	s, pat, repl := str(ops, 0), str(ops, 1), str(ops, 2)
	re, err := compileCached(pat)
	if err != nil {
		return 0, nil // the builtin reports it
	}
	refs := int64(strings.Count(repl, "$"))
	matches := int64(len(re.FindAllStringIndex(s, -1)))
	return int64(len(s)) + matches*int64(len(repl)) + refs*int64(len(s)) + matches*refs, nil
}

// matchesGuard: a builtin returning one term per match of a pattern (regex.find_n,
// regex.split, regex.find_all_string_submatch_n): the terms, times the groups.
func matchesGuard(patternArg, stringArg int, groups bool) guard {
	return func(ops []*ast.Term) (int64, error) {
		re, err := compileCached(str(ops, patternArg))
		if err != nil {
			return 0, nil
		}
		n := int64(len(re.FindAllStringIndex(str(ops, stringArg), -1)) + 1)
		if groups {
			n *= int64(re.NumSubexp() + 1)
		}
		return n * termBytes, nil
	}
}

// regexCache keeps the patterns the guards compiled (OPA keeps its own), so a guard does not
// compile a pattern on every call in a loop. It is bounded: past maxCachedRegexps, patterns
// are compiled each time.
var regexCache sync.Map

var regexCached atomic.Int64

const maxCachedRegexps = 1000

func compileCached(pat string) (*regexp.Regexp, error) {
	if re, ok := regexCache.Load(pat); ok {
		return re.(*regexp.Regexp), nil
	}
	re, err := regexp.Compile(pat)
	if err == nil && regexCached.Add(1) <= maxCachedRegexps {
		regexCache.Store(pat, re)
	}
	return re, err
}

// splitGuard: split(s, sep) and indexof_n(s, sep) return one term per occurrence.
func splitGuard(ops []*ast.Term) (int64, error) {
	s, sep := str(ops, 0), str(ops, 1)
	n := int64(utf8.RuneCountInString(s) + 1)
	if sep != "" {
		n = int64(strings.Count(s, sep) + 1)
	}
	return n * termBytes, nil
}

// concatGuard: concat(sep, xs) builds the strings and a separator between each two.
func concatGuard(ops []*ast.Term) (int64, error) {
	sep := int64(len(str(ops, 0)))
	var n, total int64
	add := func(t *ast.Term) error {
		if s, ok := t.Value.(ast.String); ok {
			total += int64(len(s))
		}
		n++
		return nil
	}
	switch x := ops[1].Value.(type) {
	case *ast.Array:
		x.Foreach(func(t *ast.Term) { _ = add(t) })
	case ast.Set:
		_ = x.Iter(add)
	}
	return total + max(n-1, 0)*sep, nil
}

// sprintfGuard: a width or precision in the format pads the output ("%0999999999d"), and
// %v writes whole values.
func sprintfGuard(ops []*ast.Term) (int64, error) {
	f := str(ops, 0)
	n := int64(len(f))
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		for i++; i < len(f) && strings.IndexByte("+-# 0", f[i]) >= 0; i++ {
		}
		for i < len(f) && (f[i] >= '0' && f[i] <= '9' || f[i] == '.' || f[i] == '*' || f[i] == '[' || f[i] == ']') {
			if f[i] == '*' {
				return 0, topdown.Halt{Err: errors.New("sprintf: a width or precision from the arguments (*) is refused in the sandbox")}
			}
			j := i
			var w int64
			for ; j < len(f) && f[j] >= '0' && f[j] <= '9'; j++ {
				if w < 1<<40 {
					w = w*10 + int64(f[j]-'0')
				}
			}
			n += w
			i = max(j, i+1)
		}
	}
	return n + operandsSize(ops[1:], MaxValueBytes+1), nil
}

// shiftGuard: bits.lsh(x, s) builds a number of s bits.
func shiftGuard(ops []*ast.Term) (int64, error) {
	n, err := builtins.BigIntOperand(ops[1].Value, 2)
	if err != nil {
		return 0, nil
	}
	if !n.IsInt64() {
		return 1 << 62, nil
	}
	return n.Int64()/8*3 + 1, nil // decimal digits, as OPA keeps numbers
}

// valueGuards are the builtins checked before they run, with what they would build.
var valueGuards = map[string]guard{
	ast.Replace.Name:                    replaceGuard,
	ast.ReplaceN.Name:                   replaceNGuard,
	ast.RegexReplace.Name:               regexReplaceGuard,
	ast.RegexFind.Name:                  matchesGuard(0, 1, false),
	ast.RegexSplit.Name:                 matchesGuard(0, 1, false),
	ast.RegexFindAllStringSubmatch.Name: matchesGuard(0, 1, true),
	ast.Split.Name:                      splitGuard,
	ast.IndexOfN.Name:                   splitGuard,
	ast.Concat.Name:                     concatGuard,
	ast.Sprintf.Name:                    sprintfGuard,
	ast.BitsShiftLeft.Name:              shiftGuard,
	ast.JSONMarshal.Name:                deepGuard,
	ast.JSONMarshalWithOptions.Name:     deepGuard,
	ast.YAMLMarshal.Name:                deepGuard,
	ast.ArrayFlatten.Name:               deepGuard,
	ast.InternalTemplateString.Name:     deepGuard,
	ast.Trace.Name:                      deepGuard,
	ast.InternalPrint.Name:              deepGuard,
	ast.CastString.Name:                 deepGuard,
	ast.JSONPatch.Name:                  deepGuard,
	ast.URLQueryEncodeObject.Name:       deepGuard,
}

// valueBuilders are the builtins whose results are charged: whatever builds a string, a
// number or a container. Comparisons, type tests, lookups (object.get, walk) and slices of a
// string (trim*, substring) return booleans or parts of their operands, which cost nothing
// new.
var valueBuilders = []string{
	"array.concat", "array.reverse", "array.slice", "base64.decode", "base64.encode",
	"base64url.decode", "base64url.encode", "base64url.encode_no_pad", "bits.and", "bits.lsh",
	"bits.negate", "bits.or", "bits.rsh", "bits.xor", "cast_array", "cast_object", "cast_set",
	"crypto.hmac.md5", "crypto.hmac.sha1", "crypto.hmac.sha256", "crypto.hmac.sha512",
	"crypto.md5", "crypto.sha1", "crypto.sha256", "div", "format_int", "graph.reachable",
	"hex.decode", "hex.encode", "intersection", "json.filter", "json.remove", "json.unmarshal",
	"lower", "minus", "mul", "numbers.range", "numbers.range_step", "object.filter",
	"object.keys", "object.remove", "object.union", "object.union_n", "plus", "product",
	"regex.template_match", "strings.reverse", "strings.split_n", "sum", "union",
	"units.parse", "units.parse_bytes", "upper", "urlquery.decode", "urlquery.decode_object",
	"urlquery.encode", "yaml.unmarshal", "sort", "set_diff", "rego.parse_module",
	"graphql.parse", "graphql.parse_query", "graphql.parse_schema", "graphql.parse_and_verify",
}

func init() {
	wrap := func(name string, g guard) {
		orig := topdown.GetBuiltin(name)
		if orig == nil {
			return // TestValueGuardsRegistered names it
		}
		topdown.RegisterBuiltinFunc(name, limited(name, g, orig))
	}
	for name, g := range valueGuards {
		wrap(name, g)
	}
	for _, name := range valueBuilders {
		if _, ok := valueGuards[name]; !ok {
			wrap(name, nil)
		}
	}
}

// LimitedBuiltins lists the builtins whose values are bounded (for tests).
func LimitedBuiltins() []string {
	out := slices.Clone(valueBuilders)
	for name := range valueGuards {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}
