package engine

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// TestQuietReplaced proves that kube-proxy rules are quiet in a scope where kube-proxy is
// replaced and nothing runs it (clusters/a: kind with kubeProxyMode none), that they still
// speak in a scope where a kube-proxy remains (clusters/b: Cilium plus a kube-proxy
// DaemonSet) and that other rules are never quieted.
func TestQuietReplaced(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"clusters/a/kind.yaml": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnetworking:\n  kubeProxyMode: none\n",
		"clusters/a/ipvs.sh":   "ipvsadm -Ln\n",
		"clusters/b/kind.yaml": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnetworking:\n  kubeProxyMode: ipvs\n",
		"clusters/b/ipvs.sh":   "ipvsadm -Ln\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	report := func(p *checker.Pass) error {
		at(p, "clusters/a/ipvs.sh", 1, "a")
		at(p, "clusters/b/ipvs.sh", 1, "b")
		return nil
	}
	kp601 := rule(QuietRule, "kube-proxy-replaced", func(*checker.Pass) error { return nil })
	out, err := Run(context.Background(), ws, []*checker.Rule{rule("KP402", "ipvs", report), rule("ORG001", "org", report), kp601})
	if err != nil {
		t.Fatal(err)
	}
	got := summary(out.Findings)
	want := []string{
		"clusters/a/ipvs.sh:1:1 ORG001 warning a",
		"clusters/b/ipvs.sh:1:1 KP402 warning b",
		"clusters/b/ipvs.sh:1:1 ORG001 warning b",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(out.Suppressed) != 1 || out.Suppressed[0].RuleID != "KP402" ||
		!strings.Contains(out.Suppressed[0].Suppressions[0].Justification, "kind Cluster in clusters/a/kind.yaml does not run kube-proxy (kubeProxyMode: none)") {
		t.Errorf("suppressed = %+v; want the KP402 finding of clusters/a, naming the kind setting", out.Suppressed)
	}

	// Without KP601 in the run nothing explains the silence, so nothing is quiet.
	out, err = Run(context.Background(), ws, []*checker.Rule{rule("KP402", "ipvs", report)})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 2 || len(out.Suppressed) != 0 {
		t.Errorf("without KP601: findings = %q, suppressed = %d; want both KP402 findings reported", summary(out.Findings), len(out.Suppressed))
	}
}

func TestKubeProxyRule(t *testing.T) {
	for id, want := range map[string]bool{
		"KP001": false, "KP101": true, "KP106": true, "KP107": false, "KP204": true, "KP302": true,
		"KP402": true, "KP502": true, "KP601": false, "KP900": false, "ORG001": false, "KP1010": false,
	} {
		if got := checker.KubeProxyRule(id); got != want {
			t.Errorf("KubeProxyRule(%q) = %v, want %v", id, got, want)
		}
	}
}

// TestQuietStaysInItsScope: the quiet follows the replacement's cluster. A Cilium vars file of
// one CI scenario does not quiet its neighbour scenario; the eBPF manifests of the project do
// not quiet the test clusters in hack/test; an operator that manages kube-proxy
// (kubeProxyManagement: Enabled) quiets its own cluster (the kube-proxy ConfigMap beside it).
func TestQuietStaysInItsScope(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"tests/files/cilium.yml":     "cilium_kube_proxy_replacement: true\n",
		"tests/files/flannel.yml":    "kube_proxy_mode: nftables\n",
		"manifests/calico.yaml":      "apiVersion: operator.tigera.io/v1\nkind: Installation\nmetadata:\n  name: default\nspec:\n  calicoNetwork:\n    linuxDataplane: BPF\n    kubeProxyManagement: Enabled\n",
		"manifests/kube-proxy.yaml":  "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\ndata:\n  config.conf: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: ipvs\n",
		"hack/test/kind/kind.config": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n- |\n  apiVersion: kubeproxy.config.k8s.io/v1alpha1\n  kind: KubeProxyConfiguration\n  mode: ipvs\n",
	}
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	report := func(p *checker.Pass) error {
		at(p, "tests/files/cilium.yml", 1, "cilium")
		at(p, "tests/files/flannel.yml", 1, "flannel")
		at(p, "manifests/kube-proxy.yaml", 1, "manifests")
		at(p, "hack/test/kind/kind.config", 1, "kind")
		return nil
	}
	kp601 := rule(QuietRule, "kube-proxy-replaced", func(*checker.Pass) error { return nil })
	out, err := Run(context.Background(), ws, []*checker.Rule{rule("KP102", "ipvs", report), kp601})
	if err != nil {
		t.Fatal(err)
	}
	got := summary(out.Findings)
	want := []string{
		"hack/test/kind/kind.config:1:1 KP102 warning kind",
		"tests/files/flannel.yml:1:1 KP102 warning flannel",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got := summary(out.Suppressed); !reflect.DeepEqual(got, []string{"manifests/kube-proxy.yaml:1:1 KP102 warning manifests", "tests/files/cilium.yml:1:1 KP102 warning cilium"}) {
		t.Errorf("suppressed:\n%s", strings.Join(got, "\n"))
	}
}
