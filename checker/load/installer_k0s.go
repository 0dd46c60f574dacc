package load

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// k0s: a ClusterConfig (k0s.k0sproject.io/v1beta1) with spec.network.kubeProxy: mode
// (iptables, ipvs, nftables; k0s writes iptables when unset), disabled, ipvs and
// nodePortAddresses. k0sctl's Cluster (k0sctl.k0sproject.io) embeds the same
// ClusterConfig under spec.k0s.config.

func init() {
	docInstallers = append(docInstallers, k0sInstances)
}

func k0sInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil && (d.Parent.Kind == "ConfigMap" || d.File == d.Parent.File) {
		// A configuration in another document's string (cloud-init writing
		// /etc/k0s/k0s.yaml) is read like the file; a ConfigMap's copy is a record.
		return nil
	}
	var kp checker.Path
	switch {
	case d.Kind == "ClusterConfig" && strings.HasPrefix(d.APIVersion, "k0s.k0sproject.io/"):
		kp = checker.Path{"spec", "network", "kubeProxy"}
	case d.Kind == "Cluster" && strings.HasPrefix(d.APIVersion, "k0sctl.k0sproject.io/"):
		kp = checker.Path{"spec", "k0s", "config", "spec", "network", "kubeProxy"}
	default:
		return nil
	}
	ins := &checker.Installer{
		Name: checker.InstallerK0s, Doc: d, File: d.File.Outer(), ModeKey: kp.Append("mode").String(),
		Modes: lowerModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: "k0s writes mode iptables when spec.network.kubeProxy.mode is unset",
	}
	docAnchor(ins, d, kp)
	ins.Mode = modeSetting(ins, d, kp.Append("mode"))
	if s, b, ok := boolSetting(d, kp.Append("disabled")); ok && b {
		ins.Disabled = s
	}
	ins.IPVS = ipvsSection(d, kp.Append("ipvs"))
	if s := yamlSetting(d, kp.Append("nodePortAddresses")); s != nil && len(s.Values) > 0 {
		ins.NodePortAddresses = s
	}
	label := "k0s " + d.Kind + " in " + d.File.Outer().Path
	if d.Name != "" {
		label = "k0s " + d.Kind + " " + d.Name
	}
	// extraArgs and rawArgs are not read: k0s runs kube-proxy with --config, which makes
	// kube-proxy ignore a --proxy-mode there.
	return []*checker.Instance{newInstallerInstance(ins, label)}
}
