package load_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// describeInstallers renders the installer instances of a workspace in one line each:
// "name mode=value/origin@pos disabled=value@pos ipvs=key@pos flag=name=value@pos".
func describeInstallers(ws *checker.Workspace) []string {
	var out []string
	for _, in := range ws.Instances {
		ins := in.Installer
		if ins == nil {
			continue
		}
		m := in.Mode(ws.Target.Version)
		s := fmt.Sprintf("%s mode=%s/%s", ins.Name, m.Value, m.Origin)
		if p, _, ok := m.Where(); ok {
			s += "@" + p.String()
		}
		if ins.Disabled != nil {
			s += fmt.Sprintf(" disabled=%s@%s", ins.Disabled.Value, ins.Disabled.Pos)
		}
		for _, k := range ins.IPVS {
			s += fmt.Sprintf(" ipvs=%s@%s", k.Key, k.Pos)
		}
		for _, f := range in.Flags {
			s += fmt.Sprintf(" flag=%s=%s@%s", f.Name, f.Value, f.ValuePos)
		}
		for _, g := range in.FeatureGates() {
			s += fmt.Sprintf(" gate=%s=%t", g.Name, g.Value)
		}
		out = append(out, s)
	}
	return out
}

func TestInstallerInstances(t *testing.T) {
	v139 := checker.Version{Major: 1, Minor: 39}
	v140 := checker.Version{Major: 1, Minor: 40}
	tests := []struct {
		name   string
		files  map[string]string
		target *checker.Version
		want   []string
	}{
		{
			name:  "kind ipvs quoted",
			files: map[string]string{"kind.yaml": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnetworking:\n  kubeProxyMode: \"ipvs\"\n"},
			want:  []string{"kind mode=ipvs/installer@kind.yaml:4:18"},
		},
		{
			name:  "kind none is disabled",
			files: map[string]string{"kind.yaml": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnetworking:\n  kubeProxyMode: none\n"},
			want:  []string{"kind mode=iptables/installer default disabled=none@kind.yaml:4:3"},
		},
		{
			name:  "kops extension-less spec",
			files: map[string]string{"clusters/prod/cluster-spec": "apiVersion: kops.k8s.io/v1alpha2\nkind: Cluster\nmetadata:\n  name: p\nspec:\n  kubeProxy:\n    enabled: false\n    ipvsScheduler: lc\n    featureGates:\n      KubeProxyIPVS: \"true\"\n"},
			want:  []string{"kops mode=iptables/installer default disabled=false@clusters/prod/cluster-spec:7:5 ipvs=ipvsScheduler@clusters/prod/cluster-spec:8:5 gate=KubeProxyIPVS=true"},
		},
		{
			name: "kubespray merged by precedence",
			files: map[string]string{
				"inv/c/inventory.ini":                          "[all:vars]\nkube_proxy_mode=iptables\n\n[k8s_cluster:vars]\nkube_proxy_strict_arp = true\n",
				"inv/c/group_vars/k8s_cluster/k8s-cluster.yml": "kube_proxy_mode: 'ipvs'\n",
			},
			want: []string{"kubespray mode=ipvs/installer@inv/c/group_vars/k8s_cluster/k8s-cluster.yml:1:18 ipvs=kube_proxy_strict_arp@inv/c/inventory.ini:5:1"},
		},
		{
			name:  "kubespray ini host var and template",
			files: map[string]string{"hosts.ini": "[kube_node]\nnode1 ansible_host=10.0.0.1 kube_proxy_mode=\"nftables\"\n", "other/group_vars/all.yml": "kube_proxy_mode: \"{{ mode }}\"\n"},
			want:  []string{"kubespray mode=nftables/installer@hosts.ini:2:45", "kubespray mode=/unknown@other/group_vars/all.yml:1:18"},
		},
		{
			name:  "kubespray YAML inventory",
			files: map[string]string{"inventory/prod/hosts.yaml": "all:\n  hosts:\n    node1:\n      ansible_host: 10.0.0.1\n  vars:\n    kube_proxy_mode: iptables\n  children:\n    k8s_cluster:\n      vars:\n        kube_proxy_mode: ipvs\n        kube_proxy_strict_arp: true\n      children:\n        kube_node:\n          hosts:\n            node1:\n"},
			want:  []string{"kubespray mode=ipvs/installer@inventory/prod/hosts.yaml:10:26 ipvs=kube_proxy_strict_arp@inventory/prod/hosts.yaml:11:9"},
		},
		{
			name:  "kubespray role default alone: the lowest precedence is what runs",
			files: map[string]string{"roles/kubernetes/node/defaults/main.yml": "kube_proxy_mode: ipvs\nkube_proxy_scheduler: rr\n"},
			want:  []string{"kubespray mode=ipvs/installer@roles/kubernetes/node/defaults/main.yml:1:18"},
		},
		{
			name: "kubespray role default under an inventory without the mode; role vars are not read",
			files: map[string]string{
				"roles/kubespray_defaults/defaults/main/main.yml": "kube_proxy_mode: ipvs\n",
				"roles/kubespray_defaults/vars/main.yml":          "kube_proxy_mode: iptables\n",
				"inventory/a/group_vars/all.yml":                  "kube_proxy_strict_arp: true\n",
				"inventory/b/group_vars/all.yml":                  "kube_proxy_mode: nftables\n",
			},
			want: []string{
				"kubespray mode=ipvs/installer@roles/kubespray_defaults/defaults/main/main.yml:1:18 ipvs=kube_proxy_strict_arp@inventory/a/group_vars/all.yml:1:1",
				"kubespray mode=nftables/installer@inventory/b/group_vars/all.yml:1:18",
			},
		},
		{
			name: "kind patches: the last patch that sets mode, JSON 6902 over both",
			files: map[string]string{
				"kind.yaml":  "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnetworking:\n  kubeProxyMode: iptables\nkubeadmConfigPatches:\n- |\n  apiVersion: kubeproxy.config.k8s.io/v1alpha1\n  kind: KubeProxyConfiguration\n  mode: nftables\n- |\n  apiVersion: kubeproxy.config.k8s.io/v1alpha1\n  kind: KubeProxyConfiguration\n  mode: ipvs\n",
				"kind2.yaml": "kind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nkubeadmConfigPatches:\n- |\n  apiVersion: kubeproxy.config.k8s.io/v1alpha1\n  kind: KubeProxyConfiguration\n  mode: ipvs\nkubeadmConfigPatchesJSON6902:\n- kind: KubeProxyConfiguration\n  patch: |\n    - op: replace\n      path: /mode\n      value: nftables\n",
			},
			want: []string{"kind mode=ipvs/config@kind.yaml:13:9", "kind mode=nftables/installer@kind2.yaml:13:14"},
		},
		{
			name: "kubekey v1alpha2, v4 Config over role defaults",
			files: map[string]string{
				"config-sample.yaml":                       "apiVersion: kubekey.kubesphere.io/v1alpha2\nkind: Cluster\nspec:\n  kubernetes:\n    disableKubeProxy: false\n    kubeProxyConfiguration:\n      ipvs:\n        strictARP: true\n",
				"kk/roles/defaults/defaults/main/k8s.yaml": "kubernetes:\n  kube_proxy:\n    mode: ipvs\n",
				"kk/config.yaml":                           "apiVersion: kubekey.kubesphere.io/v1\nkind: Config\nspec:\n  kubernetes:\n    kube_proxy:\n      mode: iptables\n",
			},
			want: []string{"kubekey mode=ipvs/installer default ipvs=strictARP@config-sample.yaml:8:9", "kubekey mode=iptables/installer@kk/config.yaml:6:13"},
		},
		{
			name:  "k0sctl",
			files: map[string]string{"k0sctl.yaml": "apiVersion: k0sctl.k0sproject.io/v1beta1\nkind: Cluster\nspec:\n  k0s:\n    config:\n      spec:\n        network:\n          kubeProxy:\n            disabled: true\n            mode: ipvs\n"},
			want:  []string{"k0s mode=ipvs/installer@k0sctl.yaml:10:19 disabled=true@k0sctl.yaml:9:13"},
		},
		{
			name:  "kubeone: the section present selects the mode",
			files: map[string]string{"kubeone.yaml": "apiVersion: kubeone.k8c.io/v1beta2\nkind: KubeOneCluster\nclusterNetwork:\n  kubeProxy:\n    iptables: {}\n---\napiVersion: kubeone.k8c.io/v1beta2\nkind: KubeOneCluster\nclusterNetwork:\n  kubeProxy:\n    ipvs:\n"},
			want:  []string{"kubeone mode=iptables/installer@kubeone.yaml:5:5", "kubeone mode=nftables/installer default"},
		},
		{
			name:  "aks-engine addon disabled",
			files: map[string]string{"api.json": "{\"apiVersion\": \"vlabs\", \"properties\": {\"orchestratorProfile\": {\"kubernetesConfig\": {\"kubeProxyMode\": \"ipvs\", \"addons\": [{\"name\": \"kube-proxy\", \"enabled\": false}]}}}}\n"},
			want:  []string{"aks-engine mode=ipvs/installer@api.json:1:102 disabled=false@api.json:1:144"},
		},
		{
			name:  "kubeasz inventory",
			files: map[string]string{"clusters/k8s-01/hosts": "[kube_master]\n10.0.0.1\n\n[all:vars]\n#PROXY_MODE=\"iptables\"\nPROXY_MODE=\"ipvs\"\n"},
			want:  []string{"kubeasz mode=ipvs/installer@clusters/k8s-01/hosts:6:12"},
		},
		{
			name:  "ack terraform",
			files: map[string]string{"main.tf": "resource \"alicloud_cs_managed_kubernetes\" \"a\" {\n  proxy_mode = \"iptables\"\n}\nresource \"alicloud_cs_managed_kubernetes\" \"b\" {\n}\n"},
			want:  []string{"ack mode=iptables/installer@main.tf:2:16", "ack mode=ipvs/installer default"},
		},
		{
			name:  "sealos Clusterfile: one instance, not a kubeadm one",
			files: map[string]string{"Clusterfile": "apiVersion: apps.sealos.io/v1beta1\nkind: Cluster\nspec:\n  image: [labring/kubernetes:v1.29.9]\n---\napiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\n"},
			want:  []string{"sealos mode=ipvs/installer default"},
		},
		{
			name:  "cluster-api topology variable",
			files: map[string]string{"cluster.yaml": "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nspec:\n  topology:\n    variables:\n    - name: kubeProxyMode\n      value: ipvs\n---\napiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nspec:\n  topology:\n    variables:\n    - name: other\n      value: 3\n"},
			want:  []string{"cluster-api mode=ipvs/installer@cluster.yaml:7:14"},
		},
		{
			name:  "scripted switch",
			files: map[string]string{"switch.sh": "#!/bin/sh\nkubectl get cm kube-proxy -n kube-system -o yaml | sed 's/mode: \"\"/mode: \"ipvs\"/' | kubectl apply -f -\n"},
			want:  []string{"script mode=ipvs/installer@switch.sh:2:74"},
		},
		{
			name:  "kubespray cilium replacement",
			files: map[string]string{"group_vars/k8s_cluster/k8s-net-cilium.yml": "cilium_kube_proxy_replacement: true\n"},
			want:  []string{"kubespray mode=ipvs/installer default disabled=true@group_vars/k8s_cluster/k8s-net-cilium.yml:1:1"},
		},
		{
			name:  "k3s config and disable",
			files: map[string]string{"k3s/config.yaml": "disable-kube-proxy: true\nkube-proxy-arg:\n- proxy-mode=ipvs\n"},
			want:  []string{"k3s mode=ipvs/flag@k3s/config.yaml:3:3 disabled=true@k3s/config.yaml:1:1 flag=proxy-mode=ipvs@k3s/config.yaml:3:14"},
		},
		{
			name:  "k3s install line continued",
			files: map[string]string{"install.sh": "#!/bin/sh\ncurl -sfL https://get.k3s.io | sh -s - server \\\n  --kube-proxy-arg=proxy-mode=ipvs\n# k3s server --disable-kube-proxy\n"},
			want:  []string{"k3s mode=ipvs/flag@install.sh:3:20 flag=proxy-mode=ipvs@install.sh:3:31"},
		},
		{
			name:  "rke2 install env",
			files: map[string]string{"bootstrap.sh": "curl -sfL https://get.rke2.io | INSTALL_RKE2_EXEC=\"server --disable-kube-proxy\" sh -\n"},
			want:  []string{"rke2 mode=iptables/installer default disabled=--disable-kube-proxy@bootstrap.sh:1:59"},
		},
		{
			name:   "talos before 1.8 defaults to iptables",
			target: &v139,
			files:  map[string]string{"cp.yaml": "version: v1alpha1\nmachine:\n  install:\n    image: ghcr.io/siderolabs/installer:v1.7.6\ncluster:\n  proxy:\n    disabled: true\n"},
			want:   []string{"talos mode=iptables/installer default disabled=true@cp.yaml:7:5"},
		},
		{
			name:  "talos default nftables",
			files: map[string]string{"patch.yaml": "cluster:\n  proxy:\n    extraArgs:\n      ipvs-scheduler: lc\n"},
			want:  []string{"talos mode=nftables/installer default flag=ipvs-scheduler=lc@patch.yaml:4:23"},
		},
		{
			name:  "gardener normalised",
			files: map[string]string{"shoot.yaml": "apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nspec:\n  kubernetes:\n    version: 1.38.0\n    kubeProxy:\n      mode: IPVS\n      enabled: false\n"},
			want:  []string{"gardener mode=ipvs/installer@shoot.yaml:7:13 disabled=false@shoot.yaml:8:7"},
		},
		{
			name:  "eksctl JSON string mapped into the string",
			files: map[string]string{"eks.yaml": "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: a\naddons:\n- name: kube-proxy\n  configurationValues: \"{\\\"mode\\\": \\\"ipvs\\\", \\\"ipvs\\\": {\\\"scheduler\\\": \\\"rr\\\"}}\"\n"},
			want:  []string{"eks mode=ipvs/installer@eks.yaml:7:38 ipvs=scheduler@eks.yaml:7:57"},
		},
		{
			name:  "terraform jsonencode, heredoc, variable",
			files: map[string]string{"main.tf": "resource \"aws_eks_addon\" \"kp\" {\n  addon_name = \"kube-proxy\"\n  configuration_values = jsonencode({\n    mode = \"ipvs\"\n  })\n}\nresource \"aws_eks_addon\" \"h\" {\n  addon_name = \"kube-proxy\"\n  configuration_values = <<EOT\n{\"mode\": \"nftables\"}\nEOT\n}\nresource \"aws_eks_addon\" \"v\" {\n  addon_name = \"kube-proxy\"\n  configuration_values = jsonencode({ mode = var.m })\n}\n"},
			want:  []string{"eks mode=ipvs/installer@main.tf:4:12", "eks mode=nftables/installer@main.tf:10:10", "eks mode=/unknown@main.tf:15:46"},
		},
		{
			name:  "terraform azapi aks",
			files: map[string]string{"aks.tf": "resource \"azapi_resource\" \"aks\" {\n  body = {\n    properties = {\n      networkProfile = {\n        kubeProxyConfig = {\n          enabled = false\n          mode    = \"IPVS\"\n        }\n      }\n    }\n  }\n}\n"},
			want:  []string{"aks mode=ipvs/installer@aks.tf:7:21 disabled=false@aks.tf:6:11"},
		},
		{
			name:  "bicep",
			files: map[string]string{"aks.bicep": "param proxyMode string = 'IPTABLES'\nresource aks 'Microsoft.ContainerService/managedClusters@2024-09-02-preview' = {\n  properties: {\n    networkProfile: {\n      kubeProxyConfig: {\n        enabled: true\n        mode: 'IPVS'\n        // mode: 'IPTABLES'\n        ipvsConfig: { scheduler: 'LeastConnection', tcpTimeoutSeconds: 900 }\n      }\n    }\n  }\n}\nresource other 'x' = {\n  properties: { networkProfile: { kubeProxyConfig: { mode: proxyMode } } }\n}\n"},
			want:  []string{"aks mode=ipvs/installer@aks.bicep:7:15 ipvs=scheduler@aks.bicep:9:23 ipvs=tcpTimeoutSeconds@aks.bicep:9:53", "aks mode=/unknown@aks.bicep:15:60"},
		},
		{
			name:  "rke1 extra_args",
			files: map[string]string{"cluster.yml": "nodes:\n- address: 1.2.3.4\nservices:\n  kubeproxy:\n    extra_args:\n      proxy-mode: ipvs\n"},
			want:  []string{"rke1 mode=ipvs/flag@cluster.yml:6:7 flag=proxy-mode=ipvs@cluster.yml:6:19"},
		},
		{
			name:   "kubeadm without a proxy document",
			target: &v140,
			files:  map[string]string{"kubeadm.yaml": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\nskipPhases: [addon/kube-proxy]\n---\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n"},
			want:   []string{"kubeadm mode=nftables/installer default disabled=addon/kube-proxy@kubeadm.yaml:3:14"},
		},
		{
			name:  "kubeadm with a proxy document: one instance",
			files: map[string]string{"kubeadm.yaml": "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"},
			want:  []string{"kubeadm mode=ipvs/config@kubeadm.yaml:6:7"},
		},
		{
			name:  "kubeadm-config ConfigMap: only the disabled state counts",
			files: map[string]string{"cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubeadm-config\n  namespace: kube-system\ndata:\n  ClusterConfiguration: |\n    apiVersion: kubeadm.k8s.io/v1beta4\n    kind: ClusterConfiguration\n    proxy:\n      disabled: true\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kubeadm-config\n  namespace: other\ndata:\n  ClusterConfiguration: |\n    apiVersion: kubeadm.k8s.io/v1beta4\n    kind: ClusterConfiguration\n"},
			want:  []string{"kubeadm mode=nftables/installer default disabled=true@cm.yaml:11:7"},
		},
		{
			name:  "CRD schemas are not installer configs",
			files: map[string]string{"crd.yaml": "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec:\n  versions:\n  - schema:\n      openAPIV3Schema:\n        properties:\n          networkProfile:\n            properties:\n              kubeProxyConfig:\n                properties:\n                  mode: {enum: [IPTABLES, IPVS]}\n"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{}
			for n, c := range tt.files {
				files[n] = []byte(c)
			}
			ws := load.Files(files, tt.target)
			got := describeInstallers(ws)
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("instances:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestInstallerTargets(t *testing.T) {
	for _, c := range []struct{ name, content, want string }{
		{"shoot.yaml", "apiVersion: core.gardener.cloud/v1beta1\nkind: Shoot\nspec:\n  kubernetes:\n    version: 1.38.2\n", "1.38 Gardener spec.kubernetes.version at shoot.yaml:5:14"},
		{"eks.yaml", "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  version: \"1.37\"\naddons:\n- name: kube-proxy\n  version: v1.39.0-eksbuild.2\n", "1.39 EKS kube-proxy add-on version at eks.yaml:7:12"},
		{"cp.yaml", "version: v1alpha1\nmachine:\n  kubelet:\n    image: ghcr.io/siderolabs/kubelet:v1.36.1\ncluster:\n  proxy:\n    image: registry.k8s.io/kube-proxy:v1.35.0\n", "1.36 Talos kubelet image at cp.yaml:4:12"},
		{"kk.yaml", "apiVersion: kubekey.kubesphere.io/v1alpha2\nkind: Cluster\nspec:\n  kubernetes:\n    version: v1.33.1\n", "1.33 KubeKey spec.kubernetes.version at kk.yaml:5:14"},
		{"k0sctl.yaml", "apiVersion: k0sctl.k0sproject.io/v1beta1\nkind: Cluster\nspec:\n  k0s:\n    version: v1.34.1+k0s.0\n", "1.34 k0sctl spec.k0s.version at k0sctl.yaml:5:14"},
		{"kubeone.yaml", "apiVersion: kubeone.k8c.io/v1beta2\nkind: KubeOneCluster\nversions:\n  kubernetes: \"1.32.4\"\n", "1.32 KubeOne versions.kubernetes at kubeone.yaml:4:15"},
		{"Clusterfile", "apiVersion: apps.sealos.io/v1beta1\nkind: Cluster\nspec:\n  image:\n  - labring/helm:v3.8.2\n  - labring/kubernetes:v1.25.0\n", "1.25 sealos Cluster image at Clusterfile:6:5"},
		{"api.json", "{\"properties\": {\"orchestratorProfile\": {\"orchestratorRelease\": \"1.24\"}}}\n", "1.24 aks-engine orchestratorRelease at api.json:1:64"},
		{"capi.yaml", "apiVersion: cluster.x-k8s.io/v1beta1\nkind: Cluster\nspec:\n  topology:\n    version: v1.31.2\n", "1.31 Cluster API spec.topology.version at capi.yaml:5:14"},
	} {
		ws := load.Files(map[string][]byte{c.name: []byte(c.content)}, nil)
		if got := ws.Target.Version.String() + " " + ws.Target.Source; got != c.want {
			t.Errorf("%s: target %q, want %q", c.name, got, c.want)
		}
	}
}

func TestKopsRHEL10Default(t *testing.T) {
	spec := "apiVersion: kops.k8s.io/v1alpha2\nkind: Cluster\nmetadata:\n  name: a\n---\napiVersion: kops.k8s.io/v1alpha2\nkind: InstanceGroup\nspec:\n  image: 309956199498/RHEL-10.0.0_HVM-20250520-x86_64-0-Hourly2-GP3\n"
	ws := load.Files(map[string][]byte{"cluster.yaml": []byte(spec)}, nil)
	if got := describeInstallers(ws); len(got) != 1 || got[0] != "kops mode=nftables/installer default" {
		t.Errorf("kops on RHEL 10: %v", got)
	}
}

func TestInstallerDefaults(t *testing.T) {
	ws := load.Files(map[string][]byte{"kubeadm.yaml": []byte("apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n")}, nil)
	ins := ws.Instances[0].Installer
	for _, c := range []struct {
		minor   int
		want    string
		changes bool
	}{{37, "iptables", true}, {39, "iptables", true}, {40, "nftables", true}, {43, "nftables", true}} {
		v := checker.Version{Major: 1, Minor: c.minor}
		before, at, changes := ins.DefaultChanges(v)
		if at != c.want || before != "iptables" || changes != c.changes || ins.DefaultMode(v) != c.want {
			t.Errorf("kubeadm default at %s = %s (before %s, changes %t), want %s", v, at, before, changes, c.want)
		}
	}
	ws = load.Files(map[string][]byte{"k.yml": []byte("kube_proxy_strict_arp: true\n")}, nil)
	if _, at, changes := ws.Instances[0].Installer.DefaultChanges(checker.Version{Major: 1, Minor: 40}); at != "ipvs" || changes {
		t.Errorf("kubespray default = %s (changes %t), want ipvs, constant", at, changes)
	}
}
