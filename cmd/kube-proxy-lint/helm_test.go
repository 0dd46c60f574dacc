package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// chartTree is a chart whose kube-proxy mode is set in values.yaml and, for production, in
// values-prod.yaml, rendered into a ConfigMap's config.conf.
var chartTree = map[string]string{
	"kp/Chart.yaml":       "apiVersion: v2\nname: kp\nversion: 0.1.0\n",
	"kp/values.yaml":      "kubeProxy:\n  mode: ipvs\n",
	"kp/values-prod.yaml": "kubeProxy:\n  mode: ipvs # kube-proxy-lint:ignore KP102 -- moves with the 1.40 upgrade\n",
	"kp/templates/configmap.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: {{ .Values.kubeProxy.mode | quote }}
    nodePortAddresses: ["primary"]
`,
}

// A chart's finding points at the values file, a suppression there holds, and --fix edits
// the values file, after which the chart lints clean.
func TestHelmChartCLI(t *testing.T) {
	dir := writeTree(t, chartTree)
	r := runCLI(t, "", "--target-version", "1.40", "--color", "never", dir)
	if r.code != 1 || !strings.Contains(r.stdout, "kp/values.yaml:2:9: error: kube-proxy mode ipvs") ||
		!strings.Contains(r.stdout, "kp/templates/configmap.yaml:9:11: note: rendered by this template with values.yaml") ||
		strings.Contains(r.stdout, "values-prod.yaml:") || !strings.Contains(r.stdout, "1 finding (1 error)") {
		t.Fatalf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stdout, "@values") || strings.Contains(r.stderr, "@values") {
		t.Errorf("a virtual rendering path leaked:\n%s\n%s", r.stdout, r.stderr)
	}
	r = runCLI(t, "", "--fix", "--unsafe-fixes", "--target-version", "1.40", "--quiet", dir)
	got := readTree(t, dir)
	if got["kp/values.yaml"] != "kubeProxy:\n  mode: nftables\n" || got["kp/templates/configmap.yaml"] != chartTree["kp/templates/configmap.yaml"] {
		t.Errorf("after --fix: exit %d\nvalues.yaml:\n%s\ntemplate:\n%s\n%s", r.code, got["kp/values.yaml"], got["kp/templates/configmap.yaml"], r.stderr)
	}
	if r.code != 0 {
		t.Errorf("--fix left findings: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// helm: render: false in the configuration reads the templates unrendered.
func TestHelmRenderOff(t *testing.T) {
	tree := map[string]string{".kube-proxy-lint.yaml": "helm:\n  render: false\n"}
	for k, v := range chartTree {
		tree[k] = v
	}
	dir := writeTree(t, tree)
	r := runCLI(t, "", "--target-version", "1.40", dir)
	if r.code != 0 {
		t.Errorf("exit %d with rendering off (the mode is a placeholder):\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// helm template's output piped in: positions are lines of the stream, named by
// --stdin-filename.
func TestHelmTemplateStdin(t *testing.T) {
	stream := `---
# Source: kp/templates/configmap.yaml
apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: "ipvs"
    nodePortAddresses: ["primary"]
---
# Source: kp/templates/service.yaml
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  ports:
    - port: 80
`
	r := runCLI(t, stream, "--no-config", "--target-version", "1.40", "--color", "never", "--stdin-filename", "deploy/kp/rendered.yaml", "-")
	if r.code != 1 || !strings.Contains(r.stdout, "deploy/kp/rendered.yaml:11:11: error: kube-proxy mode ipvs") {
		t.Errorf("exit %d:\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// The built executables: kube-proxy-lint starts the renderer kube-proxy-lint-helm installed
// beside it (as go install, the release archives and the image place them) and reports the
// chart's findings; without it, each chart is read unrendered and a notice says what to
// install, the run goes on; a renderer started by hand says what it is.
func TestRendererExecutable(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	bin := t.TempDir()
	build := exec.Command(gobin, "build", "-o", bin+string(filepath.Separator), "github.com/kube-proxy-lint/kube-proxy-lint/cmd/kube-proxy-lint", "github.com/kube-proxy-lint/kube-proxy-lint/cmd/kube-proxy-lint-helm")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dir := writeTree(t, chartTree)
	lint := func(exe string) (int, string, string) {
		t.Helper()
		cmd := exec.Command(exe, "--target-version", "1.40", "--color", "never", dir)
		cmd.Env = append(os.Environ(), "PATH=") // only the renderer beside it
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	exe := filepath.Join(bin, "kube-proxy-lint")
	renderer := func() string {
		t.Helper()
		cmd := exec.Command(exe, "version", "--format", "json")
		cmd.Env = append(os.Environ(), "PATH=")
		out, err := cmd.Output()
		var v versionInfo
		if err != nil || json.Unmarshal(out, &v) != nil {
			t.Fatalf("version --format json: %v\n%s", err, out)
		}
		return v.HelmRenderer
	}
	if got := renderer(); got != filepath.Join(bin, "kube-proxy-lint-helm") {
		t.Errorf("version names the renderer %q", got)
	}
	code, stdout, stderr := lint(exe)
	if code != 1 || !strings.Contains(stdout, "kp/values.yaml:2:9: error: kube-proxy mode ipvs") || strings.Contains(stderr, "not rendered") {
		t.Fatalf("with the renderer beside it: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if err := os.Remove(filepath.Join(bin, "kube-proxy-lint-helm")); err != nil {
		t.Fatal(err)
	}
	if got := renderer(); got != "" {
		t.Errorf("version names a removed renderer %q", got)
	}
	code, stdout, stderr = lint(exe)
	if code != 0 || !strings.Contains(stderr, "kp/Chart.yaml:1:1: Helm chart kp not rendered: the Helm renderer kube-proxy-lint-helm is not installed beside kube-proxy-lint or on PATH") ||
		!strings.Contains(stderr, "its templates are checked unrendered") {
		t.Errorf("without the renderer: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
