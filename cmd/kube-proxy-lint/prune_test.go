package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyReadsPrunedKinds: the loader prunes application Deployments that name nothing the
// built-in rules read and reduces Services and alert rules to the facts the Go rules read,
// but a --policy rule may read any document: with one, each such document is decoded again
// whole for it (load.Options.WholeOnDemand), and the rule sees the Deployment's spec (also one
// rendered from a chart, reported at the values file), the Service's selector and the
// alert's labels, at their positions.
func TestPolicyReadsPrunedKinds(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policies")
	repo := filepath.Join(dir, "repo")
	for _, d := range []string{pol, repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	rego := `# METADATA
# title: at most ten replicas
# description: More replicas than the cluster can place.
# custom:
#   id: ORG900
#   name: replicas-capped
#   severity: error
#   kinds: [Deployment]
#   remediation: Lower spec.replicas.
package org.replicas

findings contains {"msg": "more than ten replicas", "path": ["spec", "replicas"]} if {
	input.object.spec.replicas > 10
}
`
	if err := os.WriteFile(filepath.Join(pol, "replicas.rego"), []byte(rego), 0o644); err != nil {
		t.Fatal(err)
	}
	others := `# METADATA
# title: Services select by team, alerts have a severity
# description: Fields the built-in rules never read.
# custom:
#   id: ORG901
#   name: selectors-and-severities
#   severity: error
#   kinds: [Service, PrometheusRule]
#   remediation: Select by team; label every alert with a severity.
package org.others

findings contains {"msg": "selects by app", "path": ["spec", "selector", "app"], "at": "key"} if {
	input.object.spec.selector.app
}

findings contains {"msg": "severity page", "path": ["spec", "groups", 0, "rules", 0, "labels", "severity"]} if {
	input.object.spec.groups[0].rules[0].labels.severity == "page"
}
`
	if err := os.WriteFile(filepath.Join(pol, "others.rego"), []byte(others), 0o644); err != nil {
		t.Fatal(err)
	}
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: NodePort\n  selector:\n    app: web\n  ports:\n  - port: 80\n    nodePort: 30080\n"
	alerts := "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: proxy\nspec:\n  groups:\n  - name: proxy\n    rules:\n    - alert: SyncSlow\n      expr: rate(kubeproxy_sync_proxy_rules_duration_seconds_sum[5m]) > 1\n      labels:\n        severity: page\n"
	chart := map[string]string{
		"chart/Chart.yaml":  "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"chart/values.yaml": "replicas: 20\n",
		"chart/templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\nspec:\n" +
			"  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      containers:\n      - name: api\n        image: nginx\n",
	}
	for name, src := range map[string]string{"svc.yaml": svc, "alerts.yaml": alerts} {
		chart[name] = src
	}
	for name, src := range chart {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	app := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 12\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n"
	if err := os.WriteFile(filepath.Join(repo, "web.yaml"), []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "--no-config", "--policy", pol, "--color", "never", repo)
	if r.code != exitFindings || !strings.Contains(r.stdout, "web.yaml:6:13: error: more than ten replicas") {
		t.Errorf("exit %d, want ORG900 at web.yaml:6:13:\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"svc.yaml:8:5: error: selects by app", "alerts.yaml:12:19: error: severity page", "chart/values.yaml:1:11: error: more than ten replicas"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q:\n%s%s", want, r.stdout, r.stderr)
		}
	}
}
