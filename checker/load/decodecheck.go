package load

import (
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Typed decoding for problems only (issue 24). The kinds whose typed object no rule reads
// (readTyped) are decoded only to report the values their types reject; most documents have
// none, and decoding them (the tree as JSON, then sigs.k8s.io/json into the object, whose
// object is dropped) was a tenth of a large run's CPU. decodesCleanly walks the tree against
// the Go type instead, with the semantics of nodeJSON and encoding/json (case-sensitive
// field names, unknown fields ignored, null accepted everywhere), and answers true only when
// the decoding cannot fail; whenever it is unsure (an alias or merge key, a type with its
// own decoder other than Quantity and IntOrString, a float where a number is not a float,
// anything unusual) it answers false and the document is decoded as before, which reports
// the problem as before. A template's documents are decoded without the values that hold a
// placeholder (withoutPlaceholders): the walk skips those values as the decoding does.
// FuzzDecodesCleanly checks it against the decoder, both ways.

// decodesCleanly reports whether decoding n into a value of type t (nodeJSON, then
// sigs.k8s.io/json) surely succeeds; for a template's document (templated), whether
// decoding its generic form without the values that hold placeholders does
// (withoutPlaceholders, then encoding/json and sigs.k8s.io/json: decodeTyped).
func decodesCleanly(n *yaml.Node, t reflect.Type, templated bool) bool {
	return cleaner{templated}.value(n, t, 0)
}

// cleaner walks a tree for decodesCleanly; templated skips the values withoutPlaceholders
// drops.
type cleaner struct{ templated bool }

// dropped reports whether n is a mapping value or sequence item that withoutPlaceholders
// leaves out of a template's document: a string holding a placeholder.
func (c cleaner) dropped(n *yaml.Node) bool {
	if !c.templated || n.Kind != yaml.ScalarNode {
		return false
	}
	s, ok := checker.GenericScalar(n).(string)
	return ok && text.HasPlaceholder(s)
}

var (
	quantityType    = reflect.TypeFor[resource.Quantity]()
	intOrStringType = reflect.TypeFor[intstr.IntOrString]()
)

func (c cleaner) value(n *yaml.Node, t reflect.Type, depth int) bool {
	if depth > maxNodeJSONDepth/2 {
		return false
	}
	switch n.Kind {
	case yaml.AliasNode:
		return false
	case yaml.ScalarNode:
	case yaml.MappingNode, yaml.SequenceNode:
	default:
		return false // nodeJSON writes null for other kinds; left to the decoder
	}
	var v any
	if n.Kind == yaml.ScalarNode {
		v = checker.GenericScalar(n)
		if v == nil {
			return true // JSON null: a no-op for every type
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case quantityType:
		return cleanQuantity(v)
	case intOrStringType:
		switch x := v.(type) {
		case string:
			return true
		case int64:
			return x >= math.MinInt32 && x <= math.MaxInt32
		}
		return false
	}
	if t.Kind() != reflect.Interface && decodesItself(t) {
		return false
	}
	switch n.Kind {
	case yaml.MappingNode:
		switch t.Kind() {
		case reflect.Interface:
			return t.NumMethod() == 0 && c.children(n, depth)
		case reflect.Struct:
			fields := jsonFields(t)
			if fields == nil {
				return false
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, val := n.Content[i], n.Content[i+1]
				if mergeKey(k) || k.Kind == yaml.AliasNode {
					return false
				}
				if c.dropped(val) {
					continue
				}
				if ft, ok := fields[k.Value]; ok {
					if !c.value(val, ft, depth+1) {
						return false
					}
				} else if !c.value(val, reflect.TypeFor[any](), depth+1) {
					return false // ignored by the decoder, but still written by nodeJSON
				}
			}
			return true
		case reflect.Map:
			if t.Key().Kind() != reflect.String || decodesItself(t.Key()) {
				return false
			}
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, val := n.Content[i], n.Content[i+1]
				if mergeKey(k) || k.Kind == yaml.AliasNode {
					return false
				}
				if !c.dropped(val) && !c.value(val, t.Elem(), depth+1) {
					return false
				}
			}
			return true
		}
		return false
	case yaml.SequenceNode:
		switch t.Kind() {
		case reflect.Interface:
			return t.NumMethod() == 0 && c.children(n, depth)
		case reflect.Slice:
			if t.Elem().Kind() == reflect.Uint8 {
				return false // []byte is base64 in JSON
			}
			for _, item := range n.Content {
				if !c.dropped(item) && !c.value(item, t.Elem(), depth+1) {
					return false
				}
			}
			return true
		}
		return false
	}
	return cleanScalar(v, t)
}

// children: any value of n's subtree decodes into an interface{} (what nodeJSON writes of
// it, aliases and merge keys aside).
func (c cleaner) children(n *yaml.Node, depth int) bool {
	for i, x := range n.Content {
		key := n.Kind == yaml.MappingNode && i%2 == 0
		if key && (mergeKey(x) || x.Kind == yaml.AliasNode) {
			return false
		}
		if !key && c.dropped(x) {
			continue
		}
		if !c.value(x, reflect.TypeFor[any](), depth+1) {
			return false
		}
	}
	return true
}

// cleanScalar: the JSON value nodeJSON writes for a scalar whose generic value is v decodes
// into a t.
func cleanScalar(v any, t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Interface:
		if t.NumMethod() != 0 {
			return false
		}
		switch v.(type) {
		case bool, int64, uint64, string, float64:
			return true
		}
		return false
	case reflect.String:
		_, ok := v.(string)
		return ok
	case reflect.Bool:
		_, ok := v.(bool)
		return ok
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		x, ok := v.(int64)
		if !ok {
			return false
		}
		bits := t.Bits()
		return x >= -1<<(bits-1) && x <= 1<<(bits-1)-1
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		switch x := v.(type) {
		case int64:
			return x >= 0 && (t.Bits() == 64 || uint64(x) <= 1<<t.Bits()-1)
		case uint64:
			return t.Bits() == 64
		}
		return false
	case reflect.Float64:
		switch v.(type) {
		case int64, uint64, float64:
			return true
		}
		return false
	}
	return false
}

// cleanQuantity: resource.Quantity's decoder parses the JSON text (a string's without its
// quotes, and trimmed); a string that JSON would escape is left to the decoder.
func cleanQuantity(v any) bool {
	var s string
	switch x := v.(type) {
	case string:
		for i := 0; i < len(x); i++ {
			if c := x[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return false
			}
		}
		s = strings.TrimSpace(x)
	case int64:
		s = strconv.FormatInt(x, 10)
	case uint64:
		s = strconv.FormatUint(x, 10)
	default:
		return false
	}
	_, err := resource.ParseQuantity(s)
	return err == nil
}

// jsonFields maps the JSON names of t's fields (embedded structs' promoted as encoding/json
// promotes them: a shallower field wins) to their types; nil when t has a name given twice at
// one depth, or an embedded pointer, which the walk leaves to the decoder.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if v, ok := jsonFieldCache.Load(t); ok {
		return v.(map[string]reflect.Type)
	}
	out := collectFields(t)
	jsonFieldCache.Store(t, out)
	return out
}

// jsonFieldCache: reflect.Type -> map[string]reflect.Type (nil: not handled). fieldIssues'
// structFields reads the names as the strict decoder reads them; this is encoding/json's
// reading, which decides whether decoding fails.
var jsonFieldCache sync.Map

func collectFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	level := []reflect.Type{t}
	for depth := 0; len(level) > 0; depth++ {
		if depth > 8 {
			return nil
		}
		var next []reflect.Type
		here := map[string]bool{}
		for _, st := range level {
			for i := 0; i < st.NumField(); i++ {
				f := st.Field(i)
				tag := f.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if strings.Contains(","+opts+",", ",string,") {
					return nil // a number or boolean written as a JSON string
				}
				if f.Anonymous && name == "" {
					switch f.Type.Kind() {
					case reflect.Pointer:
						return nil
					case reflect.Struct:
						next = append(next, f.Type)
						continue
					}
				}
				if !f.IsExported() {
					continue
				}
				if name == "" {
					name = f.Name
				}
				if here[name] {
					return nil // twice at one depth: encoding/json's rules decide
				}
				here[name] = true
				if _, shallower := out[name]; !shallower {
					out[name] = f.Type
				}
			}
		}
		level = next
	}
	return out
}
