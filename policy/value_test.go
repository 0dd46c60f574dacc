package policy

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// jsonValue is the reference viewValue must match: the JSON text of v, parsed by OPA.
func jsonValue(t *testing.T, v any) ast.Value {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	val, err := ast.ValueFromReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return val
}

// TestViewValueMatchesJSON: the view and every input built without JSON are the values the
// JSON encoding gives, on every rule fixture and repository scenario (installers, command
// lines, replacements, services, embedded documents).
func TestViewValueMatchesJSON(t *testing.T) {
	var dirs []string
	for _, pattern := range []string{"../fixtures/rules/*/*", "../fixtures/repos/*"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, m...)
	}
	checked := 0
	for _, dir := range dirs {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			continue
		}
		ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
		if err != nil {
			t.Fatal(err)
		}
		st := stateFor(ws)
		if want := jsonValue(t, BuildView(ws)); st.value().Compare(want) != 0 {
			t.Errorf("%s: view\n%v\nwant\n%v", dir, st.value(), want)
			continue
		}
		for _, d := range ws.Docs {
			if d.Node == nil {
				continue
			}
			obj, err := d.GenericUncached()
			if err != nil {
				continue // the loader reports documents that cannot be converted
			}
			got, _, err := st.input(ws, d, obj)
			if err != nil {
				t.Fatal(err)
			}
			in, err := InputOf(ws, d)
			if err != nil {
				t.Fatal(err)
			}
			if want := jsonValue(t, in); got.Compare(want) != 0 {
				t.Errorf("%s: input of %s\n%v\nwant\n%v", dir, docID(d), got, want)
			}
			checked++
		}
		for _, f := range st.commandFiles {
			ins := st.byCommandFile[f]
			if got, want := st.instancesValue(ins), jsonValue(t, ins); got.Compare(want) != 0 {
				t.Errorf("%s: command-line instances of %s\n%v\nwant\n%v", dir, f, got, want)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Fatalf("only %d inputs checked", checked)
	}
}

// TestViewFieldsLazy: an evaluation converts only the fields of data.kube_proxy_lint it reads.
func TestViewFieldsLazy(t *testing.T) {
	ws := load.Bytes("a.yaml", []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\n"), nil)
	st := stateFor(ws)
	q, err := rego.New(rego.Query("x := data.kube_proxy_lint.replacements")).PrepareForEval(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	rs, err := q.Eval(context.Background(), st.resolvers...)
	if err != nil || len(rs) != 1 {
		t.Fatalf("%v %v", rs, err)
	}
	for i, f := range viewFields {
		if key := string(f.key.Value.(ast.String)); (st.fields[i].v != nil) != (key == "replacements") {
			t.Errorf("field %s converted: %v", key, st.fields[i].v != nil)
		}
	}
}
