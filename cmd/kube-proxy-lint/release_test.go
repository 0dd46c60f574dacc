package main

import (
	"context"
	"reflect"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// nodePaths walks everything reachable from v (unexported fields and the files' memos
// included) and counts the *yaml.Node pointers it meets, by the path it first met them on.
func nodePaths(v any) map[string]int {
	nodeType := reflect.TypeFor[*yaml.Node]()
	seen := map[uintptr]bool{}
	found := map[string]int{}
	var walk func(x reflect.Value, path string)
	walk = func(x reflect.Value, path string) {
		switch x.Kind() {
		case reflect.Pointer:
			if x.IsNil() {
				return
			}
			if x.Type() == nodeType {
				found[path]++
				return
			}
			if seen[x.Pointer()] {
				return
			}
			seen[x.Pointer()] = true
			walk(x.Elem(), path)
		case reflect.Interface:
			if !x.IsNil() {
				walk(x.Elem(), path+"("+x.Elem().Type().String()+")")
			}
		case reflect.Struct:
			for i := range x.NumField() {
				walk(x.Field(i), path+"."+x.Type().Field(i).Name)
			}
		case reflect.Slice, reflect.Array:
			if x.Kind() == reflect.Slice && x.IsNil() {
				return
			}
			for i := range x.Len() {
				walk(x.Index(i), path+"[]")
			}
		case reflect.Map:
			for it := x.MapRange(); it.Next(); {
				walk(it.Key(), path+"{key}")
				walk(it.Value(), path+"{}")
			}
		}
	}
	walk(reflect.ValueOf(v), "ws")
	return found
}

// Once the rules have run over every rule's fixtures, ReleaseTrees leaves no YAML node
// reachable from the workspace: not through a document, an instance's flags, a fact, nor a
// memo of a file that only an embedded document reaches (a rule group of a ConfigMap's
// rules.yaml once pinned the slabs of every tree). What the outputs read stays.
func TestReleaseTrees(t *testing.T) {
	// A template's documents are decoded from its masked copy, a file of their own whose memo
	// holds the rule groups.
	templated := writeTree(t, map[string]string{"alerts.yaml": `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ .Release.Name }}-kube-proxy
spec:
  groups:
    - name: kube-proxy
      rules:
        - alert: KubeProxyRulesSlow
          expr: histogram_quantile(0.99, rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m])) > {{ .Values.threshold }}
`})
	for _, dir := range []string{"../../fixtures/rules", templated} {
		releaseTrees(t, dir)
	}
}

func releaseTrees(t *testing.T, dir string) {
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	out, err := engine.RunWith(context.Background(), ws, builtinRules(), engine.Processing{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) == 0 || len(nodePaths(ws)) == 0 {
		t.Fatalf("%d findings, nodes reachable from %d paths: the fixtures were not read", len(out.Findings), len(nodePaths(ws)))
	}
	files, instances := len(ws.Files), len(ws.Instances)
	source := sourceFunc(ws)
	var text []byte
	for _, f := range ws.Files {
		if f.Parent == nil && f.Content != nil {
			text = source(f.Path)
			break
		}
	}
	ws.ReleaseTrees()
	for p, n := range nodePaths(ws) {
		t.Errorf("%d nodes still reachable through %s", n, p)
	}
	if len(ws.Files) != files || len(ws.Instances) != instances {
		t.Errorf("files %d → %d, instances %d → %d: the summary counts them", files, len(ws.Files), instances, len(ws.Instances))
	}
	for _, f := range ws.Files {
		if f.Parent == nil && f.Content != nil {
			if got := source(f.Path); string(got) != string(text) {
				t.Errorf("%s: the outputs' source text changed", f.Path)
			}
			break
		}
	}
}
