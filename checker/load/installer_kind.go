package load

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// kind: a Cluster (kind.x-k8s.io/v1alpha4) with networking.kubeProxyMode iptables (kind's
// default, which kind pins itself), ipvs, nftables or none (no kube-proxy).
//
// kind generates a KubeProxyConfiguration from kubeProxyMode, then applies the
// kubeadmConfigPatches (strategic merge patches, in order) and after them the
// kubeadmConfigPatchesJSON6902 operations: a patch that sets mode overrides kubeProxyMode. The
// cluster's patches count, and those of the first control-plane node, where kubeadm init
// writes the kube-proxy ConfigMap. Patch strings holding a KubeProxyConfiguration are decoded
// as documents embedded in the Cluster, with positions in the outer file.

func init() {
	docInstallers = append(docInstallers, kindInstances)
	docDecoders = append(docDecoders, decodeKindPatches)
}

var kindModes = map[string]string{"iptables": checker.ModeIPTables, "ipvs": checker.ModeIPVS, "nftables": checker.ModeNFTables, "none": ""}

func isKindCluster(d *checker.Document) bool {
	return d.Kind == "Cluster" && strings.HasPrefix(d.APIVersion, "kind.x-k8s.io/")
}

// kindPatchLists returns the paths of the patch lists named key that shape the cluster's
// kube-proxy: the cluster's own, then the first control-plane node's.
func kindPatchLists(d *checker.Document, key string) []checker.Path {
	out := []checker.Path{{key}}
	_, nodes := d.Lookup(checker.Path{"nodes"})
	if nodes == nil || nodes.Kind != yaml.SequenceNode {
		return out
	}
	for i, n := range nodes.Content {
		if r := strNode(n, "role"); r == "control-plane" || r == "" {
			return append(out, checker.Path{"nodes"}.Append(i, key))
		}
	}
	return out
}

// decodeKindPatches decodes the kubeadmConfigPatches strings of a kind Cluster that hold a
// KubeProxyConfiguration. kind matches a patch to its target by apiVersion, kind and
// metadata.name, so metadata is not reported as an unknown field of the configuration.
func decodeKindPatches(d *checker.Document) []checker.LoadProblem {
	if !isKindCluster(d) || d.Parent != nil || !d.Contains("KubeProxyConfiguration") {
		return nil
	}
	var probs []checker.LoadProblem
	for _, lp := range kindPatchLists(d, "kubeadmConfigPatches") {
		_, seq := d.Lookup(lp)
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for i, n := range seq.Content {
			if n.Kind != yaml.ScalarNode || !looksLikeKPC([]byte(n.Value)) {
				continue
			}
			inner := &checker.File{Path: d.File.Path, Content: []byte(n.Value), Parent: d.File, ParentMap: checker.ScalarOffsetMap(d.File, n)}
			inner.Lines = text.NewLineIndex(inner.Content)
			probs = append(probs, parseFile(inner)...)
			for _, e := range inner.Docs {
				e.Parent = d
				e.ParentPath = lp.Append(i)
				probs = append(probs, decodeDoc(e)...)
				issues := e.Issues[:0]
				for _, is := range e.Issues {
					if len(is.Path) == 0 || is.Path[0] != "metadata" {
						issues = append(issues, is)
					}
				}
				e.Issues = issues
				d.Embedded = append(d.Embedded, e)
			}
		}
	}
	return probs
}

func kindInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if !isKindCluster(d) {
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
	if r, ok := d.File.Outer().Render.(heredocRender); ok {
		// One of several kind heredocs of a file: named by where it is written.
		label = "kind Cluster in " + r.body.Outer().Path + " line " + strconv.Itoa(r.body.PositionAt(0).Line)
		if r.body.Reason != "" {
			label += ", " + r.body.Reason // a matrix value's copy
		}
	}
	if d.Name != "" {
		label = "kind Cluster " + d.Name
	}
	in := newInstallerInstance(ins, label)
	// The last patch that sets mode decides it; the others only add fields.
	var cfg *checker.Document
	for _, e := range d.Embedded {
		if e.Kind != "KubeProxyConfiguration" || len(e.ParentPath) == 0 {
			continue
		}
		ins.Patches = append(ins.Patches, e)
		if s := yamlSetting(e, checker.Path{"mode"}); s != nil && (s.Value != "" || s.Placeholder) && e.Object != nil {
			cfg = e
		}
	}
	jsonMode, jsonIPVS := kindJSON6902(d)
	switch {
	case jsonMode != nil:
		jsonMode.Normalized = kindModes[jsonMode.Value]
		ins.Mode, ins.ModeKey = jsonMode, "kubeadmConfigPatchesJSON6902 /mode"
		ins.IPVS = append(ins.IPVS, jsonIPVS...)
		for _, e := range ins.Patches {
			ins.IPVS = append(ins.IPVS, ipvsSection(e, checker.Path{"ipvs"})...)
		}
	case cfg != nil:
		// The patch is the configuration in effect for what it sets: checked as one.
		in.Config = cfg
	default:
		ins.IPVS = append(ins.IPVS, jsonIPVS...)
		for _, e := range ins.Patches {
			ins.IPVS = append(ins.IPVS, ipvsSection(e, checker.Path{"ipvs"})...)
			ins.Gates = append(ins.Gates, gatesSetting(e, checker.Path{"featureGates"})...)
			if s := yamlSetting(e, checker.Path{"nodePortAddresses"}); s != nil && len(s.Values) > 0 {
				ins.NodePortAddresses = s
			}
		}
	}
	return []*checker.Instance{in}
}

// kindJSON6902 reads the kubeadmConfigPatchesJSON6902 operations on the KubeProxyConfiguration:
// the value that an add or replace of /mode sets, and the ipvs fields that operations set.
func kindJSON6902(d *checker.Document) (*checker.InstallerSetting, []checker.InstallerSetting) {
	var mode *checker.InstallerSetting
	var ipvs []checker.InstallerSetting
	for _, lp := range kindPatchLists(d, "kubeadmConfigPatchesJSON6902") {
		_, seq := d.Lookup(lp)
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for i, item := range seq.Content {
			if strNode(item, "kind") != "KubeProxyConfiguration" {
				continue
			}
			pp := lp.Append(i, "patch")
			_, n := d.Lookup(pp)
			if n == nil || n.Kind != yaml.ScalarNode || text.HasPlaceholder(n.Value) {
				continue
			}
			e := embeddedDoc(d, n, pp)
			if e == nil || e.Node.Kind != yaml.SequenceNode {
				continue
			}
			for j, op := range e.Node.Content {
				o, target := strNode(op, "op"), strNode(op, "path")
				if o != "add" && o != "replace" {
					continue
				}
				vp := checker.Path{}.Append(j, "value")
				switch {
				case target == "/mode":
					if s := yamlSetting(e, vp); s != nil && (s.Value != "" || s.Placeholder) {
						s.Key = "/mode"
						mode = s
					}
				case target == "/ipvs":
					ipvs = append(ipvs, ipvsSection(e, vp)...)
				case strings.HasPrefix(target, "/ipvs/"):
					if s := yamlSetting(e, vp); s != nil && !s.Placeholder && s.Value != "false" {
						s.Key = strings.TrimPrefix(target, "/ipvs/")
						ipvs = append(ipvs, *s)
					}
				}
			}
		}
	}
	return mode, ipvs
}
