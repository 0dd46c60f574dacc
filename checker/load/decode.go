package load

import (
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"
	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	kpv1 "k8s.io/kube-proxy/config/v1alpha1"
	kjson "sigs.k8s.io/json"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// typeKey identifies a typed kind.
type typeKey struct{ group, kind string }

// knownTypes maps group (apiVersion without version) and kind to a constructor.
var knownTypes = map[typeKey]func() any{
	{"kubeproxy.config.k8s.io", "KubeProxyConfiguration"}: func() any { return &kpv1.KubeProxyConfiguration{} },
	{"", "ConfigMap"}:       func() any { return &corev1.ConfigMap{} },
	{"", "Pod"}:             func() any { return &corev1.Pod{} },
	{"", "Service"}:         func() any { return &corev1.Service{} },
	{"apps", "DaemonSet"}:   func() any { return &appsv1.DaemonSet{} },
	{"apps", "Deployment"}:  func() any { return &appsv1.Deployment{} },
	{"apps", "StatefulSet"}: func() any { return &appsv1.StatefulSet{} },
	{"apps", "ReplicaSet"}:  func() any { return &appsv1.ReplicaSet{} },
	{"batch", "Job"}:        func() any { return &batchv1.Job{} },
	{"batch", "CronJob"}:    func() any { return &batchv1.CronJob{} },
}

// knownTypes' object types, for decodesCleanly: found once, not by making an object for every
// document.
var knownTypeOf sync.Map // typeKey -> reflect.Type

func knownType(key typeKey, mk func() any) reflect.Type {
	if t, ok := knownTypeOf.Load(key); ok {
		return t.(reflect.Type)
	}
	t := reflect.TypeOf(mk()).Elem()
	knownTypeOf.Store(key, t)
	return t
}

func groupOf(apiVersion string) string {
	if i := strings.LastIndexByte(apiVersion, '/'); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// decodeTyped decodes a document of a known kind into its typed object, collects unknown and
// duplicate fields, and reports values of the wrong type as a problem.
func decodeTyped(d *checker.Document) *checker.LoadProblem {
	if d.Node == nil || d.Node.Kind != yaml.MappingNode {
		return nil
	}
	key := typeKey{groupOf(d.APIVersion), d.Kind}
	mk, ok := knownTypes[key]
	if !ok {
		return nil
	}
	templated := d.File.Templated || d.File.Outer().Templated
	if !readTyped[d.Kind] && decodesCleanly(d.Node, knownType(key, mk), templated) {
		// Only a problem would be kept of this decoding, and there is none (decodecheck.go).
		// Its field issues are not computed either: only KP002 reads them, of
		// KubeProxyConfigurations, which are in readTyped; a rule that reads the field issues
		// of another kind adds that kind to readTyped.
		return nil
	}
	obj := mk()
	raw, direct := []byte(nil), false
	if !templated {
		raw, direct = nodeJSON(d.Node)
	}
	if !direct {
		// The generic form is the document's own (checker.Document.Generic, with its
		// alias-bomb budget); it is dropped once decoded (Rego rules convert the documents
		// they read again).
		defer d.DropGeneric()
		generic, err := d.Generic()
		if err != nil {
			pos, _ := d.KindPos()
			return &checker.LoadProblem{Pos: pos, Message: fmt.Sprintf("cannot decode %s: %v", d.Kind, err), Manifest: true, Document: d}
		}
		if templated {
			// A placeholder's value is only known once the template is rendered: decode the
			// literal fields and leave placeholder fields unset (rules see them as unknown).
			generic = withoutPlaceholders(generic)
		}
		raw, err = json.Marshal(generic)
		if err != nil {
			pos, _ := d.KindPos()
			return &checker.LoadProblem{Pos: pos, Message: fmt.Sprintf("cannot decode %s: %v", d.Kind, err), Manifest: true, Document: d}
		}
	}
	d.Issues = fieldIssues(d.Node, reflect.TypeOf(obj).Elem(), nil, nil)
	// Kubernetes decodes field names case-sensitively: "Mode" is not "mode".
	if err := kjson.UnmarshalCaseSensitivePreserveInts(raw, obj); err != nil {
		var ute *json.UnmarshalTypeError
		pos, _ := d.KindPos()
		msg := err.Error()
		invalid := firstInvalid(d.Issues)
		switch {
		case invalid != nil:
			pos = d.NodePos(invalid.Value)
			msg = fmt.Sprintf("%s: %s", invalid.Path.String(), invalid.Message)
		case errors.As(err, &ute):
			path := jsonFieldPath(d.Node, ute.Field)
			if p, _, ok := d.ValuePos(path); ok {
				pos = p
			}
			msg = fmt.Sprintf("%s: cannot use %s value as %s", path.String(), ute.Value, ute.Type.String())
		}
		// In a templated file a placeholder such as "{{ .Values.n }}" decodes as a mapping:
		// that is not an error in the file, only in our reading of it.
		return &checker.LoadProblem{Pos: pos, Message: fmt.Sprintf("cannot decode %s: %s", d.Kind, msg), Manifest: !d.File.Outer().Templated, Document: d}
	}
	if readTyped[d.Kind] {
		d.Object = obj
	}
	return nil
}

// readTyped are the kinds whose typed object (checker.Document.Object) or field issues
// (checker.Document.Issues) some rule reads: Services (their node ports,
// checker.Workspace.NodePorts) and kube-proxy configurations (KP002). The other known kinds
// are decoded for their problems only, and only when decodesCleanly cannot prove there is
// none; their objects were a tenth of a large run's heap and are not kept (issue 24). A rule
// that starts reading either of another kind adds the kind here.
var readTyped = map[string]bool{"Service": true, "KubeProxyConfiguration": true}

// jsonFieldPath turns encoding/json's dotted field ("spec.template.spec.containers.args")
// into a path, resolving sequence indices by walking the node tree to the first match.
func jsonFieldPath(n *yaml.Node, field string) checker.Path {
	var p checker.Path
	cur := n
	for _, part := range strings.Split(field, ".") {
		if part == "" {
			continue
		}
		if cur != nil && cur.Kind == yaml.SequenceNode {
			// Pick the first element that has the next key, else index 0.
			idx := 0
			for i, c := range cur.Content {
				if _, v := checker.LookupNode(c, checker.Path{part}); v != nil {
					idx = i
					break
				}
			}
			p = append(p, strconv.Itoa(idx))
			if idx < len(cur.Content) {
				cur = cur.Content[idx]
			}
		}
		p = append(p, part)
		_, cur = checker.LookupNode(cur, checker.Path{part})
	}
	return p
}

// fieldInfo describes the JSON fields of a struct type.
type fieldInfo struct {
	fields map[string]reflect.Type
	names  []string
}

var fieldCache sync.Map // reflect.Type -> *fieldInfo

func structFields(t reflect.Type) *fieldInfo {
	if fi, ok := fieldCache.Load(t); ok {
		return fi.(*fieldInfo)
	}
	fi := &fieldInfo{fields: map[string]reflect.Type{}}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			tag := sf.Tag.Get("json")
			name, opts, _ := strings.Cut(tag, ",")
			if tag == "-" {
				continue
			}
			if sf.Anonymous && (name == "" || strings.Contains(opts, "inline")) {
				ft := sf.Type
				if ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if ft.Kind() == reflect.Struct {
					add(ft)
					continue
				}
			}
			if !sf.IsExported() {
				continue
			}
			if name == "" {
				name = sf.Name
			}
			fi.fields[name] = sf.Type
		}
	}
	add(t)
	for n := range fi.fields {
		fi.names = append(fi.names, n)
	}
	sort.Strings(fi.names)
	fieldCache.Store(t, fi)
	return fi
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// fieldIssues walks n against Go type t and returns unknown and duplicate keys. The walk
// keeps one path stack and copies it only into an issue; the type checks are cached per type
// (it ran on every node of every typed document, most of which have no issue at all).
func fieldIssues(n *yaml.Node, t reflect.Type, path checker.Path, out []checker.FieldIssue) []checker.FieldIssue {
	w := issueWalk{stack: append(make(checker.Path, 0, 16), path...), out: out}
	w.walk(n, t)
	return w.out
}

type issueWalk struct {
	stack checker.Path
	out   []checker.FieldIssue
}

func (w *issueWalk) path() checker.Path { return append(checker.Path(nil), w.stack...) }

// customDecoding caches whether a type decodes itself (durations, quantities).
var customDecoding sync.Map // reflect.Type -> bool

func decodesItself(t reflect.Type) bool {
	if v, ok := customDecoding.Load(t); ok {
		return v.(bool)
	}
	b := reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
	customDecoding.Store(t, b)
	return b
}

// duplicateKey reports whether mapping n's key at i repeats an earlier key: a scan of the
// earlier keys for small mappings, a set (built once, in seen) for large ones.
func duplicateKey(n *yaml.Node, i int, seen *map[string]bool) bool {
	const small = 32
	k := n.Content[i].Value
	if len(n.Content) <= 2*small {
		for j := 0; j < i; j += 2 {
			if n.Content[j].Value == k {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]bool, len(n.Content)/2)
	}
	dup := (*seen)[k]
	(*seen)[k] = true
	return dup
}

func (w *issueWalk) walk(n *yaml.Node, t reflect.Type) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return
	}
	if decodesItself(t) {
		// Types with their own decoding (durations, quantities): check the value here so a
		// bad one is reported at its position, not at the document.
		if n.Kind == yaml.ScalarNode && !text.HasPlaceholder(n.Value) {
			if raw, err := json.Marshal(checker.GenericScalar(n)); err == nil {
				v := reflect.New(t).Interface()
				if err := json.Unmarshal(raw, v); err != nil {
					var ute *json.UnmarshalTypeError
					if !errors.As(err, &ute) {
						w.out = append(w.out, checker.FieldIssue{Kind: checker.IssueInvalid, Path: w.path(), Value: n, Message: err.Error()})
					}
				}
			}
		}
		return
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		if n.Kind != yaml.MappingNode {
			return
		}
		var fi *fieldInfo
		if t.Kind() == reflect.Struct {
			fi = structFields(t)
		}
		var seen map[string]bool
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if fi != nil && k.Value == "<<" {
				continue
			}
			w.stack = append(w.stack, k.Value)
			if duplicateKey(n, i, &seen) {
				w.out = append(w.out, checker.FieldIssue{Kind: checker.IssueDuplicate, Path: w.path(), Key: k, Parent: n})
			}
			if fi == nil {
				w.walk(v, t.Elem())
			} else if ft, ok := fi.fields[k.Value]; ok {
				w.walk(v, ft)
			} else {
				w.out = append(w.out, checker.FieldIssue{Kind: checker.IssueUnknown, Path: w.path(), Key: k, Parent: n, Known: fi.names})
			}
			w.stack = w.stack[:len(w.stack)-1]
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, c := range n.Content {
			w.stack = append(w.stack, strconv.Itoa(i))
			w.walk(c, t.Elem())
			w.stack = w.stack[:len(w.stack)-1]
		}
	}
}

func firstInvalid(issues []checker.FieldIssue) *checker.FieldIssue {
	for i := range issues {
		if issues[i].Kind == checker.IssueInvalid {
			return &issues[i]
		}
	}
	return nil
}

// withoutPlaceholders returns a copy of a generic value without the strings that hold
// template placeholders (and without mappings and lists left holding nothing else).
func withoutPlaceholders(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if s, ok := e.(string); ok && text.HasPlaceholder(s) {
				continue
			}
			out[k] = withoutPlaceholders(e)
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok && text.HasPlaceholder(s) {
				continue
			}
			out = append(out, withoutPlaceholders(e))
		}
		return out
	}
	return v
}
