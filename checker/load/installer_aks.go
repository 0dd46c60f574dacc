package load

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// AKS: networkProfile.kubeProxyConfig of a managed cluster (ARM templates and exported JSON,
// Bicep JSON output, azapi bodies) with mode IPTABLES (the default), IPVS or NFTABLES,
// enabled, and ipvsConfig. Terraform bodies are read in installer_terraform.go.

func init() {
	docInstallers = append(docInstallers, aksInstances)
}

var aksModes = map[string]string{"IPTABLES": checker.ModeIPTables, "IPVS": checker.ModeIPVS, "NFTABLES": checker.ModeNFTables}

func newAKSInstaller(file *checker.File) *checker.Installer {
	return &checker.Installer{
		Name: checker.InstallerAKS, File: file, ModeKey: "networkProfile.kubeProxyConfig.mode",
		Modes: aksModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: "AKS defaults to IPTABLES",
	}
}

func aksInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil || d.Node == nil {
		return nil
	}
	if !d.Contains("kubeProxyConfig") {
		return nil
	}
	var out []*checker.Instance
	// p is the walk's stack; an instance gets a copy.
	var walk func(n *yaml.Node, p checker.Path, depth int)
	walk = func(n *yaml.Node, p checker.Path, depth int) {
		if n == nil || depth > 64 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				kp := append(p, k.Value)
				if k.Value == "kubeProxyConfig" && v.Kind == yaml.MappingNode && len(p) > 0 && p[len(p)-1] == "networkProfile" {
					out = append(out, aksInstance(d, kp.Clone()))
					continue
				}
				walk(v, kp, depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, append(p, strconv.Itoa(i)), depth+1)
			}
		}
	}
	walk(d.Node, make(checker.Path, 0, 16), 0)
	return out
}

// armExpression reports whether an ARM template value is an expression ("[parameters('x')]").
func armExpression(s string) bool {
	return strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && !strings.HasPrefix(s, "[[")
}

func aksInstance(d *checker.Document, p checker.Path) *checker.Instance {
	ins := newAKSInstaller(d.File.Outer())
	ins.Doc = d
	docAnchor(ins, d, p)
	if s := modeSetting(ins, d, p.Append("mode")); s != nil {
		s.Placeholder = s.Placeholder || armExpression(s.Value)
		ins.Mode = s
	}
	if s, b, ok := boolSetting(d, p.Append("enabled")); ok && !b {
		ins.Disabled = s
	}
	_, ipvs := d.Lookup(p.Append("ipvsConfig"))
	if ipvs != nil && ipvs.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(ipvs.Content); i += 2 {
			if s := yamlSetting(d, p.Append("ipvsConfig", ipvs.Content[i].Value)); s != nil && !s.Placeholder && !armExpression(s.Value) {
				ins.IPVS = append(ins.IPVS, *s)
			}
		}
	}
	return newInstallerInstance(ins, "AKS kubeProxyConfig in "+d.File.Path)
}
