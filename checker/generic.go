package checker

import (
	"errors"
	"math"
	"sync"

	"go.yaml.in/yaml/v3"
)

// genericCache holds a document's generic form, computed once on first use: the loader's
// typed decoding (of the few kinds it knows) and Rego rules need it, so other documents never
// pay for it in runs without Rego rules.
type genericCache struct {
	once sync.Once
	v    any
	err  error
}

// maxGenericNodes bounds the nodes visited while expanding aliases, so that a "billion laughs"
// document cannot exhaust memory when converted.
const maxGenericNodes = 1 << 20

// Generic returns the document as JSON-compatible values (map[string]any, []any, string,
// bool, int64, uint64, float64, nil) the way Kubernetes' YAML 1.1 reader sees it: aliases and
// merge keys expanded, plain yes/no/on/off read as booleans. It is computed once and safe for
// concurrent use; callers must not modify the result.
func (d *Document) Generic() (any, error) {
	d.generic.once.Do(func() {
		if d.Node == nil {
			return
		}
		budget := maxGenericNodes
		d.generic.v, d.generic.err = genericValue(d.Node, &budget, 0)
	})
	return d.generic.v, d.generic.err
}

func genericValue(n *yaml.Node, budget *int, depth int) (any, error) {
	*budget--
	if *budget < 0 {
		return nil, errors.New("document expands aliases beyond the limit (possible alias bomb)")
	}
	if depth > 1000 {
		return nil, errors.New("document nests deeper than 1000 levels")
	}
	switch n.Kind {
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil, errors.New("unknown alias")
		}
		return genericValue(n.Alias, budget, depth+1)
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return genericValue(n.Content[0], budget, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			val, err := genericValue(v, budget, depth+1)
			if err != nil {
				return nil, err
			}
			if k.Tag == "!!merge" || k.Value == "<<" && k.Style == 0 {
				mergeGeneric(m, val)
				continue
			}
			m[k.Value] = val
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			val, err := genericValue(c, budget, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, val)
		}
		return s, nil
	case yaml.ScalarNode:
		return GenericScalar(n), nil
	}
	return nil, nil
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
		var b bool
		if n.Decode(&b) == nil {
			return b
		}
	case "!!int":
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
