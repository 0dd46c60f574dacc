package load

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// TestEmbeddedMonitoring checks that dashboards and rule files in ConfigMap keys become
// embedded documents whose positions map back to the ConfigMap's file.
func TestEmbeddedMonitoring(t *testing.T) {
	src := `apiVersion: v1
kind: ConfigMap
metadata:
  name: monitoring
data:
  kube-proxy.json: |-
    {
      "panels": [{"targets": [{"expr": "rate(x_total[5m])"}]}]
    }
  kube-proxy.rules.yaml: |
    groups:
    - name: g
      rules:
      - alert: A
        expr: up == 0
  notes.json: "not json"
  values.yaml: |
    replicas: 2
`
	ws := Bytes("cm.yaml", []byte(src), nil)
	cm := ws.Docs[0]
	if len(cm.Embedded) != 2 {
		t.Fatalf("embedded %d documents, want 2", len(cm.Embedded))
	}
	dash := cm.Embedded[0]
	if got := dash.ParentPath.String(); got != "data.kube-proxy.json" {
		t.Errorf("dashboard path %s", got)
	}
	_, panels := dash.Lookup(checker.Path{"panels"})
	if panels == nil {
		t.Fatal("dashboard not decoded")
	}
	_, expr := checker.LookupNode(panels, checker.P(0, "targets", 0, "expr"))
	if expr == nil {
		t.Fatal("no expr")
	}
	pos, _ := dash.SubPos(expr, 5, 12)
	if pos.Filename != "cm.yaml" || pos.Line != 8 || pos.Column != 46 {
		t.Errorf("expr metric at %s, want cm.yaml:8:46", pos)
	}
	rules := cm.Embedded[1]
	if p, _, ok := rules.ValuePos(checker.P("groups", 0, "rules", 0, "expr")); !ok || p.Line != 15 || p.Column != 15 {
		t.Errorf("rule expr at %s", p)
	}
	for _, p := range ws.Problems {
		t.Errorf("problem: %s: %s", p.Pos, p.Message)
	}
}

func TestEmbedsMonitoring(t *testing.T) {
	for _, tt := range []struct {
		key, value string
		want       bool
	}{
		{"a.json", "{\n}\n", true},
		{"A.JSON", "  {\"x\": 1}  ", true},
		{"a.json", "[1]", false},
		{"alerts.yml", "groups:\n- name: x\n", true},
		{"x.rules", "groups: # c\n", true},
		{"values.yaml", "groups: [a]\n", false},
		{"config.conf", "groups:\n", false},
	} {
		if got := embedsMonitoring(tt.key, tt.value); got != tt.want {
			t.Errorf("embedsMonitoring(%q, %q) = %v", tt.key, tt.value, got)
		}
	}
}
