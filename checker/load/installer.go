package load

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Installer and distribution configurations (RULES.md §1, "Where the mode is written"). Each
// installer has its own file (installer_kind.go, installer_kops.go, ...) that registers a
// document decoder or a workspace decoder here; findInstallerInstances, registered as an
// instance finder, runs them after the built-in finder.

func init() {
	instanceFinders = append(instanceFinders, findInstallerInstances)
}

var (
	// docInstallers turn one document into installer instances (none when it is not theirs).
	docInstallers []func(ws *checker.Workspace, d *checker.Document) []*checker.Instance
	// wsInstallers look at the whole workspace: sources merged over several files (kubespray
	// group_vars) and text files (INI inventories, Terraform, install command lines).
	wsInstallers []func(ws *checker.Workspace) []*checker.Instance
)

func findInstallerInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	for _, d := range ws.Docs {
		for _, dec := range docInstallers {
			out = append(out, dec(ws, d)...)
		}
	}
	for _, dec := range wsInstallers {
		out = append(out, dec(ws)...)
	}
	return out
}

// Mode vocabularies.
var (
	lowerModes = map[string]string{"iptables": checker.ModeIPTables, "ipvs": checker.ModeIPVS, "nftables": checker.ModeNFTables}
	// upstreamDefaults follow kube-proxy's own default: nftables from 1.40.
	upstreamDefaults = []checker.ModeSince{{Since: checker.Version{Major: 1, Minor: 0}, Mode: checker.ModeIPTables}, {Since: checker.Version{Major: 1, Minor: 40}, Mode: checker.ModeNFTables}}
)

// kpcIPVSFields are the fields of a KubeProxyConfiguration's ipvs section, which installers
// that embed one (EKS add-on values, k0s, KubeKey, kind patches) copy.
var kpcIPVSFields = []string{"scheduler", "strictARP", "syncPeriod", "minSyncPeriod", "excludeCIDRs", "tcpTimeout", "tcpFinTimeout", "udpTimeout"}

// ipvsSection reads the ipvs knobs of a KubeProxyConfiguration-shaped ipvs section at p that
// are set to something other than their default (false, "", 0, an empty list): only those
// make a difference, and only in ipvs mode.
func ipvsSection(d *checker.Document, p checker.Path) []checker.InstallerSetting {
	var out []checker.InstallerSetting
	for _, f := range kpcIPVSFields {
		s := yamlSetting(d, p.Append(f))
		if s == nil || s.Placeholder {
			continue
		}
		switch strings.TrimSpace(s.Value) {
		case "false", "0", "0s", "":
			if len(s.Values) == 0 {
				continue
			}
			s.Value = "[" + strings.Join(s.Values, ", ") + "]" // for messages
		}
		out = append(out, *s)
	}
	return out
}

// fixedDefault is an installer default that does not depend on the target version.
func fixedDefault(mode string) []checker.ModeSince {
	return []checker.ModeSince{{Since: checker.Version{Major: 1, Minor: 0}, Mode: mode}}
}

// newInstallerInstance wraps ins in an instance.
func newInstallerInstance(ins *checker.Installer, label string) *checker.Instance {
	in := &checker.Instance{Kind: checker.InstanceInstaller, Label: label, Installer: ins}
	if ins.File != nil {
		in.Source = ins.File.Outer()
	}
	return in
}

// docAnchor sets the installer's anchor to the key at the deepest existing prefix of p, or the
// document's kind line.
func docAnchor(ins *checker.Installer, d *checker.Document, p checker.Path) {
	for i := len(p); i >= 1; i-- {
		if pos, end, ok := d.KeyPos(p[:i]); ok {
			ins.Anchor, ins.AnchorEnd = pos, end
			return
		}
	}
	ins.Anchor, ins.AnchorEnd = d.KindPos()
}

// insertKey returns an edit that adds "key: value" as the first entry of the block mapping at
// p of d, at the indentation of its entries; false when there is no such mapping with an entry
// to align with.
func insertKey(d *checker.Document, p checker.Path, key string) func(string) (checker.TextEdit, bool) {
	return func(value string) (checker.TextEdit, bool) {
		var m *yaml.Node
		if len(p) == 0 {
			m = d.Node
		} else {
			_, m = d.Lookup(p)
		}
		if m == nil || m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 || len(m.Content) == 0 {
			return checker.TextEdit{}, false
		}
		first := d.NodePos(m.Content[0])
		f := d.File.Outer()
		if !first.IsValid() || first.Filename != f.Path || first.Column < 1 {
			return checker.TextEdit{}, false
		}
		ls := first.Offset - (first.Column - 1)
		if ls < 0 || strings.TrimLeft(string(f.Content[ls:first.Offset]), " ") != "" {
			return checker.TextEdit{}, false
		}
		at := f.PositionAt(ls)
		return checker.TextEdit{Pos: at, End: at, NewText: strings.Repeat(" ", first.Column-1) + key + ": " + value + lineEnd(f)}, true
	}
}

// lineEnd is the line ending the file uses.
func lineEnd(f *checker.File) string {
	if strings.Contains(string(f.Content), "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// yamlSetting returns the scalar setting at path p of d, or nil when it is absent or null.
func yamlSetting(d *checker.Document, p checker.Path) *checker.InstallerSetting {
	k, v := d.Lookup(p)
	if v == nil {
		return nil
	}
	for v.Kind == yaml.AliasNode && v.Alias != nil {
		v = v.Alias
	}
	if v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null" {
		return nil
	}
	s := &checker.InstallerSetting{Doc: d, Path: p}
	if len(p) > 0 {
		s.Key = p[len(p)-1]
	}
	if k != nil {
		s.Pos, s.End = d.NodePos(k), d.NodeEnd(k)
	} else {
		s.Pos, s.End = d.NodePos(v), d.NodeEnd(v)
	}
	switch v.Kind {
	case yaml.ScalarNode:
		s.Value = v.Value
		s.ValuePos, s.ValueEnd = d.SubPos(v, 0, len(v.Value))
		if v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 || strings.Contains(v.Value, "\n") {
			s.ValuePos, s.ValueEnd = d.NodePos(v), d.NodeEnd(v)
		}
		s.Placeholder = text.HasPlaceholder(v.Value)
	case yaml.SequenceNode:
		s.ValuePos, s.ValueEnd = d.NodePos(v), d.NodeEnd(v)
		for _, c := range v.Content {
			if c.Kind == yaml.ScalarNode {
				s.Values = append(s.Values, c.Value)
				if text.HasPlaceholder(c.Value) {
					s.Placeholder = true
				}
			}
		}
	default:
		s.ValuePos, s.ValueEnd = d.NodePos(v), d.NodeEnd(v)
	}
	if k != nil && v.Kind == yaml.ScalarNode {
		s.Remove = removeKeyLine(d, k, v)
	}
	return s
}

// removeKeyLine deletes the line of a "key: value" pair when nothing else is on it.
func removeKeyLine(d *checker.Document, k, v *yaml.Node) []checker.TextEdit {
	f := d.File.Outer()
	kp, ve := d.NodePos(k), d.NodeEnd(v)
	if kp.Line != ve.Line || kp.Filename != f.Path {
		return nil
	}
	start := f.Lines.LineStart(kp.Line)
	if strings.Trim(string(f.Content[start:kp.Offset]), " ") != "" {
		return nil
	}
	end := f.Lines.LineStart(kp.Line + 1)
	if rest := strings.TrimSpace(string(f.Content[ve.Offset:end])); rest != "" && !strings.HasPrefix(rest, "#") {
		return nil
	}
	return []checker.TextEdit{{Pos: f.PositionAt(start), End: f.PositionAt(end)}}
}

// modeSetting reads a mode setting and normalises it through the installer's vocabulary.
func modeSetting(ins *checker.Installer, d *checker.Document, p checker.Path) *checker.InstallerSetting {
	s := yamlSetting(d, p)
	if s == nil || (s.Value == "" && !s.Placeholder) {
		return nil
	}
	s.Normalized = ins.Modes[s.Value]
	return s
}

// boolSetting reads a boolean setting; ok is false when absent, a placeholder or not a
// boolean.
func boolSetting(d *checker.Document, p checker.Path) (*checker.InstallerSetting, bool, bool) {
	s := yamlSetting(d, p)
	if s == nil || s.Placeholder {
		return nil, false, false
	}
	_, v := d.Lookup(p)
	b, ok := checker.YAML11Bool(v)
	if !ok {
		switch strings.ToLower(s.Value) {
		case "true":
			b, ok = true, true
		case "false":
			b, ok = false, true
		}
	}
	return s, b, ok
}

// gatesSetting reads a featureGates map at p as gate settings.
func gatesSetting(d *checker.Document, p checker.Path) []checker.GateSetting {
	_, m := d.Lookup(p)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var out []checker.GateSetting
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		g := checker.GateSetting{Name: k.Value, Raw: v.Value, Setting: checker.Setting{Value: v.Value, Origin: checker.OriginInstaller, Doc: d, Path: p.Append(k.Value)}}
		b, ok := checker.YAML11Bool(v)
		if !ok {
			switch strings.ToLower(v.Value) {
			case "true":
				b, ok = true, true
			case "false":
				b, ok = false, true
			}
		}
		g.Value, g.Invalid = b, !ok
		out = append(out, g)
	}
	return out
}

// mapFlags turns an extraArgs-style map (flag name: value) into flags.
func mapFlags(d *checker.Document, p checker.Path) []checker.Flag {
	_, m := d.Lookup(p)
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	var out []checker.Flag
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		if v.Kind != yaml.ScalarNode {
			continue
		}
		f := checker.Flag{Name: strings.TrimLeft(k.Value, "-"), Value: v.Value, HasValue: true, Doc: d, Node: v, NodePath: p.Append(k.Value)}
		f.Pos = d.NodePos(k)
		f.End = d.NodeEnd(v)
		f.ValuePos, f.ValueEnd = d.SubPos(v, 0, len(v.Value))
		setValueSpan(&f, v, 0, len(v.Value))
		if d.NodePos(v).Line != f.Pos.Line {
			f.End = d.NodeEnd(k)
		}
		f.Remove = removeKeyLine(d, k, v)
		out = append(out, f)
	}
	return out
}

// seqFlags turns a list of "name=value" strings (k3s kube-proxy-arg) into flags.
func seqFlags(d *checker.Document, p checker.Path) []checker.Flag {
	_, seq := d.Lookup(p)
	if seq == nil {
		return nil
	}
	items := []*yaml.Node{seq}
	if seq.Kind == yaml.SequenceNode {
		items = seq.Content
	}
	var out []checker.Flag
	for i, n := range items {
		if n.Kind != yaml.ScalarNode || n.ShortTag() == "!!null" {
			continue
		}
		text := n.Value
		lead := len(text) - len(strings.TrimLeft(text, "-"))
		name, val, hasEq := strings.Cut(text[lead:], "=")
		np := p
		if seq.Kind == yaml.SequenceNode {
			np = p.Append(i)
		}
		f := checker.Flag{Name: name, Value: val, HasValue: hasEq, Doc: d, Node: n, NodePath: np}
		f.Pos, f.End = d.SubPos(n, 0, len(text))
		if hasEq {
			f.ValuePos, f.ValueEnd = d.SubPos(n, lead+len(name)+1, len(text))
			setValueSpan(&f, n, lead+len(name)+1, len(text))
		} else {
			f.ValuePos, f.ValueEnd = f.Pos, f.End
		}
		if seq.Kind == yaml.SequenceNode {
			t := token{text: text, doc: d, node: n, path: np, to: len(text), whole: true}
			f.Remove = removeSeqItems(t, t)
		}
		out = append(out, f)
	}
	return out
}
