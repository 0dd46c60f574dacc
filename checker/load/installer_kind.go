package load

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// kind: a Cluster (kind.x-k8s.io/v1alpha4) with networking.kubeProxyMode iptables (kind's
// default, which kind pins itself), ipvs, nftables or none (no kube-proxy).

func init() {
	docInstallers = append(docInstallers, kindInstances)
}

var kindModes = map[string]string{"iptables": checker.ModeIPTables, "ipvs": checker.ModeIPVS, "nftables": checker.ModeNFTables, "none": ""}

func kindInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Kind != "Cluster" || !strings.HasPrefix(d.APIVersion, "kind.x-k8s.io/") {
		return nil
	}
	ins := &checker.Installer{
		Name: checker.InstallerKind, Doc: d, File: d.File.Outer(), ModeKey: "networking.kubeProxyMode",
		Modes: kindModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: "kind's default kubeProxyMode is iptables",
	}
	p := checker.Path{"networking", "kubeProxyMode"}
	docAnchor(ins, d, p[:1])
	if s := modeSetting(ins, d, p); s != nil {
		if s.Value == "none" {
			ins.Disabled = s
		} else {
			ins.Mode = s
		}
	}
	label := "kind Cluster in " + d.File.Outer().Path
	if d.Name != "" {
		label = "kind Cluster " + d.Name
	}
	return []*checker.Instance{newInstallerInstance(ins, label)}
}
