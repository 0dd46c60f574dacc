package checker

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"

	"go.yaml.in/yaml/v3"
)

// genericCache holds a document's generic form, computed once on first use by Generic: the
// loader's typed decoding (of the few kinds it knows) needs it and drops it after
// (DropGeneric); the Rego rules convert each document they evaluate without keeping the form
// (GenericUncached), except the forms that expanded aliases, which stay cached.
type genericCache struct {
	once sync.Once
	// done is set once the form is cached (GenericUncached reads it without the once).
	done atomic.Bool
	v    any
	err  error
	// aliased: the conversion expanded aliases and spent alias budget, so it is kept (a
	// second conversion would spend the budget again).
	aliased bool
}

// Alias expansion budgets. A "billion laughs" document is small in the source and huge once
// its aliases are expanded. The generic form shares an anchor's value between its aliases, so
// it costs memory in proportion to the source; but the typed decoding and anything that walks
// the value (json.Marshal, Rego's input conversion, rules) sees the expansion. So the nodes
// that expansion adds beyond the document's own are counted, without expanding anything,
// against one budget per file (all its documents, embedded ones included) and one per run
// (AliasBudget, shared by every file of a load). A document that does not fit fails to
// convert, with an error naming the budget.
const (
	// MaxFileAliasNodes is the per-file budget of nodes added by alias expansion.
	MaxFileAliasNodes = 1 << 20
	// MaxRunAliasNodes is the default per-run budget (see NewAliasBudget).
	MaxRunAliasNodes = 4 << 20
	// maxGenericDepth bounds nesting, also through aliases.
	maxGenericDepth = 1000
)

// AliasBudget is a budget of nodes that alias expansion may add, shared by concurrent users.
type AliasBudget struct{ left atomic.Int64 }

// NewAliasBudget returns a budget of n nodes.
func NewAliasBudget(n int64) *AliasBudget {
	b := &AliasBudget{}
	b.left.Store(n)
	return b
}

// take spends n nodes, or reports false (and spends nothing) when fewer are left.
func (b *AliasBudget) take(n int64) bool {
	for {
		left := b.left.Load()
		if left < n {
			return false
		}
		if b.left.CompareAndSwap(left, left-n) {
			return true
		}
	}
}

// Generic returns the document as JSON-compatible values (map[string]any, []any, string,
// bool, int64, uint64, float64, nil) the way Kubernetes' YAML 1.1 reader sees it: aliases and
// merge keys expanded, plain yes/no/on/off read as booleans. It is computed once and safe for
// concurrent use; callers must not modify the result, whose parts may be shared (every alias
// of an anchor yields the anchor's value).
func (d *Document) Generic() (any, error) {
	g := d.genericCache()
	g.once.Do(func() {
		defer g.done.Store(true)
		if d.Node == nil {
			return
		}
		c := newGenericConv()
		expanded, err := c.size(d.Node, 0)
		if err != nil {
			g.err = err
			return
		}
		if extra := expanded - countNodes(d.Node); extra > 0 {
			g.aliased = true
			outer := d.File.Outer()
			if !outer.fileAliasBudget().take(extra) {
				g.err = fmt.Errorf("document expands aliases to %d more nodes than the file's budget of %d allows (possible alias bomb)", extra, MaxFileAliasNodes)
				return
			}
			if outer.AliasBudget != nil && !outer.AliasBudget.take(extra) {
				g.err = fmt.Errorf("document expands aliases to %d more nodes, beyond what is left of the run's budget (possible alias bomb)", extra)
				return
			}
		}
		g.v, g.err = c.value(d.Node, 0)
	})
	return g.v, g.err
}

// genericCache returns the document's cache of its generic form, made on first use: most
// documents never have one, and the cache is a fifth of a Document's size.
func (d *Document) genericCache() *genericCache {
	if g := d.generic.Load(); g != nil {
		return g
	}
	d.generic.CompareAndSwap(nil, &genericCache{})
	return d.generic.Load()
}

// GenericUncached returns what Generic returns without keeping it on the document, so that
// a caller that converts a document for one use (the Rego rules build each document's input
// right before its evaluation) holds the form only while it uses it. The form is kept, as
// Generic keeps it, when it was cached before or when the conversion expands aliases: a second
// conversion of those would spend the alias budget again.
func (d *Document) GenericUncached() (any, error) {
	if g := d.generic.Load(); g != nil && g.done.Load() {
		return g.v, g.err
	}
	if d.Node == nil {
		return nil, nil
	}
	c := newGenericConv()
	expanded, err := c.size(d.Node, 0)
	if err != nil {
		return nil, err
	}
	if expanded > countNodes(d.Node) {
		return d.Generic()
	}
	return c.value(d.Node, 0)
}

// DropGeneric forgets the cached generic form so that its memory is released; a later
// Generic converts again. The loader calls it once its typed decoding is done (most
// documents are never read generically again, and their maps were the largest part of a run's
// heap after the node trees). It must not run concurrently with Generic. A form that expanded
// aliases is kept: converting it again would spend the alias budget twice.
func (d *Document) DropGeneric() {
	if g := d.generic.Load(); g != nil && (g.aliased || g.err != nil) {
		return
	}
	d.generic.Store(nil)
}

// genericConv converts one document, sharing the values and sizes of aliased nodes.
type genericConv struct {
	values map[*yaml.Node]any
	sizes  map[*yaml.Node]int64
	open   map[*yaml.Node]bool // nodes being sized: an alias to one is a cycle
}

func newGenericConv() *genericConv {
	return &genericConv{values: map[*yaml.Node]any{}, sizes: map[*yaml.Node]int64{}, open: map[*yaml.Node]bool{}}
}

// maxCount saturates sizes, so that sums cannot overflow.
const maxCount = 1 << 50

// size returns the number of nodes n stands for once aliases are expanded, without
// expanding them.
func (c *genericConv) size(n *yaml.Node, depth int) (int64, error) {
	if depth > maxGenericDepth {
		return 0, fmt.Errorf("document nests deeper than %d levels", maxGenericDepth)
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return 0, errors.New("unknown alias")
		}
		n = n.Alias
		if s, ok := c.sizes[n]; ok {
			return s, nil
		}
		if c.open[n] {
			return 0, errors.New("document refers to itself through an alias (recursive alias)")
		}
	}
	c.open[n] = true
	defer delete(c.open, n)
	total := int64(1)
	for _, ch := range n.Content {
		s, err := c.size(ch, depth+1)
		if err != nil {
			return 0, err
		}
		total = min(total+s, maxCount)
	}
	if n.Anchor != "" {
		c.sizes[n] = total
	}
	return total, nil
}

// countNodes counts the nodes of the tree as written, aliases as one node each.
func countNodes(n *yaml.Node) int64 {
	total := int64(1)
	for _, ch := range n.Content {
		total += countNodes(ch)
	}
	return total
}

func (c *genericConv) value(n *yaml.Node, depth int) (any, error) {
	if depth > maxGenericDepth {
		return nil, fmt.Errorf("document nests deeper than %d levels", maxGenericDepth)
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errors.New("unknown alias")
		}
		return c.value(n.Alias, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return c.value(n.Content[0], depth+1)
	case yaml.MappingNode, yaml.SequenceNode:
		if v, ok := c.values[n]; ok {
			return v, nil
		}
	case yaml.ScalarNode:
		return GenericScalar(n), nil
	default:
		return nil, nil
	}
	var out any
	if n.Kind == yaml.MappingNode {
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			val, err := c.value(v, depth+1)
			if err != nil {
				return nil, err
			}
			if k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0 {
				mergeGeneric(m, val)
				continue
			}
			m[k.Value] = val
		}
		out = m
	} else {
		s := make([]any, 0, len(n.Content))
		for _, ch := range n.Content {
			val, err := c.value(ch, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, val)
		}
		out = s
	}
	if n.Anchor != "" {
		c.values[n] = out
	}
	return out, nil
}

// mergeGeneric applies a YAML merge key: keys already present win.
func mergeGeneric(m map[string]any, v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, val := range x {
			if _, ok := m[k]; !ok {
				m[k] = val
			}
		}
	case []any:
		for _, e := range x {
			mergeGeneric(m, e)
		}
	}
}

// decimalInt reads the common int forms ("0", "42", "-7") without a YAML decoder (one per
// scalar was a large part of typed decoding); other forms (octal, hex, signs, underscores,
// large values) are left to the decoder.
func decimalInt(s string) (int64, bool) {
	d := s
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 || len(d) > 1 && d[0] == '0' {
		return 0, false
	}
	var v int64
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if s[0] == '-' {
		v = -v
	}
	return v, true
}

// GenericScalar resolves a scalar by its tag as Kubernetes' YAML 1.1 reader would: plain
// yes/no/on/off are booleans, ints stay integers, infinities and NaN stay strings (JSON has no
// such numbers). Document.Generic and the loader's typed decoding both read scalars this way.
func GenericScalar(n *yaml.Node) any {
	if n.ShortTag() == "!!str" {
		if b, ok := YAML11Bool(n); ok {
			return b
		}
	}
	switch n.ShortTag() {
	case "!!null":
		return nil
	case "!!bool":
		switch n.Value {
		case "true", "True", "TRUE":
			return true
		case "false", "False", "FALSE":
			return false
		}
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
		if i, ok := decimalInt(n.Value); ok {
			return i
		}
		var i int64
		if n.Decode(&i) == nil {
			return i
		}
		var u uint64
		if n.Decode(&u) == nil {
			return u
		}
	case "!!float":
		var f float64
		if n.Decode(&f) == nil && !math.IsInf(f, 0) && !math.IsNaN(f) {
			return f
		}
	}
	return n.Value
}
