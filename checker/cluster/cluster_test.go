package cluster_test

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/cluster"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

const (
	kubeadm = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n"
	join    = "apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\n---\n" + kubeadm
	kind    = "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\n"
	cm      = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\ndata:\n  config.conf: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: iptables\n"
	svc     = "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: NodePort\n"
	talos   = "version: v1alpha1\nmachine:\n  type: %s\ncluster:\n  clusterName: home\n  proxy:\n    mode: ipvs\n"
)

// clusterOf returns the cluster name of each file ("-" for a shared file).
func clusterOf(ws *checker.Workspace, files []string) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		out[f] = "-"
		if c := ws.ClusterOf(f); c != nil {
			out[f] = c.Name
		}
	}
	return out
}

// TestInfer checks the inference rules of RULES.md "Clusters" on one repository: roots,
// deployed kube-proxies, one-file alternatives, join files, self-contained trees and overlays.
func TestInfer(t *testing.T) {
	files := map[string]string{
		// prod: the anchor in kubeadm/ makes clusters/prod the root, so kube-system/ and
		// apps/ belong to it; the join file anchors nothing.
		"clusters/prod/kubeadm/config.yaml":  kubeadm,
		"clusters/prod/kubeadm/join.yaml":    join,
		"clusters/prod/kube-system/cm.yaml":  cm,
		"clusters/prod/apps/web.yaml":        svc,
		"clusters/edge/kubeadm.yaml":         kubeadm,
		"clusters/edge/kube-system/cm.yaml":  cm,
		"clusters/edge/overlays/x/svc.yaml":  svc,
		"clusters/join-only/join.yaml":       join,
		"dev/kind.yaml":                      kind,
		"dev/kind-ipvs.yaml":                 kind,
		"dev/notes.yaml":                     svc,
		"talos/controlplane.yaml":            strings.Replace(talos, "%s", "controlplane", 1),
		"talos/worker.yaml":                  strings.Replace(talos, "%s", "worker", 1),
		"inventory/prod/group_vars/all.yml":  "kube_proxy_mode: ipvs\n",
		"inventory/prod/hosts.yaml":          "all:\n  hosts: {}\n",
		"nodes/systemd/kube-proxy.service":   "[Service]\nExecStart=/usr/bin/kube-proxy --proxy-mode=ipvs\n",
		"monitoring/rules.yaml":              svc,
		"tests/e2e/kubeadm.yaml":             kubeadm,
		"tests/e2e/svc.yaml":                 svc,
		"tests/other/svc.yaml":               svc,
		"clusters/edge/overlays/x/cm.yaml":   svc,
		"clusters/edge/overlays/y/svc2.yaml": svc,
		// kubespray scenarios side by side (one per CI job) set the same variables:
		// alternatives; one cluster's variables split over files outside group_vars do not.
		"ci/scenarios/calico.yml": "kube_network_plugin: calico\nkube_proxy_mode: nftables\n",
		"ci/scenarios/cilium.yml": "kube_network_plugin: cilium\nkube_proxy_mode: ipvs\n",
		"vars/k8s.yml":            "kube_proxy_mode: ipvs\n",
		"vars/ipvs.yml":           "kube_proxy_strict_arp: true\nkube_proxy_scheduler: rr\n",
	}
	mem := map[string][]byte{}
	var names []string
	for n, c := range files {
		mem[n] = []byte(c)
		names = append(names, n)
	}
	sort.Strings(names)
	ws := load.Files(mem, nil)
	got := clusterOf(ws, names)
	want := map[string]string{
		"clusters/prod/kubeadm/config.yaml":  "clusters/prod",
		"clusters/prod/kubeadm/join.yaml":    "clusters/prod",
		"clusters/prod/kube-system/cm.yaml":  "clusters/prod",
		"clusters/prod/apps/web.yaml":        "clusters/prod",
		"clusters/edge/kubeadm.yaml":         "clusters/edge",
		"clusters/edge/kube-system/cm.yaml":  "clusters/edge",
		"clusters/edge/overlays/x/svc.yaml":  "-", // an overlay is a tree of its own
		"clusters/edge/overlays/x/cm.yaml":   "-",
		"clusters/edge/overlays/y/svc2.yaml": "-",
		"clusters/join-only/join.yaml":       "-",
		"dev/kind.yaml":                      "dev/kind.yaml", // alternatives side by side
		"dev/kind-ipvs.yaml":                 "dev/kind-ipvs.yaml",
		"dev/notes.yaml":                     "-",
		"talos/controlplane.yaml":            "talos", // one cluster over two machine configs
		"talos/worker.yaml":                  "talos",
		"inventory/prod/group_vars/all.yml":  "inventory", // the inventory directory, climbed
		"inventory/prod/hosts.yaml":          "inventory",
		"nodes/systemd/kube-proxy.service":   "nodes", // a deployed kube-proxy climbs to nodes/
		"monitoring/rules.yaml":              "-",
		"tests/e2e/kubeadm.yaml":             "tests/e2e", // test data: its own tree
		"tests/e2e/svc.yaml":                 "tests/e2e",
		"tests/other/svc.yaml":               "-",
		"ci/scenarios/calico.yml":            "ci/scenarios/calico.yml",
		"ci/scenarios/cilium.yml":            "ci/scenarios/cilium.yml",
		"vars/k8s.yml":                       "vars",
		"vars/ipvs.yml":                      "vars",
	}
	for _, n := range names {
		if got[n] != want[n] {
			t.Errorf("%s: cluster %q, want %q", n, got[n], want[n])
		}
	}
	if ws.SameCluster("clusters/prod/apps/web.yaml", "clusters/edge/kubeadm.yaml") || ws.SameCluster("monitoring/rules.yaml", "clusters/prod/apps/web.yaml") {
		t.Error("evidence crosses clusters")
	}
}

// TestInferOneCluster: a repository whose only cluster definition sits deep in it is one
// cluster rooted at the top; a repository with none is taken as one cluster.
func TestInferOneCluster(t *testing.T) {
	ws := load.Files(map[string][]byte{
		"kubeadm/config.yaml": []byte(kubeadm), "monitoring/rules.yaml": []byte(svc), "apps/web.yaml": []byte(svc),
	}, nil)
	for _, f := range []string{"kubeadm/config.yaml", "monitoring/rules.yaml", "apps/web.yaml"} {
		if c := ws.ClusterOf(f); c == nil || c.Name != "." {
			t.Errorf("%s: cluster %v, want .", f, c)
		}
	}
	ws = load.Files(map[string][]byte{"apps/web.yaml": []byte(svc), "ops/x.yaml": []byte(svc)}, nil)
	if len(ws.Clusters) != 1 || ws.ClusterOf("ops/x.yaml") != ws.Clusters[0] || !strings.Contains(ws.Clusters[0].How, "taken as one cluster") {
		t.Errorf("clusters %+v", ws.Clusters)
	}
}

// TestDeclared: declared clusters own the files their globs match and replace inference
// there; a file in two declared clusters and a glob that matches nothing are errors at the
// glob's position.
func TestDeclared(t *testing.T) {
	ws := load.Files(map[string][]byte{
		"a/kubeadm.yaml": []byte(kubeadm), "b/kubeadm.yaml": []byte(kubeadm), "shared/web.yaml": []byte(svc),
	}, nil)
	pos := func(line int) checker.Position {
		return checker.Position{Filename: ".kube-proxy-lint.yaml", Line: line, Column: 5}
	}
	v := checker.Version{Major: 1, Minor: 36}
	errs := cluster.Infer(ws, []cluster.Declared{
		{Name: "ab", Paths: []string{"a", "b", "shared/*.yaml"}, PathPos: []checker.Position{pos(2), pos(3), pos(4)}, Version: &v,
			Pos: checker.Position{Filename: ".kube-proxy-lint.yaml", Line: 1, Column: 3}},
		{Name: "again", Paths: []string{"a/kubeadm.yaml", "nothing/**"}, PathPos: []checker.Position{pos(6), pos(7)}},
	})
	ws.IndexTargets()
	if c := ws.ClusterOf("b/kubeadm.yaml"); c == nil || c.Name != "ab" || ws.ClusterOf("shared/web.yaml") != c {
		t.Errorf("b/kubeadm.yaml in %v", c)
	}
	if tg := ws.TargetOf("shared/web.yaml"); tg.Version != v || !strings.Contains(tg.Source, "declared") {
		t.Errorf("target %+v", tg)
	}
	var msgs []string
	for _, err := range errs {
		var ce *cluster.Error
		if !errors.As(err, &ce) {
			t.Fatalf("error %v is not a cluster.Error", err)
		}
		msgs = append(msgs, err.Error())
	}
	sort.Strings(msgs)
	if len(msgs) != 2 || msgs[0] != ".kube-proxy-lint.yaml:6:5: a/kubeadm.yaml is also in the cluster declared at .kube-proxy-lint.yaml:1:3: a file belongs to one declared cluster" ||
		msgs[1] != ".kube-proxy-lint.yaml:7:5: this paths glob matches no linted file" {
		t.Errorf("errors %q", msgs)
	}
	// The errors never quote the configuration: no cluster name, no glob.
	for _, m := range msgs {
		if strings.Contains(m, "again") || strings.Contains(m, "nothing/**") {
			t.Errorf("error quotes the configuration: %s", m)
		}
	}
}

// TestDeclaredOverlapCounted: a glob that takes many files of another declared cluster is one
// error naming the first file and the count, not one per file.
func TestDeclaredOverlapCounted(t *testing.T) {
	files := map[string][]byte{}
	for _, n := range []string{"p/a.yaml", "p/b.yaml", "p/c.yaml"} {
		files[n] = []byte(svc)
	}
	ws := load.Files(files, nil)
	at := checker.Position{Filename: "c.yaml", Line: 2, Column: 3}
	errs := cluster.Infer(ws, []cluster.Declared{
		{Name: "one", Paths: []string{"p"}, Pos: checker.Position{Filename: "c.yaml", Line: 1, Column: 3}},
		{Name: "two", Paths: []string{"**/*.yaml"}, PathPos: []checker.Position{at}},
	})
	if len(errs) != 1 || errs[0].Error() != "c.yaml:2:3: 3 files (first: p/a.yaml) are also in the cluster declared at c.yaml:1:3: a file belongs to one declared cluster" {
		t.Errorf("errors %v", errs)
	}
	if c := ws.ClusterOf("p/b.yaml"); c == nil || c.Name != "one" {
		t.Errorf("p/b.yaml in %v, want the first declared cluster", c)
	}
}

// TestInferStopsAtDeclared: an inferred cluster's root never climbs to a directory that holds
// a declared cluster's files; without the declaration it would (the negative case).
func TestInferStopsAtDeclared(t *testing.T) {
	files := map[string][]byte{
		"clusters/prod/kubeadm.yaml":    []byte(kubeadm),
		"clusters/prod/apps/web.yaml":   []byte(svc),
		"clusters/legacy/notes.yaml":    []byte(svc),
		"clusters/legacy/cm/proxy.yaml": []byte(cm),
		"clusters/shared.yaml":          []byte(svc),
	}
	ws := load.Files(files, nil)
	// Inferred alone: prod's root climbs to the top, holding legacy and shared.yaml.
	if c := ws.ClusterOf("clusters/shared.yaml"); c == nil || c != ws.ClusterOf("clusters/prod/kubeadm.yaml") {
		t.Fatalf("without declared clusters: clusters/shared.yaml in %v", c)
	}
	ws = load.Files(files, nil)
	errs := cluster.Infer(ws, []cluster.Declared{{Name: "legacy", Paths: []string{"clusters/legacy"}}})
	if len(errs) != 0 {
		t.Fatal(errs)
	}
	got := clusterOf(ws, []string{"clusters/prod/kubeadm.yaml", "clusters/prod/apps/web.yaml", "clusters/legacy/notes.yaml", "clusters/legacy/cm/proxy.yaml", "clusters/shared.yaml"})
	want := map[string]string{
		"clusters/prod/kubeadm.yaml":    "clusters/prod",
		"clusters/prod/apps/web.yaml":   "clusters/prod",
		"clusters/legacy/notes.yaml":    "legacy",
		"clusters/legacy/cm/proxy.yaml": "legacy", // a deployed kube-proxy in a declared cluster anchors nothing
		"clusters/shared.yaml":          "-",
	}
	for f, w := range want {
		if got[f] != w {
			t.Errorf("%s: cluster %q, want %q", f, got[f], w)
		}
	}
	for _, c := range ws.Clusters {
		if !c.Declared && strings.HasPrefix(c.Root+"/", "clusters/legacy/") {
			t.Errorf("an inferred cluster %q lies in the declared one", c.Name)
		}
	}
}

// TestDeclaredChart: a chart inside a declared cluster renders into it (no rendering cluster of
// its own); without the declaration each values file is a cluster (the negative case).
func TestDeclaredChart(t *testing.T) {
	files := map[string][]byte{
		"charts/kp/Chart.yaml":             []byte("apiVersion: v2\nname: kp\nversion: 0.1.0\n"),
		"charts/kp/values.yaml":            []byte("mode: ipvs\n"),
		"charts/kp/values-new.yaml":        []byte("mode: nftables\n"),
		"charts/kp/templates/cm.yaml":      []byte(strings.Replace(cm, "mode: iptables", "mode: {{ .Values.mode }}", 1)),
		"clusters/prod/kubeadm.yaml":       []byte(kubeadm),
		"clusters/prod/kube-system/x.yaml": []byte(svc),
	}
	renderings := func(ws *checker.Workspace) int {
		n := 0
		for _, c := range ws.Clusters {
			if c.Virtual() != "" {
				n++
			}
		}
		return n
	}
	ws := load.Files(files, nil)
	if len(ws.Rendered) == 0 {
		t.Skip("the chart did not render")
	}
	if n := renderings(ws); n != 2 {
		t.Fatalf("without declared clusters: %d rendering clusters, want 2", n)
	}
	ws = load.Files(files, nil)
	if errs := cluster.Infer(ws, []cluster.Declared{{Name: "platform", Paths: []string{"charts/kp"}}}); len(errs) != 0 {
		t.Fatal(errs)
	}
	if n := renderings(ws); n != 0 {
		t.Errorf("%d rendering clusters inside a declared cluster", n)
	}
	for _, rf := range ws.Rendered {
		if c := ws.ClusterOf(rf.Path); c == nil || c.Name != "platform" {
			t.Errorf("a rendered file of the declared chart is in %v", c)
		}
	}
}

// TestAnchorsOncePerPosition: a kubeadm document is an installer instance and an identity
// document at once; the cluster lists it once, anchors in position order.
func TestAnchorsOncePerPosition(t *testing.T) {
	kpc := "---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"
	ws := load.Files(map[string][]byte{
		"a/kubeadm.yaml": []byte(kubeadm + "kubernetesVersion: v1.34.0\n" + kpc),
		"b/kind.yaml":    []byte(kind + "networking:\n  kubeProxyMode: ipvs\n"),
	}, nil)
	if len(ws.Clusters) != 2 {
		t.Fatalf("clusters %+v", ws.Clusters)
	}
	for _, c := range ws.Clusters {
		if len(c.Anchors) == 0 {
			t.Errorf("%s: no anchors", c.Name)
		}
		for i := 1; i < len(c.Anchors); i++ {
			if !c.Anchors[i-1].Pos.Less(c.Anchors[i].Pos) {
				t.Errorf("%s: anchors %d and %d at %s and %s: not one per position, in order", c.Name, i-1, i, c.Anchors[i-1].Pos, c.Anchors[i].Pos)
			}
		}
	}
}

// TestTalosLayers: Talos machine configs of one cluster are layers of one configuration; a
// KubeProxyConfig with enabled: false in a patch disables the base config's kube-proxy too,
// counts as one replacement, and quiets the kube-proxy rules in the base's file. A second
// Talos cluster beside it keeps its own kube-proxy; in a third, the mode a patch sets is the
// base's mode.
func TestTalosLayers(t *testing.T) {
	base := "version: v1alpha1\nmachine:\n  type: controlplane\ncluster:\n  clusterName: %s\n"
	ws := load.Files(map[string][]byte{
		"home/talos/cluster.yaml":      []byte(fmt.Sprintf(base, "home")),
		"home/talos/controlplane.yaml": []byte("machine:\n  type: controlplane\n---\napiVersion: v1alpha1\nkind: KubeProxyConfig\nenabled: false\n"),
		"home/apps/svc.yaml":           []byte(svc),
		"lab/talos/cluster.yaml":       []byte(fmt.Sprintf(base, "lab")),
		"edge/talos/cluster.yaml":      []byte(fmt.Sprintf(base, "edge")),
		"edge/talos/patch.yaml":        []byte("cluster:\n  proxy:\n    mode: ipvs\n"),
	}, nil)
	var home, lab []*checker.Instance
	for _, in := range ws.Instances {
		switch f := checker.InstanceFile(in); {
		case strings.HasPrefix(f, "home/"):
			home = append(home, in)
		case strings.HasPrefix(f, "lab/"):
			lab = append(lab, in)
		}
	}
	if len(home) != 2 || len(lab) != 1 {
		t.Fatalf("instances: home %d, lab %d", len(home), len(lab))
	}
	for _, in := range home {
		if !in.IsDisabled() || in.Runs() {
			t.Errorf("%s: runs kube-proxy, want disabled by the KubeProxyConfig layer", in.Label)
		}
	}
	if lab[0].IsDisabled() {
		t.Errorf("%s: disabled by another cluster's layer", lab[0].Label)
	}
	// A mode set in one layer only is the mode of the others.
	for _, in := range ws.Instances {
		if f := checker.InstanceFile(in); strings.HasPrefix(f, "edge/") {
			if m := in.Mode(checker.Version{Major: 1, Minor: 40}); m.Value != "ipvs" {
				t.Errorf("%s: mode %q, want ipvs from the patch layer", in.Label, m.Value)
			}
		}
	}
	r := ws.Replaced()
	if len(r.All) != 1 || !strings.HasPrefix(r.All[0].Message, "Talos KubeProxyConfig in home/talos/controlplane.yaml") {
		t.Errorf("replacements %+v, want one, the KubeProxyConfig's", r.All)
	}
	if _, ok := r.Quiet("home/talos/cluster.yaml"); !ok {
		t.Error("home/talos/cluster.yaml: kube-proxy rules not quiet")
	}
	if _, ok := r.Quiet("lab/talos/cluster.yaml"); ok {
		t.Error("lab/talos/cluster.yaml: quiet, but its kube-proxy runs")
	}
}
