package load

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Configuration-management variables that hold a whole document as a mapping (issue 21 item
// 4): an Ansible group_vars, host_vars, role defaults or role vars file whose variable is a
// KubeProxyConfiguration or a kubeadm configuration written as YAML, which a template renders
// with to_yaml. The mapping is an embedded document of the variables file at the mapping's own
// position (same file, same nodes: positions are exact), so the rules judge it like the
// document it becomes; its cluster is the file's (an inventory's group_vars belong to the
// inventory). Only mappings whose own apiVersion and kind name the document are read: a
// fragment without them (kube_proxy: {mode: ipvs}) is another installer's variable.

func init() {
	docDecoders = append(docDecoders, decodeVarDocuments)
}

// isAnsibleVarsFile reports whether a file is an Ansible variables file by its directory.
func isAnsibleVarsFile(p string) bool {
	p = "/" + p
	for _, dir := range []string{"/group_vars/", "/host_vars/", "/defaults/", "/vars/"} {
		if strings.Contains(p, dir) {
			return true
		}
	}
	return false
}

// varDocument reports whether mapping m names a KubeProxyConfiguration or a kubeadm
// configuration by its own apiVersion and kind.
func varDocument(m *yaml.Node) bool {
	var api, kind string
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			continue
		}
		switch k.Value {
		case "apiVersion":
			api = v.Value
		case "kind":
			kind = v.Value
		}
	}
	switch kind {
	case "KubeProxyConfiguration":
		return strings.HasPrefix(api, "kubeproxy.config.k8s.io/")
	case "ClusterConfiguration", "InitConfiguration", "JoinConfiguration":
		return strings.HasPrefix(api, "kubeadm.k8s.io/")
	}
	return false
}

// decodeVarDocuments decodes the documents that d's variables hold as mappings.
func decodeVarDocuments(d *checker.Document) []checker.LoadProblem {
	if d.Parent != nil || d.Kind != "" || d.Node == nil || d.Node.Kind != yaml.MappingNode ||
		!isAnsibleVarsFile(d.File.Outer().Path) ||
		!d.Contains("KubeProxyConfiguration") && !d.Contains("kubeadm.k8s.io/") {
		return nil
	}
	var probs []checker.LoadProblem
	checker.WalkNodes(d.Node, nil, 100, func(p checker.Path, n *yaml.Node) bool {
		if n.Kind != yaml.MappingNode || len(p) == 0 || !varDocument(n) {
			return true
		}
		e := &checker.Document{File: d.File, Index: d.Index, Node: n, Parent: d, ParentPath: p.Clone()}
		probs = append(probs, decodeDoc(e)...)
		d.Embedded = append(d.Embedded, e)
		return false
	})
	return probs
}
