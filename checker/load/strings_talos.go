package load

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Talos machine-config fragments in strings (issue 21 item 1): a string value of any document
// (talhelper's talconfig.yaml patches, a Cluster API TalosControlPlane's strategicPatches, an
// Omni or GitOps file) that is itself a Talos patch touching kube-proxy, in either form:
//
//	cluster:                        - op: add
//	  proxy:                          path: /cluster/proxy
//	    mode: ipvs                    value: {mode: ipvs}
//
// and the JSON patches of Cluster API's Talos bootstrap objects written as mappings
// (TalosConfig, TalosConfigTemplate and TalosControlPlane configPatches). A string is a
// fragment only when it parses cleanly and its keys say Talos and nothing else: a strategic
// patch's top-level keys are the machine config's own, its cluster.proxy holds only Talos's
// proxy keys with a mode Talos accepts; a JSON patch's paths start with /cluster. The fragment
// is an embedded document of the string's document; talosFragmentInstances reads a document's
// fragments as one kube-proxy.

func init() {
	docDecoders = append(docDecoders, decodeTalosStrings)
	docInstallers = append(docInstallers, talosFragmentInstances)
}

// talosRootKeys are the top-level keys of a Talos v1alpha1 machine config.
var talosRootKeys = map[string]bool{"version": true, "debug": true, "persist": true, "machine": true, "cluster": true}

// talosProxyKeys are the keys of a Talos cluster.proxy section.
var talosProxyKeys = map[string]bool{"disabled": true, "image": true, "extraArgs": true, "mode": true}

// talosProxySection reports whether n is a Talos cluster.proxy mapping that sets something
// kube-proxy-lint reads: only Talos's keys, a mode Talos accepts (or a placeholder), a
// boolean disabled, a mapping of extraArgs.
func talosProxySection(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		return false
	}
	sets := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		if !talosProxyKeys[k] {
			return false
		}
		switch k {
		case "mode":
			if v.Kind != yaml.ScalarNode || !text.HasPlaceholder(v.Value) && v.Value != "" && lowerModes[v.Value] == "" {
				return false
			}
			sets = true
		case "disabled":
			if _, ok := checker.YAML11Bool(v); !ok && (v.Kind != yaml.ScalarNode || !text.HasPlaceholder(v.Value)) {
				return false
			}
			sets = true
		case "extraArgs":
			if v.Kind != yaml.MappingNode {
				return false
			}
			sets = true
		}
	}
	return sets
}

// isTalosStrategicFragment reports whether n is a Talos strategic-merge patch (or machine
// config) that sets cluster.proxy.
func isTalosStrategicFragment(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.MappingNode {
		return false
	}
	var proxy *yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		if !talosRootKeys[n.Content[i].Value] {
			return false
		}
		if n.Content[i].Value == "cluster" {
			_, proxy = checker.LookupNode(n.Content[i+1], checker.Path{"proxy"})
		}
	}
	return talosProxySection(proxy)
}

// isTalosKubeProxyConfig reports whether n is Talos's own KubeProxyConfig document.
func isTalosKubeProxyConfig(n *yaml.Node) bool {
	return n != nil && n.Kind == yaml.MappingNode && strNode(n, "kind") == "KubeProxyConfig" && strNode(n, "apiVersion") == "v1alpha1"
}

// talosJSONPatch reports whether n is a list of JSON patch operations on a Talos machine
// config of which at least one writes kube-proxy's section.
func talosJSONPatch(n *yaml.Node) bool {
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return false
	}
	proxy := false
	for _, op := range n.Content {
		if op.Kind != yaml.MappingNode || strNode(op, "op") == "" {
			return false
		}
		p := strNode(op, "path")
		if !strings.HasPrefix(p, "/") {
			return false
		}
		if talosPatchTouchesProxy(op) {
			proxy = true
		}
	}
	return proxy
}

// talosPatchTouchesProxy reports whether one JSON patch operation adds or replaces kube-proxy
// settings of a Talos machine config.
func talosPatchTouchesProxy(op *yaml.Node) bool {
	switch strNode(op, "op") {
	case "add", "replace":
	default:
		return false
	}
	_, v := checker.LookupNode(op, checker.Path{"value"})
	switch p := strNode(op, "path"); {
	case p == "/cluster":
		_, px := checker.LookupNode(v, checker.Path{"proxy"})
		return talosProxySection(px)
	case p == "/cluster/proxy":
		return talosProxySection(v)
	case strings.HasPrefix(p, "/cluster/proxy/"):
		k, _, _ := strings.Cut(strings.TrimPrefix(p, "/cluster/proxy/"), "/")
		if !talosProxyKeys[k] || k == "image" || v == nil {
			return false
		}
		if k == "extraArgs" && !strings.Contains(strings.TrimPrefix(p, "/cluster/proxy/"), "/") {
			return v.Kind == yaml.MappingNode
		}
		if k == "mode" {
			return v.Kind == yaml.ScalarNode && (lowerModes[v.Value] != "" || text.HasPlaceholder(v.Value))
		}
		return v.Kind == yaml.ScalarNode
	}
	return false
}

// isTalosFragment reports whether an embedded document is a Talos fragment of this file.
func isTalosFragment(d *checker.Document) bool {
	return d.Parent != nil && d.File != d.Parent.File &&
		(isTalosStrategicFragment(d.Node) || isTalosKubeProxyConfig(d.Node) || talosJSONPatch(d.Node))
}

// decodeTalosStrings decodes the Talos fragments held by d's strings.
func decodeTalosStrings(d *checker.Document) []checker.LoadProblem {
	if d.Node == nil || d.Kind == "ConfigMap" || d.File.Parent != nil && !d.File.Masked || !d.Contains("proxy") {
		return nil
	}
	done := map[string]bool{}
	for _, e := range d.Embedded {
		done[e.ParentPath.String()] = true
	}
	var probs []checker.LoadProblem
	checker.WalkNodes(d.Node, nil, 100, func(p checker.Path, n *yaml.Node) bool {
		if n.Kind == yaml.ScalarNode && len(p) > 0 && maybeTalosFragment(n.Value) && !done[p.String()] {
			probs = append(probs, decodeTalosString(d, n, p.Clone())...)
		}
		return true
	})
	return probs
}

// maybeTalosFragment is the cheap test: a multi-line string or a JSON one that names the proxy
// and where it sits.
func maybeTalosFragment(v string) bool {
	if !strings.Contains(v, "proxy") || !strings.Contains(v, "cluster") {
		return false
	}
	t := strings.TrimSpace(v)
	return strings.IndexByte(v, '\n') >= 0 || strings.HasPrefix(t, "[") || strings.HasPrefix(t, "{")
}

// decodeTalosString parses string n at path p of d and keeps its Talos fragments.
func decodeTalosString(d *checker.Document, n *yaml.Node, p checker.Path) []checker.LoadProblem {
	m := checker.ScalarOffsetMap(d.File, n)
	if !exactScalarMap(d.File, n, m) {
		return nil
	}
	inner := &checker.File{Path: d.File.Path, Content: []byte(n.Value), Parent: d.File, ParentMap: m}
	inner.Lines = text.NewLineIndex(inner.Content)
	if ps := parseFile(inner); len(ps) > 0 {
		return nil // not a clean document: prose, a script, a template this string is not
	}
	var probs []checker.LoadProblem
	for _, e := range inner.Docs {
		if !isTalosStrategicFragment(e.Node) && !isTalosKubeProxyConfig(e.Node) && !talosJSONPatch(e.Node) {
			continue
		}
		e.Parent = d
		e.ParentPath = append(checker.Path(nil), p...)
		probs = append(probs, decodeDoc(e)...)
		d.Embedded = append(d.Embedded, e)
	}
	return probs
}

// capiTalosKinds are Cluster API's Talos bootstrap and control-plane kinds, whose configPatches
// are JSON patches written as mappings.
var capiTalosKinds = map[string]bool{"TalosConfig": true, "TalosConfigTemplate": true, "TalosControlPlane": true, "TalosControlPlaneTemplate": true}

// talosFragmentInstances reads the Talos fragments of one document as one kube-proxy: its
// strings' fragments (talhelper merges the global and the node type's patches into one machine
// config, Cluster API its strategicPatches and configPatches) and, for Cluster API's Talos
// objects, its configPatches; a later fragment's setting wins over an earlier one's.
func talosFragmentInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil {
		return nil
	}
	t := &talosFragments{top: d}
	if isTerraformFragment(d) {
		// The Talos fragments of a Terraform file's strings (strings_hcl.go) are documents of
		// the file itself: one kube-proxy for all of them, built at the first (a resource's
		// config_patches list several, and a flag in one is used by the mode of another).
		o := d.File.Outer()
		first := true
		for _, e := range o.Docs {
			if !isTerraformFragment(e) {
				continue
			}
			if first && e != d {
				return nil
			}
			first = false
			t.add(e)
		}
	}
	for _, e := range d.Embedded {
		if isTalosFragment(e) {
			t.add(e)
		}
	}
	if capiTalosKinds[d.Kind] && strings.Contains(d.APIVersion, "cluster.x-k8s.io/") && d.Contains("/cluster") {
		findConfigPatches(d.Node, nil, 0, func(p checker.Path) { t.patch(d, p) })
	}
	if t.in == nil {
		return nil
	}
	if t.ins.Mode != nil {
		t.ins.Mode.Key = t.ins.ModeKey
	}
	return []*checker.Instance{t.in}
}

// isTerraformFragment reports whether d is a Talos fragment that a Terraform file's string
// holds (a document of the file, not embedded in another).
func isTerraformFragment(d *checker.Document) bool {
	return d.Parent == nil && d.File.Parent != nil && isTerraformName(d.File.Outer().Path) &&
		(isTalosStrategicFragment(d.Node) || isTalosKubeProxyConfig(d.Node) || talosJSONPatch(d.Node))
}

// add reads one fragment.
func (t *talosFragments) add(e *checker.Document) {
	switch {
	case isTalosKubeProxyConfig(e.Node):
		t.section(e, nil, checker.Path{"kind"}, "mode", "enabled", "extraArgs")
	case isTalosStrategicFragment(e.Node):
		t.section(e, checker.Path{"cluster", "proxy"}, checker.Path{"cluster", "proxy"}, "mode", "disabled", "extraArgs")
	default:
		t.patch(e, nil)
	}
}

// talosFragments builds one Talos kube-proxy from the fragments of one document.
type talosFragments struct {
	top *checker.Document
	ins *checker.Installer
	in  *checker.Instance
}

// start makes the instance on the first fragment, anchored at p of e.
func (t *talosFragments) start(e *checker.Document, p checker.Path) {
	if t.in != nil {
		return
	}
	t.ins = talosInstaller(e)
	if v := talosVersionOf(t.top); v != nil {
		t.ins.Version, t.ins.Defaults, t.ins.DefaultWhy = v.Version, v.Defaults, v.DefaultWhy
	}
	t.ins.ModeKey = "cluster.proxy.mode"
	docAnchor(t.ins, e, p)
	label := "Talos patches in " + t.top.File.Outer().Path
	if t.top.Kind != "" && t.top.Name != "" {
		label = "Talos patches of " + t.top.Kind + " " + t.top.Name
	}
	t.in = newInstallerInstance(t.ins, label)
}

// section reads a proxy section at px of e (Talos's KubeProxyConfig: its root) with its mode,
// off switch (disabled: true, or enabled: false) and extra arguments keys.
func (t *talosFragments) section(e *checker.Document, px, anchor checker.Path, mode, off, args string) {
	t.start(e, anchor)
	if off == "enabled" {
		t.ins.ModeKey = "KubeProxyConfig mode"
	}
	if s := modeSetting(t.ins, e, px.Append(mode)); s != nil {
		t.ins.Mode = s
	} else if off == "enabled" {
		if s := modeSetting(t.ins, e, checker.Path{"config", "mode"}); s != nil {
			t.ins.Mode = s
		}
	}
	if s, b, ok := boolSetting(e, px.Append(off)); ok && b == (off == "disabled") {
		t.ins.Disabled = s
	}
	t.in.Flags = append(t.in.Flags, mapFlags(e, px.Append(args))...)
}

// patch reads the JSON patch list at base of d (nil: d itself).
func (t *talosFragments) patch(d *checker.Document, base checker.Path) {
	seq := d.Node
	if len(base) > 0 {
		_, seq = d.Lookup(base)
	}
	if seq == nil || seq.Kind != yaml.SequenceNode {
		return
	}
	for i, op := range seq.Content {
		if !talosPatchTouchesProxy(op) {
			continue
		}
		at := base.Append(i)
		t.start(d, at.Append("path"))
		val := at.Append("value")
		switch p := strNode(op, "path"); {
		case p == "/cluster":
			t.section(d, val.Append("proxy"), at.Append("path"), "mode", "disabled", "extraArgs")
		case p == "/cluster/proxy":
			t.section(d, val, at.Append("path"), "mode", "disabled", "extraArgs")
		case p == "/cluster/proxy/mode":
			if s := modeSetting(t.ins, d, val); s != nil {
				t.ins.Mode = s
			}
		case p == "/cluster/proxy/disabled":
			if s, b, ok := boolSetting(d, val); ok && b {
				t.ins.Disabled = s
			}
		case p == "/cluster/proxy/extraArgs":
			t.in.Flags = append(t.in.Flags, mapFlags(d, val)...)
		case strings.HasPrefix(p, "/cluster/proxy/extraArgs/"):
			t.in.Flags = append(t.in.Flags, patchFlag(d, at, strings.TrimPrefix(p, "/cluster/proxy/extraArgs/"))...)
		}
	}
}

// findConfigPatches calls f with the path of every configPatches list below n that is a Talos
// JSON patch on kube-proxy's section.
func findConfigPatches(n *yaml.Node, p checker.Path, depth int, f func(checker.Path)) {
	if n == nil || n.Kind != yaml.MappingNode || depth > 8 {
		return
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i].Value, n.Content[i+1]
		q := append(append(checker.Path(nil), p...), k)
		if k == "configPatches" && talosJSONPatch(v) {
			f(q)
			continue
		}
		findConfigPatches(v, q, depth+1, f)
	}
}

// patchFlag turns an add of /cluster/proxy/extraArgs/NAME into one flag whose value is the
// operation's value.
func patchFlag(d *checker.Document, at checker.Path, name string) []checker.Flag {
	_, v := d.Lookup(at.Append("value"))
	if v == nil || v.Kind != yaml.ScalarNode || name == "" || strings.Contains(name, "/") {
		return nil
	}
	f := checker.Flag{Name: strings.TrimLeft(name, "-"), Value: v.Value, HasValue: true, Doc: d, Node: v, NodePath: at.Append("value")}
	f.Pos, f.End = d.NodePos(v), d.NodeEnd(v)
	f.ValuePos, f.ValueEnd = d.SubPos(v, 0, len(v.Value))
	setValueSpan(&f, v, 0, len(v.Value))
	return []checker.Flag{f}
}

// talosVersion is the Talos version a fragment's surroundings name, with the default mode it
// implies.
type talosVersion struct {
	Version    string
	Defaults   []checker.ModeSince
	DefaultWhy string
}

// talosVersionOf reads the Talos version that document d (talhelper's talconfig.yaml) names
// in its talosVersion key.
func talosVersionOf(d *checker.Document) *talosVersion {
	raw := d.Str(checker.Path{"talosVersion"})
	if raw == "" || text.HasPlaceholder(raw) {
		return nil
	}
	v, err := checker.ParseVersion(raw)
	if err != nil {
		return nil
	}
	out := &talosVersion{Version: v.String(), Defaults: fixedDefault(checker.ModeNFTables), DefaultWhy: "Talos defaults to nftables since Talos 1.8"}
	if v.Less(checker.Version{Major: 1, Minor: 8}) {
		out.Defaults, out.DefaultWhy = fixedDefault(checker.ModeIPTables), "Talos before 1.8 defaults to iptables"
	}
	return out
}
