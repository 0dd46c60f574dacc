package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	orgPolicies = "../../fixtures/policies/org"
	policyRepo  = "../../fixtures/policies/repo"
)

// TestUserPolicyEndToEnd lints with the example user policy: same positions, severities,
// fixes and outputs as built-in rules.
func TestUserPolicyEndToEnd(t *testing.T) {
	r := runCLI(t, "", "--policy", orgPolicies, "--color", "never", policyRepo)
	if r.code != exitFindings {
		t.Fatalf("exit %d, stderr:\n%s\nstdout:\n%s", r.code, r.stderr, r.stdout)
	}
	want := "kube-proxy.yaml:11:16: error: kube-proxy image registry.k8s.io/kube-proxy:v1.40.0 is not pulled from registry.example.com/ (ORG001 kube-proxy-image-registry)"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}

	r = runCLI(t, "", "--policy", orgPolicies, "--format", "sarif", policyRepo)
	var sarif struct {
		Runs []struct {
			Tool struct {
				Driver struct {
					Rules []struct {
						ID      string `json:"id"`
						HelpURI string `json:"helpUri"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				Locations []struct {
					PhysicalLocation struct {
						Region struct {
							StartLine, StartColumn int
						} `json:"region"`
					} `json:"physicalLocation"`
				} `json:"locations"`
			} `json:"results"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &sarif); err != nil {
		t.Fatalf("sarif: %v\n%s", err, r.stdout)
	}
	found := false
	for _, res := range sarif.Runs[0].Results {
		if res.RuleID == "ORG001" {
			reg := res.Locations[0].PhysicalLocation.Region
			found = reg.StartLine == 11 && reg.StartColumn == 16
		}
	}
	if !found {
		t.Errorf("SARIF has no ORG001 result at 11:16:\n%s", r.stdout)
	}
	for _, rule := range sarif.Runs[0].Tool.Driver.Rules {
		if rule.ID == "ORG001" && rule.HelpURI != "https://wiki.example.com/platform/policies/ORG001" {
			t.Errorf("ORG001 helpUri = %q", rule.HelpURI)
		}
	}

	// Disabling the user rule by name works like for any rule.
	r = runCLI(t, "", "--policy", orgPolicies, "--disable", "kube-proxy-image-registry", policyRepo)
	if strings.Contains(r.stdout, "ORG001") {
		t.Errorf("disabled rule reported:\n%s", r.stdout)
	}
}

func TestUserPolicyRulesAndExplain(t *testing.T) {
	r := runCLI(t, "", "rules", "--policy", orgPolicies)
	if r.code != exitOK || !strings.Contains(r.stdout, "ORG001  kube-proxy-image-registry") || !strings.Contains(r.stdout, "KP204") {
		t.Errorf("rules: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "explain", "--policy", orgPolicies, "kube-proxy-image-registry")
	for _, s := range []string{"ORG001 (kube-proxy-image-registry): kube-proxy image from the internal registry", "Since:              user policy", "Remediation:", "registry.example.com/k8s/kube-proxy:v1.40.0"} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("explain lacks %q:\n%s%s", s, r.stdout, r.stderr)
		}
	}
	r = runCLI(t, "", "explain", "KP601")
	if r.code != exitOK || !strings.Contains(r.stdout, "KP601 (kube-proxy-replaced)") {
		t.Errorf("explain KP601: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestPolicyTest(t *testing.T) {
	r := runCLI(t, "", "policy", "test", orgPolicies)
	if r.code != exitOK || !strings.Contains(r.stdout, "PASS ../../fixtures/policies/org/kube_proxy_image_test.rego:9: org.kube_proxy_image_test.test_public_registry_is_reported") || !strings.Contains(r.stdout, "3 passed, 0 failed") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p.rego", "package p\n\nx := 1\n")
	write("p_test.rego", "package p_test\n\nimport data.p\n\ntest_one if p.x == 1\n\ntest_two if p.x == 2\n")
	r = runCLI(t, "", "policy", "test", dir)
	if r.code != exitFindings || !strings.Contains(r.stdout, "FAIL "+dir+"/p_test.rego:7: p_test.test_two") || !strings.Contains(r.stdout, "1 passed, 1 failed") {
		t.Errorf("failing test: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	write("p_test.rego", "package p_test\n\ntest_net if http.send({\"method\": \"GET\", \"url\": \"http://x\"})\n")
	r = runCLI(t, "", "policy", "test", dir)
	if r.code != exitError || !strings.Contains(r.stderr, dir+"/p_test.rego:3: http.send is not allowed") {
		t.Errorf("forbidden builtin: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	if r := runCLI(t, "", "policy"); r.code != exitError {
		t.Errorf("policy without subcommand: exit %d", r.code)
	}
}

func TestPolicyLoadErrors(t *testing.T) {
	dir := t.TempDir()
	text := "# METADATA\n# title: t\n# description: d\n# custom:\n#   id: KP102\n#   name: mine\n#   severity: info\n#   remediation: r\npackage mine\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"
	if err := os.WriteFile(filepath.Join(dir, "mine.rego"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "--policy", dir, policyRepo)
	if r.code != exitError || !strings.Contains(r.stderr, "load policies: "+dir+"/mine.rego: rule ID KP102 is already used by built-in rule KP102 (mode-ipvs)") {
		t.Errorf("ID clash: exit %d\n%s", r.code, r.stderr)
	}
	text = strings.Replace(text, "KP102", "ORG009", 1)
	text = strings.Replace(text, `"msg": "x", `, "", 1)
	if err := os.WriteFile(filepath.Join(dir, "mine.rego"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", "--policy", dir, policyRepo)
	if r.code != exitError || !strings.Contains(r.stderr, dir+"/mine.rego:11: finding has no \"msg\"") {
		t.Errorf("no msg: exit %d\n%s", r.code, r.stderr)
	}
}

// TestUserPolicyWithoutURL: a user policy without custom.url has no page in this repository,
// so no output links one: no URL is better than a false one.
func TestUserPolicyWithoutURL(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"kube_proxy_image.rego", "lib/k8s.rego"} {
		src, err := os.ReadFile(filepath.Join(orgPolicies, name))
		if err != nil {
			t.Fatal(err)
		}
		var kept []string
		for _, l := range strings.Split(string(src), "\n") {
			if !strings.HasPrefix(strings.TrimSpace(l), "#   url:") {
				kept = append(kept, l)
			}
		}
		mustWrite(t, filepath.Join(dir, name), strings.Join(kept, "\n"))
	}
	runs := [][]string{
		{"--policy", dir, "--format", "sarif", policyRepo},
		{"--policy", dir, "--format", "rdjson", policyRepo},
		{"--policy", dir, "--format", "json", policyRepo},
		{"--policy", dir, "--format", "markdown", policyRepo},
		{"rules", "--policy", dir, "--format", "json"},
		{"rules", "--policy", dir, "--format", "markdown"},
		{"explain", "--policy", dir, "ORG001"},
		{"explain", "--policy", dir, "--format", "markdown", "ORG001"},
	}
	for _, args := range runs {
		r := runCLI(t, "", args...)
		if !strings.Contains(r.stdout, "ORG001") {
			t.Errorf("%q: no ORG001 in the output (exit %d): %s", args, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "docs/rules/ORG001") || strings.Contains(r.stdout, "Documentation: \n") {
			t.Errorf("%q links a page that does not exist:\n%s", args, r.stdout)
		}
	}
}

// TestPolicyPlaceholderBuiltin: a user policy calls kpl.placeholder in a lint run and under
// `policy test`, so it skips templated values as the built-in rules do.
func TestPolicyPlaceholderBuiltin(t *testing.T) {
	pol, repo := t.TempDir(), t.TempDir()
	write := func(dir, name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(pol, "sched.rego", `# METADATA
# title: t
# description: d
# custom:
#   id: ORG204
#   name: no-scheduler
#   severity: warning
#   remediation: r
package org.sched

import data.kube_proxy_lint

findings contains {"msg": sprintf("scheduler %s", [s]), "path": ["ipvs", "scheduler"]} if {
	count(kube_proxy_lint.documents) > 0
	s := input.object.ipvs.scheduler
	not kpl.placeholder(s)
}
`)
	write(pol, "sched_test.rego", `package org.sched_test

import data.org.sched

test_literal if count(sched.findings) == 1 with input as {"object": {"ipvs": {"scheduler": "lc"}}}
	with data.kube_proxy_lint.documents as [{}]

test_placeholder if count(sched.findings) == 0 with input as {"object": {"ipvs": {"scheduler": "${SCHED}"}}}
	with data.kube_proxy_lint.documents as [{}]
`)
	r := runCLI(t, "", "policy", "test", pol)
	if r.code != exitOK || !strings.Contains(r.stdout, "2 passed, 0 failed") {
		t.Errorf("policy test: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	kpc := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\nipvs:\n  scheduler: %s\n"
	write(repo, "literal.yaml", strings.Replace(kpc, "%s", "lc", 1))
	write(repo, "helm.yaml", strings.Replace(kpc, "%s", `"{{ .Values.scheduler }}"`, 1))
	r = runCLI(t, "", "--policy", pol, "--color", "never", repo)
	if r.code != exitFindings || !strings.Contains(r.stdout, "literal.yaml:5:14: warning: scheduler lc (ORG204 no-scheduler)") || strings.Count(r.stdout, "(ORG204") != 1 {
		t.Errorf("lint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
