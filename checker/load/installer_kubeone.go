package load

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// KubeOne: a KubeOneCluster (kubeone.k8c.io) whose clusterNetwork.kubeProxy selects the mode
// by which section is present: ipvs: {...} (with scheduler, strictARP, ...), iptables: {} or
// nftables: {}; skipInstallation: true leaves kube-proxy out. Without a section KubeOne leaves
// the mode empty in the KubeProxyConfiguration it hands to kubeadm, so kubeadm's default
// applies: iptables through 1.39, nftables from 1.40.

func init() {
	docInstallers = append(docInstallers, kubeoneInstances)
}

// kubeoneSections are the mode sections in the order KubeOne checks them.
var kubeoneSections = []string{"ipvs", "iptables", "nftables"}

func kubeoneInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil || d.Kind != "KubeOneCluster" || !strings.HasPrefix(d.APIVersion, "kubeone.") {
		return nil
	}
	kp := checker.Path{"clusterNetwork", "kubeProxy"}
	ins := &checker.Installer{
		Name: checker.InstallerKubeOne, Doc: d, File: d.File.Outer(), ModeKey: "clusterNetwork.kubeProxy",
		Modes: lowerModes, Defaults: upstreamDefaults,
		DefaultWhy: "KubeOne leaves the mode to kubeadm, which writes iptables through 1.39 and defaults to nftables from 1.40",
	}
	docAnchor(ins, d, kp)
	for _, sec := range kubeoneSections {
		k, v := d.Lookup(kp.Append(sec))
		if k == nil || v == nil || v.ShortTag() == "!!null" {
			continue
		}
		// The section's key is the setting; the fix swaps the whole section for another
		// mode's empty one ("nftables: {}"): the old section's settings do not apply there.
		ins.Mode = &checker.InstallerSetting{Key: sec, Value: sec, Normalized: sec, Doc: d, Path: kp.Append(sec),
			Pos: d.NodePos(k), End: d.NodeEnd(k)}
		from, to := d.NodePos(k), d.NodeEnd(v)
		ins.SetMode = func(spelled string) (checker.TextEdit, bool) {
			if !from.IsValid() || to.Offset <= from.Offset || from.Filename != to.Filename {
				return checker.TextEdit{}, false
			}
			return checker.TextEdit{Pos: from, End: to, NewText: spelled + ": {}"}, true
		}
		break
	}
	if s, b, ok := boolSetting(d, kp.Append("skipInstallation")); ok && b {
		ins.Disabled = s
	}
	ins.IPVS = ipvsSection(d, kp.Append("ipvs"))
	if s := yamlSetting(d, kp.Append("ipvs", "strictArp")); s != nil && !s.Placeholder && s.Value == "true" {
		ins.IPVS = append(ins.IPVS, *s)
	}
	label := "kubeone KubeOneCluster in " + d.File.Outer().Path
	if n := d.Str(checker.Path{"name"}); n != "" && !text.HasPlaceholder(n) {
		label = "kubeone KubeOneCluster " + n
	}
	return []*checker.Instance{newInstallerInstance(ins, label)}
}
