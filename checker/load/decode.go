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
	mk, ok := knownTypes[typeKey{groupOf(d.APIVersion), d.Kind}]
	if !ok {
		return nil
	}
	obj := mk()
	// The generic form is the document's own (checker.Document.Generic, with its alias-bomb
	// budget); it is dropped once decoded (Rego rules convert the documents they read again).
	defer d.DropGeneric()
	generic, err := d.Generic()
	if err != nil {
		pos, _ := d.KindPos()
		return &checker.LoadProblem{Pos: pos, Message: fmt.Sprintf("cannot decode %s: %v", d.Kind, err), Manifest: true, Document: d}
	}
	if d.File.Templated || d.File.Outer().Templated {
		// A placeholder's value is only known once the template is rendered: decode the
		// literal fields and leave placeholder fields unset (rules see them as unknown).
		generic = withoutPlaceholders(generic)
	}
	raw, err := json.Marshal(generic)
	if err != nil {
		pos, _ := d.KindPos()
		return &checker.LoadProblem{Pos: pos, Message: fmt.Sprintf("cannot decode %s: %v", d.Kind, err), Manifest: true, Document: d}
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
	d.Object = obj
	return nil
}

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

// fieldIssues walks n against Go type t and returns unknown and duplicate keys.
func fieldIssues(n *yaml.Node, t reflect.Type, path checker.Path, out []checker.FieldIssue) []checker.FieldIssue {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n == nil || n.Kind == yaml.AliasNode {
		return out
	}
	if reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler) {
		// Types with their own decoding (durations, quantities): check the value here so a
		// bad one is reported at its position, not at the document.
		if n.Kind == yaml.ScalarNode && !checker.HasPlaceholder(n.Value) {
			if raw, err := json.Marshal(checker.GenericScalar(n)); err == nil {
				v := reflect.New(t).Interface()
				if err := json.Unmarshal(raw, v); err != nil {
					var ute *json.UnmarshalTypeError
					if !errors.As(err, &ute) {
						out = append(out, checker.FieldIssue{Kind: checker.IssueInvalid, Path: path, Value: n, Message: err.Error()})
					}
				}
			}
		}
		return out
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			return out
		}
		fi := structFields(t)
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "<<" {
				continue
			}
			p := append(append(checker.Path(nil), path...), k.Value)
			if seen[k.Value] {
				out = append(out, checker.FieldIssue{Kind: checker.IssueDuplicate, Path: p, Key: k})
			}
			seen[k.Value] = true
			ft, ok := fi.fields[k.Value]
			if !ok {
				out = append(out, checker.FieldIssue{Kind: checker.IssueUnknown, Path: p, Key: k, Known: fi.names})
				continue
			}
			out = fieldIssues(v, ft, p, out)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			return out
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			p := append(append(checker.Path(nil), path...), k.Value)
			if seen[k.Value] {
				out = append(out, checker.FieldIssue{Kind: checker.IssueDuplicate, Path: p, Key: k})
			}
			seen[k.Value] = true
			out = fieldIssues(v, t.Elem(), p, out)
		}
	case reflect.Slice, reflect.Array:
		if n.Kind != yaml.SequenceNode {
			return out
		}
		for i, c := range n.Content {
			out = fieldIssues(c, t.Elem(), append(append(checker.Path(nil), path...), strconv.Itoa(i)), out)
		}
	}
	return out
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
			if s, ok := e.(string); ok && checker.HasPlaceholder(s) {
				continue
			}
			out[k] = withoutPlaceholders(e)
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok && checker.HasPlaceholder(s) {
				continue
			}
			out = append(out, withoutPlaceholders(e))
		}
		return out
	}
	return v
}
