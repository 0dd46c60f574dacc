package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPolicyReadsPrunedKinds: the loader prunes application Deployments that name nothing the
// built-in rules read, but a --policy rule may read any document: with one, every tree is
// kept and the rule sees the Deployment's spec.
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
	app := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 12\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n"
	if err := os.WriteFile(filepath.Join(repo, "web.yaml"), []byte(app), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "--no-config", "--policy", pol, "--color", "never", repo)
	if r.code != exitFindings || !strings.Contains(r.stdout, "web.yaml:6:") || !strings.Contains(r.stdout, "ORG900") {
		t.Errorf("exit %d, want ORG900 at web.yaml:6:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
