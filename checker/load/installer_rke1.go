package load

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// RKE1: cluster.yml with services.kubeproxy.extra_args (proxy-mode: ipvs, ...). RKE1 passes no
// --proxy-mode of its own; its releases end with Kubernetes 1.32, where kube-proxy's default
// is iptables, so the default never becomes nftables.

func init() {
	docInstallers = append(docInstallers, rke1Instances)
}

func rke1Instances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil || d.Kind != "" || !d.Has(checker.Path{"services", "kubeproxy"}) {
		return nil
	}
	if !d.Has(checker.Path{"nodes"}) && !d.Has(checker.Path{"kubernetes_version"}) && !d.Has(checker.Path{"network"}) {
		return nil
	}
	kp := checker.Path{"services", "kubeproxy"}
	ins := &checker.Installer{
		Name: checker.InstallerRKE1, Doc: d, File: d.File.Outer(), ModeKey: "services.kubeproxy.extra_args.proxy-mode",
		Modes: lowerModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: "RKE1 passes no --proxy-mode and ships Kubernetes up to 1.32, where the default is iptables",
	}
	docAnchor(ins, d, kp)
	in := newInstallerInstance(ins, "RKE1 cluster in "+d.File.Outer().Path)
	in.Flags = mapFlags(d, kp.Append("extra_args"))
	return []*checker.Instance{in}
}
