package policy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

const schemaFile = "../docs/policy-input.schema.json"

func schema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("policy-input.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("policy-input.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSchemaDescribesInputAndData validates the input of every document and the workspace
// view of every fixture workspace against the published JSON Schema: the schema is a public
// contract, and this keeps it true.
func TestSchemaDescribesInputAndData(t *testing.T) {
	s := schema(t)
	var roots []string
	for _, glob := range []string{"../fixtures/repos/*", "../fixtures/rules/*/*", "../fixtures/policies/repo"} {
		m, _ := filepath.Glob(glob)
		roots = append(roots, m...)
	}
	checked := 0
	for _, root := range roots {
		if strings.HasSuffix(root, ".golden") {
			continue
		}
		ws, err := load.Load(context.Background(), load.Options{Paths: []string{root}, Root: filepath.Dir(root)})
		if err != nil {
			t.Fatalf("load %s: %v", root, err)
		}
		view := policy.BuildView(ws)
		for _, d := range ws.Docs {
			in, err := policy.InputOf(ws, d)
			if err != nil {
				continue // a document that does not convert (alias bomb) is a load problem
			}
			validate(t, s, root, map[string]any{"input": in, "data": view})
			checked++
		}
		if len(ws.Docs) == 0 {
			validate(t, s, root, map[string]any{"input": &policy.Input{ID: "x#0", Target: policy.TargetView{Version: "1.40", Minor: 40, Source: "default"}, Instances: []policy.InstanceView{}, Object: map[string]any{}}, "data": view})
		}
	}
	if checked < 50 {
		t.Errorf("validated only %d documents", checked)
	}
}

func validate(t *testing.T, s *jsonschema.Schema, name string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Validate(inst); err != nil {
		t.Errorf("%s: input/data do not match %s: %v", name, schemaFile, err)
	}
}

// TestSchemaRejects makes sure the schema is not vacuous.
func TestSchemaRejects(t *testing.T) {
	s := schema(t)
	ws := load.Bytes("a.yaml", []byte("kind: KubeProxyConfiguration\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nmode: ipvs\n"), &checker.Version{Major: 1, Minor: 39})
	view := policy.BuildView(ws)
	view.Instances[0].Kind = "sidecar"
	b, _ := json.Marshal(map[string]any{"input": map[string]any{"id": "a"}, "data": view})
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err := s.Validate(inst); err == nil {
		t.Error("schema accepts an unknown instance kind and an incomplete input")
	}
}

// TestSchemaOrigins fails when checker gains a setting origin the schema does not list.
func TestSchemaOrigins(t *testing.T) {
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	name := func(o checker.Origin) (s string, ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		return o.String(), true
	}
	for o := checker.Origin(0); ; o++ {
		s, ok := name(o)
		if !ok {
			break
		}
		if !bytes.Contains(b, []byte(`"`+s+`"`)) {
			t.Errorf("schema does not list origin %q", s)
		}
	}
}

// TestViewFlagsIgnoredWithConfig: issue 22 item 16. The Rego input marks the flags kube-proxy
// ignores when --config is set (wherever --config stands on the command line), and only then;
// --config is looked up once per instance, not once per flag.
func TestViewFlagsIgnoredWithConfig(t *testing.T) {
	for _, tc := range []struct {
		line string
		want map[string]bool
	}{
		{"exec kube-proxy --proxy-mode=ipvs --config=/etc/kp.yaml --v=2\n", map[string]bool{"proxy-mode": true, "config": false, "v": false}},
		{"exec kube-proxy --proxy-mode=ipvs --v=2\n", map[string]bool{"proxy-mode": false, "v": false}},
	} {
		ws := load.Bytes("start.sh", []byte("#!/bin/sh\n"+tc.line), &checker.Version{Major: 1, Minor: 33})
		view := policy.BuildView(ws)
		if len(view.Instances) != 1 {
			t.Fatalf("%q: %d instances", tc.line, len(view.Instances))
		}
		got := map[string]bool{}
		for _, f := range view.Instances[0].Flags {
			got[f.Name] = f.Ignored
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q: ignored %v, want %v", tc.line, got, tc.want)
		}
	}
}
