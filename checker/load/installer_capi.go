package load

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Cluster API topology variables: a Cluster (cluster.x-k8s.io) built from a ClusterClass sets
// kube-proxy through its variables, which the ClusterClass's patches turn into a
// KubeProxyConfiguration: a kubeProxy object with a mode (clusterConfig: {kubeProxy: {mode:
// ipvs}}), or a variable named kubeProxyMode. "Disabled" (or "none") leaves kube-proxy out. A
// Cluster whose variables say nothing about kube-proxy is not read: what the ClusterClass does
// then is not in the Cluster.

func init() {
	docInstallers = append(docInstallers, capiInstances)
}

var capiModes = map[string]string{
	"iptables": checker.ModeIPTables, "ipvs": checker.ModeIPVS, "nftables": checker.ModeNFTables,
	"Disabled": "", "disabled": "", "none": "",
}

func capiInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil || d.Kind != "Cluster" || !strings.HasPrefix(d.APIVersion, "cluster.x-k8s.io/") {
		return nil
	}
	vars := checker.Path{"spec", "topology", "variables"}
	_, seq := d.Lookup(vars)
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return nil
	}
	var mode checker.Path
	key := ""
	for i, v := range seq.Content {
		name := strNode(v, "name")
		vp := vars.Append(i, "value")
		if strings.EqualFold(name, "kubeProxyMode") {
			mode, key = vp, name
			continue
		}
		if p := findKubeProxyMode(d, vp, 0); p != nil {
			mode, key = p, name+"."+p[len(vp):].String()
		}
	}
	if mode == nil {
		return nil
	}
	ins := &checker.Installer{
		Name: checker.InstallerCAPI, Doc: d, File: d.File.Outer(), ModeKey: "topology variable " + key,
		Modes: capiModes, Defaults: upstreamDefaults,
		DefaultWhy: "kubeadm writes iptables through 1.39 and defaults to nftables from 1.40",
	}
	docAnchor(ins, d, mode)
	s := modeSetting(ins, d, mode)
	if s == nil {
		return nil
	}
	if _, known := capiModes[s.Value]; known && s.Normalized == "" {
		ins.Disabled = s
	} else {
		ins.Mode = s
	}
	label := "cluster-api Cluster in " + d.File.Outer().Path
	if d.Name != "" {
		label = "cluster-api Cluster " + d.Name
	}
	return []*checker.Instance{newInstallerInstance(ins, label)}
}

// findKubeProxyMode returns the path of a kubeProxy.mode scalar at or below p, or nil.
func findKubeProxyMode(d *checker.Document, p checker.Path, depth int) checker.Path {
	_, n := d.Lookup(p)
	if n == nil || n.Kind != yaml.MappingNode || depth > 4 {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if strings.EqualFold(k.Value, "kubeProxy") && v.Kind == yaml.MappingNode {
			if _, m := checker.LookupNode(v, checker.Path{"mode"}); m != nil && m.Kind == yaml.ScalarNode {
				return p.Append(k.Value, "mode")
			}
		}
		if r := findKubeProxyMode(d, p.Append(k.Value), depth+1); r != nil {
			return r
		}
	}
	return nil
}
