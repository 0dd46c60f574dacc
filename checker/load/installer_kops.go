package load

import (
	"path"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// kops: a Cluster (kops.k8s.io/v1alpha2) with spec.kubeProxy: proxyMode, ipvsScheduler and
// the other ipvs* fields, enabled, featureGates. kops passes flags only (no --config) and
// defaults to iptables (nftables on RHEL 10 images). Completed specs (kops get cluster -o yaml
// > cluster-spec, or the state store's config file) often have no extension: the content
// sniffer (classify.go) reads them as YAML.

func init() {
	docInstallers = append(docInstallers, kopsInstances)
}

// kopsIPVSFields are the ipvs-only fields of spec.kubeProxy.
var kopsIPVSFields = []string{"ipvsScheduler", "ipvsExcludeCidrs", "ipvsMinSyncPeriod", "ipvsSyncPeriod", "ipvsStrictARP", "ipvsTCPTimeout", "ipvsTCPFinTimeout", "ipvsUDPTimeout"}

// kopsRHEL10 reports whether an InstanceGroup next to the cluster spec (same directory) runs a
// RHEL 10 image, on which kops defaults kube-proxy to nftables.
func kopsRHEL10(ws *checker.Workspace, d *checker.Document) bool {
	dir := path.Dir(d.File.Outer().Path)
	for _, o := range ws.Docs {
		if o.Kind != "InstanceGroup" || !strings.HasPrefix(o.APIVersion, "kops.k8s.io/") || path.Dir(o.File.Outer().Path) != dir {
			continue
		}
		img := strings.ToLower(o.Str(checker.Path{"spec", "image"}))
		if strings.Contains(img, "rhel-10") || strings.Contains(img, "rhel10") {
			return true
		}
	}
	return false
}

func kopsInstances(ws *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Kind != "Cluster" || !strings.HasPrefix(d.APIVersion, "kops.k8s.io/") {
		return nil
	}
	kp := checker.Path{"spec", "kubeProxy"}
	ins := &checker.Installer{
		Name: checker.InstallerKops, Doc: d, File: d.File.Outer(), ModeKey: "spec.kubeProxy.proxyMode",
		Modes: lowerModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: "kops passes --proxy-mode=iptables by default (nftables on RHEL 10)",
	}
	if kopsRHEL10(ws, d) {
		ins.Defaults = fixedDefault(checker.ModeNFTables)
		ins.DefaultWhy = "kops defaults to nftables on RHEL 10 images"
	}
	docAnchor(ins, d, kp)
	ins.Mode = modeSetting(ins, d, kp.Append("proxyMode"))
	if s, b, ok := boolSetting(d, kp.Append("enabled")); ok && !b {
		ins.Disabled = s
	}
	for _, name := range kopsIPVSFields {
		if s := yamlSetting(d, kp.Append(name)); s != nil && !s.Placeholder && s.Value != "false" {
			ins.IPVS = append(ins.IPVS, *s)
		}
	}
	ins.Gates = gatesSetting(d, kp.Append("featureGates"))
	label := "kops Cluster in " + d.File.Outer().Path
	if d.Name != "" {
		label = "kops Cluster " + d.Name
	}
	return []*checker.Instance{newInstallerInstance(ins, label)}
}
