package main

import (
	"strings"
	"testing"
)

// The run's budget (issue 22, "The budget"): going over --max-memory or --timeout stops the
// run with exit 2 and a message that names what spent it, never a crash or a silent pass.

const budgetCM = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: big\ndata:\n  s: "

// A policy that builds 100 MB of strings (a hundred 1 MB replacements) within the value bound
// of each call: the run's budget of 256 MiB gives one evaluation 64 MiB.
const budgetPolicy = `# METADATA
# title: Builds strings
# description: Builds a hundred strings of a megabyte.
# custom:
#   id: ORG900
#   name: builds-strings
#   severity: warning
#   remediation: Build less.
#   kinds: [ConfigMap]
package kube_proxy_lint.rules.org900

import rego.v1

findings contains {"msg": sprintf("%d", [count(xs)]), "path": []} if {
	s := input.object.data.s
	xs := [replace(s, "a", "aaaaaaaaaaaaaaaa") | some i in numbers.range(1, 100)]
}
`

func TestBudgetMemoryStopsRun(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"cm.yaml":              budgetCM + strings.Repeat("a", 64<<10) + "\n",
		"policies/org900.rego": budgetPolicy,
	})
	r := runWithin(t, nil, "--max-memory", "256MiB", "--policy", dir+"/policies", dir)
	if r.code != exitError || !strings.Contains(r.stderr, "went over its memory budget of 256 MiB (see --max-memory); spent by policy ") ||
		!strings.Contains(r.stderr, "org900.rego on cm.yaml#0") {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 naming the policy and the document", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "ORG900") {
		t.Errorf("findings of a stopped run were reported:\n%s", r.stdout)
	}
	// Within the default budget the same policy reports its finding.
	if r := runWithin(t, nil, "--policy", dir+"/policies", "--fail-on", "none", dir); r.code != exitOK || !strings.Contains(r.stdout, "ORG900") {
		t.Errorf("default budget: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestBudgetTimeoutStopsRun(t *testing.T) {
	dir := writeTree(t, map[string]string{"cm.yaml": budgetCM + "x\n"})
	r := runWithin(t, nil, "--timeout", "1ns", dir)
	if r.code != exitError || !strings.Contains(r.stderr, "the run took longer than its time budget of 1ns (see --timeout)") {
		t.Errorf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// The configuration file sets the budget; a flag wins over it; a budget too small is a usage
// error.
func TestBudgetConfigAndFlags(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"cm.yaml":               budgetCM + "x\n",
		".kube-proxy-lint.yaml": "timeout: 1ns\n",
	})
	if r := runWithin(t, nil, dir); r.code != exitError || !strings.Contains(r.stderr, "time budget of 1ns") {
		t.Errorf("config timeout: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r := runWithin(t, nil, "--timeout", "10m", dir); r.code != exitOK {
		t.Errorf("--timeout over the config: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if r := runWithin(t, nil, "--max-memory", "1MiB", dir); r.code != exitError || !strings.Contains(r.stderr, "--max-memory: must be at least 256MiB") {
		t.Errorf("--max-memory 1MiB: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// Issue 22 item 8: a credentials file a CI step wrote beside a chart, ignored by .gitignore,
// reached a finding's message through .Files.Glob. The chart reads what the loader reads.
func TestHelmChartSkipsIgnoredCredentials(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".gitignore":             "gha-creds-*.json\n",
		"kp/Chart.yaml":          "apiVersion: v2\nname: kp\nversion: 0.1.0\n",
		"kp/gha-creds-1234.json": `{"private_key": "TOKEN-0123456789"}`,
		"kp/values.yaml":         "x: 1\n",
		"kp/templates/kpc.yaml": `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: {{ range $p, $_ := .Files.Glob "gha-creds-*.json" }}{{ $.Files.Get $p | quote }}{{ else }}nftables{{ end }}
`,
	})
	r := runWithin(t, nil, "--target-version", "1.40", "--color", "never", dir)
	if strings.Contains(r.stdout+r.stderr, "TOKEN-0123456789") {
		t.Errorf("the ignored credentials file reached the output:\n%s\n%s", r.stdout, r.stderr)
	}
	if r.code == exitError {
		t.Errorf("exit %d:\n%s%s", r.code, r.stdout, r.stderr)
	}
}
