package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

var updateMulti = flag.Bool("update-multi", false, "rewrite fixtures/repos/multi-cluster.golden")

// multiFindings lints fixtures/repos/multi-cluster (or a copy at dir) and returns one line per
// finding: rule, severity, position and cluster, paths relative to the fixture.
func multiFindings(t *testing.T, dir, prefix string, args ...string) []string {
	t.Helper()
	r := runCLI(t, "", append([]string{"--no-config", "--quiet", "--format", "json"}, append(args, dir)...)...)
	if r.code != exitOK && r.code != exitFindings {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Findings []struct {
			RuleID, Severity, Cluster string
			Pos                       struct {
				File         string
				Line, Column int
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	var out []string
	for _, f := range rep.Findings {
		cl := strings.TrimPrefix(f.Cluster, prefix)
		if cl == "" {
			cl = "(shared)"
		}
		if i := strings.LastIndex(cl, "/repo/"); i >= 0 {
			cl = cl[i+len("/repo/"):]
		}
		out = append(out, fmt.Sprintf("%s %s %s:%d:%d %s", f.RuleID, f.Severity, strings.TrimPrefix(f.Pos.File, prefix), f.Pos.Line, f.Pos.Column, cl))
	}
	sort.Strings(out)
	return out
}

// TestMultiClusterRepo: in a repository of several clusters, evidence never leaks between
// them (issue 20): edge's leftover ConfigMap is judged against Cilium in edge, not prod's
// kubeadm config; prod's NodePort Service counts for nobody else; the join file configures no
// kube-proxy; the overlay's replacement does not quiet the base; each cluster is checked at its
// own version, the chart's legacy values at the chart's appVersion.
func TestMultiClusterRepo(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "repos", "multi-cluster")
	got := strings.Join(multiFindings(t, dir, "fixtures/repos/multi-cluster/"), "\n") + "\n"
	golden := filepath.Join("..", "..", "fixtures", "repos", "multi-cluster.golden")
	if *updateMulti {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/kube-proxy-lint -run TestMultiClusterRepo -update-multi)", err)
	}
	if got != string(want) {
		t.Errorf("findings differ from %s (-update-multi):\n%s", golden, firstDiff(string(want), got))
	}
}

// TestMultiClusterReport: the readiness report has one row per cluster and one section for
// the shared files, rendered charts named after the chart and values file, no virtual path.
func TestMultiClusterReport(t *testing.T) {
	r := runCLI(t, "", "report", "--no-config", filepath.Join("..", "..", "fixtures", "repos", "multi-cluster"))
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stdout, "/@") {
		t.Errorf("the report names a virtual path:\n%s", r.stdout)
	}
	golden := filepath.Join("..", "..", "fixtures", "repos", "multi-cluster-report.md")
	if *updateMulti {
		if err := os.WriteFile(golden, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (-update-multi)", err)
	}
	if r.stdout != string(want) {
		t.Errorf("report differs from %s (-update-multi):\n%s", golden, firstDiff(string(want), r.stdout))
	}
}

// TestMultiClusterFix: --fix --unsafe-fixes moves every ipvs cluster off ipvs, each fix
// verified in its own cluster, and a second run finds nothing to fix.
func TestMultiClusterFix(t *testing.T) {
	src := filepath.Join("..", "..", "fixtures", "repos", "multi-cluster")
	dst := filepath.Join(t.TempDir(), "repo")
	copyTree(t, src, dst)
	r := runCLI(t, "", "--no-config", "--fix", "--unsafe-fixes", dst)
	if r.code == exitError {
		t.Fatalf("fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if strings.Contains(r.stderr, "not applied") {
		t.Errorf("fixes rolled back:\n%s", r.stderr)
	}
	for _, f := range multiFindings(t, dst, "") {
		if strings.HasPrefix(f, "KP102 ") {
			t.Errorf("ipvs left after --fix --unsafe-fixes: %s", f)
		}
	}
	r = runCLI(t, "", "--no-config", "--fix", "--unsafe-fixes", dst)
	if !strings.Contains(r.stderr, "nothing to fix") {
		t.Errorf("second run: exit %d\n%s", r.code, r.stderr)
	}
}

func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.Walk(src, func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if info.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMultiClusterFixCompanions: the nftables fix of prod's kubeadm KubeProxyConfiguration is
// one fix with its companions in prod (issue 20 item 5): the twin ConfigMap moves with it and
// nodePortAddresses is written down in both, since prod has a NodePort Service. KP102 alone is
// enabled, so nothing else (KP301's own fix) can do the companions' work.
func TestMultiClusterFixCompanions(t *testing.T) {
	src := filepath.Join("..", "..", "fixtures", "repos", "multi-cluster")
	dst := filepath.Join(t.TempDir(), "repo")
	copyTree(t, src, dst)
	r := runCLI(t, "", "--no-config", "--format", "json", "--disable", "all", "--enable", "KP102", dst)
	rep := kp102Fixes(t, r.stdout)
	found := false
	for _, f := range rep.Findings {
		if !strings.HasSuffix(f.Pos.File, "clusters/prod/kubeadm/kubeadm-config.yaml") || len(f.Fixes) == 0 {
			continue
		}
		found = true
		files := map[string]bool{}
		for _, e := range f.Fixes[0].Edits {
			files[filepath.ToSlash(e.Pos.File)] = true
		}
		if len(files) != 2 || !strings.Contains(f.Fixes[0].Message, "the same in the kube-proxy ConfigMap") ||
			!strings.Contains(f.Fixes[0].Message, `nodePortAddresses to ["primary"]`) {
			t.Errorf("the kubeadm fix is not one fix with its companions: %q edits %v", f.Fixes[0].Message, files)
		}
	}
	if !found {
		t.Fatalf("no KP102 fix on prod's kubeadm config:\n%s", r.stdout)
	}
	r = runCLI(t, "", "--no-config", "--disable", "all", "--enable", "KP102", "--fix", "--unsafe-fixes", dst)
	if r.code == exitError {
		t.Fatalf("fix: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, name := range []string{"clusters/prod/kubeadm/kubeadm-config.yaml", "clusters/prod/kube-system/kube-proxy.yaml"} {
		b, err := os.ReadFile(filepath.Join(dst, name))
		if err != nil {
			t.Fatal(err)
		}
		if s := string(b); !strings.Contains(s, "mode: nftables") || !strings.Contains(s, `nodePortAddresses: ["primary"]`) || strings.Contains(s, "ipvs") {
			t.Errorf("%s after the fix:\n%s", name, s)
		}
	}
}

// TestFixCompanionsStayInTheirCluster: two clusters, each a kubeadm config and its ConfigMap in
// ipvs; the fix of one cluster's kubeadm config moves that cluster's ConfigMap only, and a
// cluster without NodePort Services gets no nodePortAddresses.
func TestFixCompanionsStayInTheirCluster(t *testing.T) {
	kubeadm := "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.34.0\nclusterName: %s\n---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\ndata:\n  config.conf: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: ipvs\n"
	files := map[string]string{}
	for _, c := range []string{"a", "b"} {
		files["clusters/"+c+"/kubeadm.yaml"] = fmt.Sprintf(kubeadm, c)
		files["clusters/"+c+"/kube-system/kube-proxy.yaml"] = cm
	}
	dir := writeTree(t, files)
	r := runCLI(t, "", "--no-config", "--format", "json", "--disable", "all", "--enable", "KP102", dir)
	rep := kp102Fixes(t, r.stdout)
	if len(rep.Findings) != 4 {
		t.Fatalf("want 4 KP102 findings, got %d:\n%s", len(rep.Findings), r.stdout)
	}
	for _, f := range rep.Findings {
		own := filepath.ToSlash(filepath.Dir(f.Pos.File))
		own = own[:strings.Index(own, "/clusters/")+len("/clusters/x")]
		fx := f.Fixes[0]
		if len(fx.Edits) != 2 || strings.Contains(fx.Message, "nodePortAddresses") {
			t.Errorf("%s: want the mode and its twin's mode, nothing else: %q (%d edits)", f.Pos.File, fx.Message, len(fx.Edits))
		}
		for _, e := range fx.Edits {
			if !strings.HasPrefix(filepath.ToSlash(e.Pos.File), own+"/") {
				t.Errorf("%s: the fix edits %s, in another cluster", f.Pos.File, e.Pos.File)
			}
		}
	}
}

// TestConfigTargetIsAFallback: the configuration file's target-version is the target of the
// clusters that name no version (and of the shared files), not an override: a kubeadm cluster
// naming 1.34 stays at 1.34 (RULES.md "Target version per cluster"); --target-version
// overrides every cluster.
func TestConfigTargetIsAFallback(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".kube-proxy-lint.yaml": "target-version: \"1.38\"\n",
		"clusters/a/kubeadm.yaml": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.34.2\nclusterName: a\n" +
			"---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
		"clusters/b/kind.yaml": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnetworking:\n  kubeProxyMode: ipvs\n",
	})
	targets := func(args ...string) map[string]string {
		r := runCLI(t, "", append([]string{"--format", "json"}, append(args, dir)...)...)
		var rep struct {
			Targets []struct {
				Scope           *string
				Version, Source string
			}
		}
		if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
			t.Fatalf("output is not JSON: %v\n%s%s", err, r.stdout, r.stderr)
		}
		out := map[string]string{}
		for _, tg := range rep.Targets {
			if tg.Scope != nil {
				out[*tg.Scope] = tg.Version + " " + tg.Source
			}
		}
		return out
	}
	got := targets()
	if !strings.HasPrefix(got["clusters/a"], "1.34 ") || !strings.HasPrefix(got["clusters/b"], "1.38 target-version in ") {
		t.Errorf("config target-version as a fallback: %v", got)
	}
	got = targets("--target-version", "1.41")
	if !strings.HasPrefix(got["clusters/a"], "1.41 ") || !strings.HasPrefix(got["clusters/b"], "1.41 ") {
		t.Errorf("--target-version overrides: %v", got)
	}
}

// fixesReport is what the fix tests read of a JSON run: each finding's file and its fixes'
// messages and edited files.
type fixesReport struct {
	Findings []struct {
		Pos   struct{ File string }
		Fixes []struct {
			Message string
			Edits   []struct{ Pos struct{ File string } }
		}
	}
}

func kp102Fixes(t *testing.T, stdout string) fixesReport {
	t.Helper()
	var rep fixesReport
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	return rep
}

// TestPartialRunTargetIgnoresEmptyDeclared: linting one declared cluster's directory, another
// declared cluster none of whose files is read does not give the run its version.
func TestPartialRunTargetIgnoresEmptyDeclared(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".kube-proxy-lint.yaml":      "clusters:\n  - name: a\n    paths: [clusters/a]\n    version: \"1.34\"\n  - name: b\n    paths: [clusters/b]\n    version: \"1.39\"\n",
		"clusters/a/kube-proxy.yaml": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
		"clusters/b/kube-proxy.yaml": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n",
	})
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	gitIn(t, dir, "init", "-q", "-b", "main")
	t.Chdir(dir)
	r := runCLI(t, "", "--format", "json", filepath.Join("clusters", "a"))
	var rep struct {
		Target struct{ Version string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("output is not JSON: %v\n%s%s", err, r.stdout, r.stderr)
	}
	if rep.Target.Version != "1.34" {
		t.Errorf("run target %q, want 1.34 (cluster b is not read)\n%s", rep.Target.Version, r.stdout)
	}
}

// TestDeclaredConfigAboveRoot: without a repository above the linted path, --config naming a
// file further up still applies its declared clusters to the linted subtree, and the globs of
// clusters outside it are no error.
func TestDeclaredConfigAboveRoot(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"kpl.yaml":                   "clusters:\n  - name: a\n    paths: [clusters/a]\n    version: \"1.34\"\n  - name: b\n    paths: [clusters/b]\n",
		"clusters/a/kube-proxy.yaml": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
		"clusters/b/kube-proxy.yaml": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
	})
	r := runCLI(t, "", "--format", "json", "--config", filepath.Join(dir, "kpl.yaml"), filepath.Join(dir, "clusters", "a"))
	if r.code == exitError || !strings.Contains(r.stdout, `"cluster": "a"`) || !strings.Contains(r.stdout, `"version": "1.34"`) {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
