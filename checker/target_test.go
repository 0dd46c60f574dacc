package checker_test

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

func TestUnitOf(t *testing.T) {
	for file, want := range map[string]string{
		"deploy/kube-proxy.yaml":                        "",
		"kube-proxy.yaml":                               "",
		"tests/docker/run.sh":                           "tests/docker",
		"tests/docker/resources/svc.yaml":               "tests/docker",
		"tests/e2e/resource_files/svc.yaml":             "tests/e2e/resource_files",
		"tests/x.yaml":                                  "tests",
		"pkg/bsutil/testdata/v1.36/default.yaml":        "pkg/bsutil/testdata/v1.36",
		"hack/test/kind/kind.config":                    "hack/test/kind",
		"hack/local-up.sh":                              "hack",
		"examples/01-simple.yaml":                       "examples",
		"roles/kubernetes/templates/kubeadm.yaml.j2":    "roles/kubernetes",
		"roles/kubernetes-apps/vsphere/templates/a.j2":  "roles/kubernetes-apps",
		"roles/main.yml":                                "",
		"ansible/roles/kp/tests/test.yml":               "ansible/roles/kp/tests",
		"clusters/dev/kind.yaml":                        "",
		"inventory/sample/inventory.ini":                "inventory/sample",
		"inventory/sample/group_vars/k8s_cluster/a.yml": "inventory/sample",
		"inventory/sample/host_vars/node1.yml":          "inventory/sample",
	} {
		if got := checker.UnitOf(file); got != want {
			t.Errorf("UnitOf(%q) = %q, want %q", file, got, want)
		}
	}
}

// TestTargetOf checks the resolution order of targets: a file's own cluster definition, the
// nearest directory whose subtree holds one (image tags there included), the image tags of a
// tree without any, the default; versions of other self-contained trees never count.
func TestTargetOf(t *testing.T) {
	kubeadm := func(v string) []byte {
		return []byte("apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: " + v + "\n")
	}
	ds := func(tag string) []byte {
		return []byte("apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: kube-proxy\nspec:\n  template:\n    spec:\n      containers:\n      - name: kube-proxy\n        image: registry.k8s.io/kube-proxy:" + tag + "\n        command: [kube-proxy, --proxy-mode=nftables]\n")
	}
	svc := []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: NodePort\n")
	ws := load.Files(map[string][]byte{
		"clusters/old/kubeadm.yaml":            kubeadm("v1.33.1"),
		"clusters/old/kube-system/ds.yaml":     ds("v1.33.1"),
		"clusters/new/kubeadm/kubeadm.yaml":    kubeadm("v1.41.0"),
		"clusters/new/kube-system/ds.yaml":     ds("v1.40.3"),
		"clusters/new/apps/web.yaml":           svc,
		"clusters/ops/a.yaml":                  kubeadm("v1.36.0"),
		"clusters/ops/b.yaml":                  kubeadm("v1.38.0"),
		"clusters/ops/shared.yaml":             svc,
		"edge/kube-proxy.yaml":                 ds("v1.37.0"),
		"pkg/agent/testdata/kubeadm.yaml":      kubeadm("v1.44.0"),
		"pkg/agent/testdata/svc.yaml":          svc,
		"examples/kind/cluster.yaml":           []byte("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n  image: kindest/node:v1.45.0\n"),
		"README.yaml":                          svc,
		"charts/kube-proxy/Chart.yaml":         []byte("apiVersion: v2\nname: kube-proxy\nversion: 0.1.0\nappVersion: v1.39.2\n"),
		"charts/kube-proxy/templates/svc.yaml": svc,
	}, nil)
	for file, want := range map[string]string{
		"clusters/old/kube-system/ds.yaml": "1.33 kubeadm kubernetesVersion at clusters/old/kubeadm.yaml:3:20",
		"clusters/new/kube-system/ds.yaml": "1.41 kubeadm kubernetesVersion at clusters/new/kubeadm/kubeadm.yaml:3:20",
		"clusters/new/apps/web.yaml":       "1.41 kubeadm kubernetesVersion at clusters/new/kubeadm/kubeadm.yaml:3:20",
		// Two kubeadm configurations side by side are two clusters; the file beside them is
		// shared, at the default.
		"clusters/ops/a.yaml":         "1.36 kubeadm kubernetesVersion at clusters/ops/a.yaml:3:20",
		"clusters/ops/b.yaml":         "1.38 kubeadm kubernetesVersion at clusters/ops/b.yaml:3:20",
		"clusters/ops/shared.yaml":    "1.40 default",
		"pkg/agent/testdata/svc.yaml": "1.44 kubeadm kubernetesVersion at pkg/agent/testdata/kubeadm.yaml:3:20",
		// A chart's appVersion counts only for its own renderings; shared files take no
		// cluster's version.
		"charts/kube-proxy/templates/svc.yaml": "1.40 default",
		"README.yaml":                          "1.40 default",
		// A deployed kube-proxy with no cluster definition above it is its own cluster.
		"edge/kube-proxy.yaml": "1.37 kube-proxy image tag at edge/kube-proxy.yaml:10:16",
	} {
		tg := ws.TargetOf(file)
		if got := tg.Version.String() + " " + tg.Source; got != want {
			t.Errorf("TargetOf(%s) = %q, want %q", file, got, want)
		}
	}
	if got := ws.Target.Version.String(); got != "1.41" {
		t.Errorf("repository target %s, want 1.41", got)
	}

	// Without any cluster definition, each deployed kube-proxy is a cluster of its own, at the
	// version of its image; shared files stay at the default.
	ws = load.Files(map[string][]byte{
		"edge/kube-proxy.yaml":                 ds("v1.37.0"),
		"core/kube-proxy.yaml":                 ds("v1.38.0"),
		"README.yaml":                          svc,
		"charts/kube-proxy/Chart.yaml":         []byte("apiVersion: v2\nname: kube-proxy\nversion: 0.1.0\nappVersion: v1.39.2\n"),
		"charts/kube-proxy/templates/svc.yaml": svc,
		"test/e2e/kind.yaml":                   []byte("kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnodes:\n- role: control-plane\n  image: kindest/node:v1.45.0\n"),
	}, nil)
	for file, want := range map[string]string{
		"edge/kube-proxy.yaml":                 "1.37 kube-proxy image tag at edge/kube-proxy.yaml:10:16",
		"core/kube-proxy.yaml":                 "1.38 kube-proxy image tag at core/kube-proxy.yaml:10:16",
		"charts/kube-proxy/templates/svc.yaml": "1.40 default",
		"README.yaml":                          "1.40 default",
		"test/e2e/kind.yaml":                   "1.45 kind node image at test/e2e/kind.yaml:5:10",
	} {
		tg := ws.TargetOf(file)
		if got := tg.Version.String() + " " + tg.Source; got != want {
			t.Errorf("without cluster definitions: TargetOf(%s) = %q, want %q", file, got, want)
		}
	}

	// Nothing names a version: the default; --target-version: everything.
	ws = load.Files(map[string][]byte{"a/svc.yaml": svc}, nil)
	if tg := ws.TargetOf("a/svc.yaml"); tg.Version != checker.DefaultTarget || tg.Source != "default" {
		t.Errorf("default target: %+v", tg)
	}
	v := checker.Version{Major: 1, Minor: 38}
	ws = load.Files(map[string][]byte{"clusters/old/kubeadm.yaml": kubeadm("v1.33.1")}, &v)
	if tg := ws.TargetOf("clusters/old/kubeadm.yaml"); tg.Version != v || tg.Source != "--target-version" || tg.Scope != "clusters/old" {
		t.Errorf("--target-version: %+v", tg)
	}
}

// TestVersionSources checks the version sources of installers and distributions.
func TestVersionSources(t *testing.T) {
	ws := load.Files(map[string][]byte{
		"sealos/Clusterfile.yaml": []byte("apiVersion: apps.sealos.io/v1beta1\nkind: Cluster\nmetadata:\n  name: default\nspec:\n  image:\n  - labring/kubernetes:v1.29.4\n  - labring/helm:v3.8.2\n"),
		"kubekey/config.yaml":     []byte("apiVersion: kubekey.kubesphere.io/v1alpha2\nkind: Cluster\nspec:\n  kubernetes:\n    version: v1.30.1\n"),
		"kubeone/kubeone.yaml":    []byte("apiVersion: kubeone.k8c.io/v1beta2\nkind: KubeOneCluster\nversions:\n  kubernetes: \"1.31.2\"\n"),
		"k0sctl/k0sctl.yaml":      []byte("apiVersion: k0sctl.k0sproject.io/v1beta1\nkind: Cluster\nspec:\n  k0s:\n    version: 1.32.1+k0s.0\n"),
		"inventory/prod/group_vars/k8s_cluster/k8s-cluster.yml": []byte("kube_version: v1.33.3\nkube_proxy_mode: ipvs\n"),
		"rke/cluster.yml":            []byte("nodes:\n- address: 10.0.0.1\nservices:\n  kubeproxy:\n    extra_args: {}\nkubernetes_version: v1.28.15-rancher1-1\n"),
		"static/kube-apiserver.yaml": []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-apiserver\nspec:\n  containers:\n  - name: kube-apiserver\n    image: registry.k8s.io/kube-apiserver:v1.34.0\n"),
		"templated/kubeadm.yaml":     []byte("apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: \"{{ .Version }}\"\n"),
		"terraform/eks.tf":           []byte("resource \"aws_eks_addon\" \"kp\" {\n  addon_name = \"kube-proxy\"\n  # addon_version = \"v1.40.0-eksbuild.1\"\n  addon_version = \"v1.33.0-eksbuild.2\"\n}\n"),
		"rancher/cluster.yaml":       []byte("apiVersion: provisioning.cattle.io/v1\nkind: Cluster\nmetadata:\n  name: c\nspec:\n  kubernetesVersion: v1.31.4+rke2r1\n"),
		"kops/cluster.yaml":          []byte("apiVersion: kops.k8s.io/v1alpha2\nkind: Cluster\nmetadata:\n  name: c\nspec:\n  kubernetesVersion: 1.30.2\n"),
		"join/kubeadm.yaml":          []byte("apiVersion: kubeadm.k8s.io/v1beta4\nkind: JoinConfiguration\n---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.45.0\n"),
	}, nil)
	want := map[string]string{
		"sealos/Clusterfile.yaml": "1.29 sealos Cluster image",
		"kubekey/config.yaml":     "1.30 KubeKey spec.kubernetes.version",
		"kubeone/kubeone.yaml":    "1.31 KubeOne versions.kubernetes",
		"k0sctl/k0sctl.yaml":      "1.32 k0sctl spec.k0s.version",
		"inventory/prod/group_vars/k8s_cluster/k8s-cluster.yml": "1.33 kubespray kube_version",
		"rke/cluster.yml":            "1.28 RKE1 kubernetes_version",
		"rancher/cluster.yaml":       "1.31 Rancher spec.kubernetesVersion",
		"kops/cluster.yaml":          "1.30 kops kubernetesVersion",
		"static/kube-apiserver.yaml": "1.34 kube-apiserver image tag",
		// A Terraform EKS add-on's version names its cluster's; a join file's
		// ClusterConfiguration is ignored by kubeadm join and names nothing.
		"terraform/eks.tf": "1.33 Terraform EKS addon_version",
	}
	got := map[string]string{}
	for _, s := range ws.VersionSources {
		got[s.Pos.Filename] = s.Version.String() + " " + s.What
	}
	for f, w := range want {
		if got[f] != w {
			t.Errorf("%s: source %q, want %q", f, got[f], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("sources %v, want %v", got, want)
	}
}
