package policy

import (
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// viewValue converts a view value (View, InstanceView, ... : structs of strings, numbers,
// booleans, pointers, slices and checker.Path) to the Rego value that encoding/json and
// ast.ValueFromReader would make of it: json field names, omitempty, nil pointers as null,
// nil slices as null (a nil checker.Path as []), paths as keys and indices. Building the
// value directly costs a fraction of writing and parsing the JSON text.
func viewValue(v any) ast.Value { return reflectValue(reflect.ValueOf(v)) }

var pathType = reflect.TypeFor[checker.Path]()

func reflectValue(v reflect.Value) ast.Value {
	if v.Type() == pathType {
		return pathValue(v.Interface().(checker.Path))
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return ast.Null{}
		}
		return reflectValue(v.Elem())
	case reflect.String:
		return ast.String(v.String())
	case reflect.Bool:
		return ast.Boolean(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return ast.Number(strconv.FormatInt(v.Int(), 10))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return ast.Number(strconv.FormatUint(v.Uint(), 10))
	case reflect.Slice:
		if v.IsNil() {
			return ast.Null{}
		}
		terms := make([]*ast.Term, v.Len())
		for i := range terms {
			terms[i] = ast.NewTerm(reflectValue(v.Index(i)))
		}
		return ast.NewArray(terms...)
	case reflect.Struct:
		fields := structFields(v.Type())
		items := make([][2]*ast.Term, 0, len(fields))
		for _, f := range fields {
			fv := v.Field(f.index)
			if f.omitEmpty && emptyValue(fv) {
				continue
			}
			items = append(items, [2]*ast.Term{f.key, ast.NewTerm(reflectValue(fv))})
		}
		return ast.NewObject(items...)
	}
	// No view type has other kinds (floats, maps); convert them the slow, general way.
	val, err := ast.InterfaceToValue(v.Interface())
	if err != nil {
		return ast.Null{}
	}
	return val
}

// emptyValue is encoding/json's test for omitempty.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String, reflect.Slice, reflect.Map, reflect.Array:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return v.Uint() == 0
	case reflect.Pointer, reflect.Interface:
		return v.IsNil()
	}
	return false
}

type fieldInfo struct {
	index int
	// key is the field's name as a Rego term, shared by every object of the type (Rego never
	// modifies its input).
	key       *ast.Term
	omitEmpty bool
}

var fieldCache sync.Map // reflect.Type -> []fieldInfo

// structFields lists the JSON fields of a struct type: exported, not tagged "-", named by
// their tag or else their Go name.
func structFields(t reflect.Type) []fieldInfo {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.([]fieldInfo)
	}
	var fs []fieldInfo
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fs = append(fs, fieldInfo{index: i, key: ast.StringTerm(name), omitEmpty: strings.Contains(","+opts+",", ",omitempty,")})
	}
	fieldCache.Store(t, fs)
	return fs
}
