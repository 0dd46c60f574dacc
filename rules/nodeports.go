package rules

import (
	"fmt"
	"net/netip"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// NodePorts and the kube-proxies that serve them: the Linux kube-proxies with their mode at
// each target, where a finding about a kube-proxy as a whole goes, the note that says where its
// mode comes from, the localhost NodePort gate and nodePortAddresses fixes. Used by KP301,
// KP302, KP303 and KP501.

// gateNFTablesLocalhostNodePorts enables loopback NodePorts in nftables mode (1.37 alpha,
// 1.38 beta).
const gateNFTablesLocalhostNodePorts = "KubeProxyNFTablesLocalhostNodePorts"

// proxyInstance is a Linux kube-proxy whose mode at the target is known.
type proxyInstance struct {
	*checker.Instance
	mode checker.Setting
	file string
}

// instanceFile returns the path of the file that defines an instance, for scoping.
func instanceFile(in *checker.Instance) string {
	switch {
	case in.Workload != nil:
		return in.Workload.File.Outer().Path
	case in.Source != nil:
		return in.Source.Outer().Path
	case in.Config != nil:
		return in.Config.File.Outer().Path
	}
	return ""
}

// modesAt computes the Linux kube-proxies with their modes at each target version asked for,
// once per version: rules about a file (KP302, KP501) judge the kube-proxies in its scope at
// the file's own target, which is the version their messages name.
type modesAt struct {
	p  *checker.Pass
	at map[checker.Version][]proxyInstance
	// scoped caches inScope by target and scope class (ScopeIndex.Class): files of one
	// scope share the answer, so documents times instances comparisons become one per
	// scope.
	scoped map[scopedKey][]proxyInstance
	// any caches anyInScope by scope class.
	anyIn map[string]bool
}

type scopedKey struct {
	v     checker.Version
	class string
}

func newModesAt(p *checker.Pass) *modesAt {
	return &modesAt{p: p, at: map[checker.Version][]proxyInstance{}, scoped: map[scopedKey][]proxyInstance{}, anyIn: map[string]bool{}}
}

// anyInScope reports whether any kube-proxy, whatever its mode or platform, is in the scope
// of file; computed once per scope class.
func (m *modesAt) anyInScope(idx *checker.ScopeIndex, file string) bool {
	k := idx.Class(file)
	found, ok := m.anyIn[k]
	if !ok {
		for _, in := range m.p.Workspace.Instances {
			if f := instanceFile(in); f != "" && idx.Same(file, f) {
				found = true
				break
			}
		}
		m.anyIn[k] = found
	}
	return found
}

// inScope returns inScope(idx, m.get(p), file), computed once per target and scope class.
// The slice is shared: callers do not change it.
func (m *modesAt) inScope(p *checker.Pass, idx *checker.ScopeIndex, file string) []proxyInstance {
	k := scopedKey{p.Target(), idx.Class(file)}
	out, ok := m.scoped[k]
	if !ok {
		out = inScope(idx, m.get(p), file)
		m.scoped[k] = out
	}
	return out
}

// get returns linuxInstances at the target of pass p.
func (m *modesAt) get(p *checker.Pass) []proxyInstance {
	v := p.Target()
	out, ok := m.at[v]
	if !ok {
		out = linuxInstances(p)
		m.at[v] = out
	}
	return out
}

// linuxInstances returns the Linux kube-proxies with a known mode at the target of p.
func linuxInstances(p *checker.Pass) []proxyInstance {
	var out []proxyInstance
	for _, in := range p.Workspace.Instances {
		if runsOnWindows(in) {
			continue
		}
		m := in.Mode(p.Target())
		switch m.Value {
		case checker.ModeIPTables, checker.ModeIPVS, checker.ModeNFTables:
		default:
			continue
		}
		out = append(out, proxyInstance{Instance: in, mode: m, file: instanceFile(in)})
	}
	return out
}

// linuxInstancesEach returns the Linux kube-proxies with a known mode, each at its own target
// (checker.Workspace.InstanceTarget), with the pass bound to that target: for the rules
// about an instance as a whole (KP301, KP303).
func linuxInstancesEach(p *checker.Pass) []boundInstance {
	var out []boundInstance
	for _, in := range p.Workspace.Instances {
		if runsOnWindows(in) {
			continue
		}
		ip := p.ForInstance(in)
		m := in.Mode(ip.Target())
		switch m.Value {
		case checker.ModeIPTables, checker.ModeIPVS, checker.ModeNFTables:
		default:
			continue
		}
		out = append(out, boundInstance{proxyInstance{Instance: in, mode: m, file: instanceFile(in)}, ip})
	}
	return out
}

// boundInstance is a proxyInstance with the pass bound to its target.
type boundInstance struct {
	proxyInstance
	p *checker.Pass
}

// inScope returns the instances in the scope of file.
func inScope(idx *checker.ScopeIndex, all []proxyInstance, file string) []proxyInstance {
	var out []proxyInstance
	for _, in := range all {
		if in.file != "" && idx.Same(file, in.file) {
			out = append(out, in)
		}
	}
	return out
}

// instanceAnchor returns where a finding about an instance as a whole goes: the config's
// kind line, the kube-proxy program of a command line, or the container's name.
func instanceAnchor(in *checker.Instance) (checker.Position, checker.Position, *checker.ObjectRef, bool) {
	switch {
	case in.HasConfigFlag() && in.Config != nil:
		p, e := in.Config.KindPos()
		return p, e, in.Config.Ref(), true
	case in.Workload != nil:
		if p, e, ok := in.Workload.KeyPos(in.Container.Append("name")); ok {
			return p, e, in.Workload.Ref(), true
		}
		p, e := in.Workload.KindPos()
		return p, e, in.Workload.Ref(), true
	case in.Program.IsValid():
		return in.Program, in.ProgramEnd, nil, true
	case in.Installer != nil && in.Installer.Anchor.IsValid():
		var obj *checker.ObjectRef
		if in.Installer.Doc != nil {
			obj = in.Installer.Doc.Ref()
		}
		return in.Installer.Anchor, in.Installer.AnchorEnd, obj, true
	}
	return checker.Position{}, checker.Position{}, nil, false
}

// modeRelated explains where an instance's mode comes from, as a related location.
func modeRelated(in proxyInstance, target checker.Version) []checker.Related {
	var msg string
	switch in.mode.Origin {
	case checker.OriginDefault, checker.OriginInstallerDefault:
		msg = fmt.Sprintf("%s: mode unset, %s is the default at target %s", in.Label, in.mode.Value, target)
	default:
		msg = fmt.Sprintf("%s runs in %s mode%s", in.Label, in.mode.Value, modeSetHere(in.mode))
	}
	pos, end, ok := in.mode.Where()
	if !ok {
		pos, end, _, ok = instanceAnchor(in.Instance)
	}
	if !ok {
		return nil
	}
	return []checker.Related{{Pos: pos, End: end, Message: msg}}
}

// gateOn returns whether KubeProxyNFTablesLocalhostNodePorts is effectively on at target,
// and whether it was set explicitly.
func gateOn(in *checker.Instance, target checker.Version) (on, explicit bool) {
	if !target.AtLeast(37) {
		return false, false
	}
	if g, ok := in.Gate(gateNFTablesLocalhostNodePorts); ok && !g.Invalid {
		return g.Value, true
	}
	return target.AtLeast(38), false
}

// loopbackEntry reports whether a nodePortAddresses entry explicitly includes loopback:
// the localhost keyword or a CIDR inside 127.0.0.0/8 or ::1/128. "all" and 0.0.0.0/0 cover
// loopback addresses but do not count (RULES.md §1).
func loopbackEntry(s string) (v4, v6 bool) {
	s = strings.TrimSpace(s)
	if s == "localhost" {
		return true, true
	}
	pfx, err := netip.ParsePrefix(s)
	if err != nil {
		return false, false
	}
	a := pfx.Addr()
	switch {
	case a.Is4() && pfx.Bits() >= 8 && a.IsLoopback():
		return true, false
	case a.Is6() && pfx.Bits() == 128 && a.IsLoopback():
		return false, true
	}
	return false, false
}

// hasLoopbackEntry reports whether addrs explicitly include IPv4 (or IPv6) loopback.
func hasLoopbackEntry(addrs []string, ipv6 bool) bool {
	for _, a := range addrs {
		v4, v6 := loopbackEntry(a)
		if (!ipv6 && v4) || (ipv6 && v6) {
			return true
		}
	}
	return false
}

// iptablesLocalhostNodePorts reports whether iptables mode serves IPv4 loopback NodePorts:
// iptables.localhostNodePorts (default true) or --iptables-localhost-nodeports without
// --config.
func iptablesLocalhostNodePorts(in *checker.Instance) bool {
	if in.HasConfigFlag() {
		if in.Config == nil {
			return true
		}
		if _, v := in.Config.Lookup(checker.Path{"iptables", "localhostNodePorts"}); v != nil {
			if b, ok := checker.YAML11Bool(v); ok {
				return b
			}
		}
		return true
	}
	if f := in.Flag("iptables-localhost-nodeports"); f != nil && f.HasValue {
		return !strings.EqualFold(strings.TrimSpace(f.Value), "false")
	}
	return true
}

// nodePortAddressesFix returns a fix that sets nodePortAddresses to value (flow YAML text
// such as `["primary"]`) in configuration doc, where the field is absent, null or empty: a
// new line after mode (or kind), indented like that key, which also gives the indentation
// inside a ConfigMap block scalar; or the value written over the empty one. ok is false when
// no safe edit exists (flow mappings, JSON, a non-empty value).
func nodePortAddressesFix(doc *checker.Document, value, msg string) (checker.Fix, bool) {
	f := doc.File.Outer()
	if _, m := doc.Lookup(nil); m == nil || m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 {
		return checker.Fix{}, false
	}
	k, v := doc.Lookup(checker.Path{"nodePortAddresses"})
	if k != nil && v != nil {
		switch {
		case v.Kind == yaml.SequenceNode && len(v.Content) == 0 && v.Style&yaml.FlowStyle != 0:
			p, e := doc.NodePos(v), doc.NodeEnd(v)
			if e.Offset-p.Offset < 2 || string(f.Content[p.Offset:p.Offset+1]) != "[" {
				return checker.Fix{}, false
			}
			end := p.Offset + strings.IndexByte(string(f.Content[p.Offset:e.Offset]), ']') + 1
			return checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: p, End: f.Lines.Position(f.Path, end), NewText: value}}}, true
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null" && v.Value == "":
			p := doc.NodePos(v)
			if p.Offset < 1 || p.Offset > len(f.Content) || f.Content[p.Offset-1] != ':' {
				return checker.Fix{}, false
			}
			return checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: p, End: p, NewText: " " + value}}}, true
		case v.Kind == yaml.ScalarNode && v.Tag == "!!null":
			p, e := doc.NodePos(v), doc.NodeEnd(v)
			if e.Offset-p.Offset != len(v.Value) {
				return checker.Fix{}, false
			}
			return checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: p, End: e, NewText: value}}}, true
		}
		return checker.Fix{}, false
	}
	after := checker.Path{"mode"}
	if mk, mv := doc.Lookup(after); mk == nil || mv == nil || mv.Kind != yaml.ScalarNode || mv.Line != mk.Line || mv.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		after = checker.Path{"kind"}
	}
	pos, _, ok := doc.KeyPos(after)
	if !ok {
		return checker.Fix{}, false
	}
	indent, ok := blankPrefix(f, pos)
	if !ok {
		return checker.Fix{}, false
	}
	return checker.Fix{Message: msg, Edits: []checker.TextEdit{insertLineAfterEdit(f, pos.Line, indent, "nodePortAddresses: "+value)}}, true
}
