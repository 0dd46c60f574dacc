package rules

import (
	"bytes"
	"fmt"
	"path"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP302 flags clients that reach a NodePort on a loopback address from the host network.
var KP302 = &checker.Rule{
	ID:       "KP302",
	Name:     "loopback-nodeport",
	Severity: checker.SeverityError,
	Kinds:    []string{"Service", "Pod", "DaemonSet", "Deployment", "shell script", "systemd unit", "containerd hosts.toml", "Prometheus scrape config"},
	Doc: withProse("kp302_loopback_nodeport.md", checker.Doc{
		Title:        "a NodePort is reached on a loopback address",
		Before:       "spec:\n  hostNetwork: true\n  containers:\n  - name: agent\n    args: [\"--server=http://127.0.0.1:30080\"]\n",
		After:        "spec:\n  hostNetwork: true\n  containers:\n  - name: agent\n    args: [\"--server=http://web.default.svc:80\"]\n",
		Since:        "0.1.0",
		SeverityText: "error when the effective mode at the target does not serve it (ipvs always; nftables without gate and loopback entry; UDP/SCTP in nftables; IPv6 in iptables); warning when only iptables mode serves it; warning at most without a kube-proxy in scope",
	}),
	Run:      runKP302,
	DocFacts: kp302DocUses,
}

// kp302Use is one loopback host:port found in an input.
type kp302Use struct {
	file     string
	pos, end checker.Position
	obj      *checker.ObjectRef
	path     checker.Path
	// what names the use for the message: "127.0.0.1:30080", "image localhost:32000/app".
	what string
	port int
	ipv6 bool
	// text is true for text files and scrape configs, where kind host port mappings and
	// kubectl port-forward apply.
	text    bool
	related []checker.Related
}

func runKP302(p *checker.Pass) error {
	uses := kp302PodUses(p.Rule, p.Workspace)
	uses = append(uses, kp302TextUses(p.Workspace)...)
	uses = append(uses, kp302ScrapeUses(p.Workspace)...)
	uses = append(uses, kp302RegistryUses(p.Workspace)...)
	if len(uses) == 0 {
		return nil
	}
	// The Services' nodePorts by port, in order: each use looks at its port's only.
	nodePorts := map[int][]checker.NodePort{}
	for _, np := range p.Workspace.NodePorts() {
		nodePorts[np.Port] = append(nodePorts[np.Port], np)
	}
	kindPorts := kp302KindHostPorts(p.Workspace)
	modes := newModesAt(p)
	ranges := p.Workspace.NodePortRanges()
	idx := p.Workspace.NewScopeIndex()
	for _, u := range uses {
		p := p.At(u.file)
		var declared []checker.NodePort
		for _, np := range nodePorts[u.port] {
			if idx.Same(u.file, np.Service.File.Outer().Path) {
				declared = append(declared, np)
			}
		}
		rng := p.Workspace.NodePortRangeOf(ranges, u.file)
		if len(declared) == 0 && !rng.Contains(u.port) {
			continue
		}
		if u.text && kp302KindMapped(idx, kindPorts, u.file, u.port) {
			continue
		}
		proto := "TCP"
		for _, np := range declared {
			proto = np.Protocol
			if proto == "TCP" {
				break
			}
		}
		sev, reason, related, ok := kp302Verdict(p, idx, modes, u.file, u.ipv6, proto)
		if !ok {
			continue
		}
		var msg string
		if len(declared) > 0 {
			msg = fmt.Sprintf("%s reaches NodePort %d of %s on loopback: %s", u.what, u.port, declared[0].Label(), reason)
			for _, np := range declared {
				related = append(related, nodePortRelated(np))
			}
		} else {
			msg = fmt.Sprintf("%s is a loopback address with a port in the NodePort range %s (no Service in scope declares nodePort %d); if it is a NodePort, %s", u.what, rng, u.port, reason)
			if rng.Source != "" {
				related = append(related, checker.Related{Pos: rng.Pos, End: rng.End, Message: "NodePort range " + rng.String() + " is set here"})
			}
		}
		related = append(append([]checker.Related(nil), u.related...), related...)
		p.Report(checker.Finding{Severity: sev, Message: msg, Pos: u.pos, End: u.end, Object: u.obj, Path: u.path, Related: related})
	}
	return nil
}

// kp302Verdict decides, from the kube-proxies in the scope of file, whether a loopback
// NodePort is served: error when one of them does not serve it, warning when only iptables
// mode serves it. Without any kube-proxy in scope it judges the default mode at the target,
// at most as a warning. ok is false when nothing breaks or the mode is unknown.
func kp302Verdict(p *checker.Pass, idx *checker.ScopeIndex, modes *modesAt, file string, ipv6 bool, proto string) (checker.Severity, string, []checker.Related, bool) {
	scoped := modes.inScope(p, idx, file)
	if len(scoped) == 0 {
		if modes.anyInScope(idx, file) {
			// A kube-proxy whose mode is unknown (or a Windows one): no verdict.
			return checker.SeverityNone, "", nil, false
		}
		mode := checker.DefaultMode(p.Target(), false)
		served, why := kp302Served(mode, nil, p.Target(), ipv6, proto)
		if served && mode != checker.ModeIPTables {
			return checker.SeverityNone, "", nil, false
		}
		return checker.SeverityWarning, fmt.Sprintf("no kube-proxy configuration is in scope, and with %s, the default mode at target %s, %s", mode, p.Target(), why), nil, true
	}
	var warnIn *proxyInstance
	var warnWhy string
	for i := range scoped {
		in := &scoped[i]
		served, why := kp302Served(in.mode.Value, in.Instance, p.Target(), ipv6, proto)
		if !served {
			return checker.SeverityError, why, modeRelated(*in, p.Target()), true
		}
		if in.mode.Value == checker.ModeIPTables && warnIn == nil {
			warnIn, warnWhy = in, why
		}
	}
	if warnIn == nil {
		return checker.SeverityNone, "", nil, false
	}
	return checker.SeverityWarning, warnWhy, modeRelated(*warnIn, p.Target()), true
}

// kp302Served says whether kube-proxy in mode (instance in, or the defaults when nil)
// serves a loopback NodePort, and explains why as a clause of the message.
func kp302Served(mode string, in *checker.Instance, target checker.Version, ipv6 bool, proto string) (bool, string) {
	var addrs []string
	if in != nil {
		addrs, _ = in.NodePortAddresses()
	}
	switch mode {
	case checker.ModeIPVS:
		return false, "kube-proxy in ipvs mode never serves NodePorts on loopback"
	case checker.ModeIPTables:
		switch {
		case ipv6:
			return false, "kube-proxy in iptables mode serves loopback NodePorts on IPv4 only"
		case in != nil && !iptablesLocalhostNodePorts(in):
			return false, "kube-proxy in iptables mode does not serve it with localhostNodePorts disabled"
		case len(addrs) > 0 && !hasLoopbackEntry(addrs, false) && !kp303CoversAll(addrs):
			return false, "kube-proxy in iptables mode does not serve it: nodePortAddresses has no loopback entry"
		}
		return true, "only iptables mode serves it (route_localnet); it breaks when kube-proxy moves to ipvs, or to nftables without the " + gateNFTablesLocalhostNodePorts + " gate and a loopback entry in nodePortAddresses"
	case checker.ModeNFTables:
		var on bool
		if in != nil {
			on, _ = gateOn(in, target)
		} else {
			on = target.AtLeast(38)
		}
		switch {
		case !target.AtLeast(37):
			return false, fmt.Sprintf("kube-proxy in nftables mode serves no loopback NodePorts before 1.37 (target %s)", target)
		case !on:
			return false, fmt.Sprintf("kube-proxy in nftables mode does not serve it: the %s gate is off at target %s", gateNFTablesLocalhostNodePorts, target)
		case !hasLoopbackEntry(addrs, ipv6):
			return false, "kube-proxy in nftables mode does not serve it: nodePortAddresses has no explicit loopback entry (localhost, 127.0.0.1/32 or ::1/128)"
		case proto != "TCP":
			return false, fmt.Sprintf("kube-proxy in nftables mode serves loopback NodePorts for TCP only, not %s", proto)
		}
		return true, ""
	}
	return true, ""
}

// kp302PodUses finds loopback NodePort uses in workloads: images and kubelet probes and
// hooks with a loopback host in every Pod; command, args, env and exec probes and hooks in
// hostNetwork Pods only, since any other Pod has its own loopback.
func kp302PodUses(r *checker.Rule, ws *checker.Workspace) []kp302Use {
	var out []kp302Use
	for _, d := range ws.Docs {
		if checker.WorkloadPodSpec(d.Kind) == nil || d.Pruned && !d.Facts {
			continue // a header without facts: nothing of its pod is left
		}
		uses, _ := r.Facts(d).([]kp302Use)
		for _, u := range uses {
			u.obj = d.Ref()
			out = append(out, u)
		}
	}
	return out
}

// kp302DocUses is KP302's facts of a workload (checker.Rule.DocFacts): the loopback
// addresses its pod reaches, positions resolved, without the object (kp302PodUses sets it:
// a reference made while loading would hold the decoder's strings).
func kp302DocUses(d *checker.Document) any {
	spec := checker.WorkloadPodSpec(d.Kind)
	if spec == nil {
		return nil
	}
	var out []kp302Use
	hk, hn := d.Lookup(spec.Append("hostNetwork"))
	hostNet, _ := checker.YAML11Bool(hn)
	var hostRel []checker.Related
	if hostNet {
		hostRel = []checker.Related{{Pos: d.NodePos(hk), End: d.NodeEnd(hk), Message: "the Pod runs in the host network namespace"}}
	}
	file := d.File.Outer().Path
	scan := func(n *yaml.Node, path checker.Path, imageOnly, shellWords bool) {
		if n == nil || n.Kind != yaml.ScalarNode || !mayHoldLoopback(n.Value) {
			return
		}
		refs := findLoopbackRefs(n.Value)
		if shellWords {
			refs = outsideShellComments(n.Value, refs)
		}
		for _, r := range refs {
			what := strings.Clone(n.Value[r.From:r.To]) // not the decoder's string
			if imageOnly {
				if r.To >= len(n.Value) || n.Value[r.To] != '/' || r.From != 0 {
					continue
				}
				what += " (the registry of image " + n.Value + ", pulled by the node)"
			}
			pos, end := d.SubPos(n, r.From, r.To)
			u := kp302Use{file: file, pos: pos, end: end, path: path, what: what, port: r.Port, ipv6: r.IPv6}
			if !imageOnly {
				u.related = hostRel
			}
			out = append(out, u)
		}
	}
	scanSeq := func(c *yaml.Node, cpath, field checker.Path) {
		_, seq := checker.LookupNode(c, field)
		if seq == nil || seq.Kind != yaml.SequenceNode {
			return
		}
		for i, n := range seq.Content {
			scan(n, cpath.Append(field, i), false, true)
		}
	}
	for _, list := range []string{"initContainers", "containers", "ephemeralContainers"} {
		_, cs := d.Lookup(spec.Append(list))
		if cs == nil || cs.Kind != yaml.SequenceNode {
			continue
		}
		for i, c := range cs.Content {
			cpath := spec.Append(list, i)
			_, img := checker.LookupNode(c, checker.Path{"image"})
			scan(img, cpath.Append("image"), true, false)
			handlers := []checker.Path{
				{"livenessProbe"}, {"readinessProbe"}, {"startupProbe"},
				{"lifecycle", "postStart"}, {"lifecycle", "preStop"},
			}
			for _, h := range handlers {
				_, hn := checker.LookupNode(c, h)
				for _, kind := range []string{"httpGet", "tcpSocket"} {
					if u, ok := kp302ProbeUse(d, hn, cpath, h, kind); ok {
						u.file = file
						out = append(out, u)
					}
				}
				if hostNet {
					scanSeq(c, cpath, h.Append("exec", "command"))
				}
			}
			if !hostNet {
				continue
			}
			scanSeq(c, cpath, checker.Path{"command"})
			scanSeq(c, cpath, checker.Path{"args"})
			_, env := checker.LookupNode(c, checker.Path{"env"})
			if env != nil && env.Kind == yaml.SequenceNode {
				for j, e := range env.Content {
					_, v := checker.LookupNode(e, checker.Path{"value"})
					scan(v, cpath.Append("env", j, "value"), false, false)
				}
			}
		}
	}
	return out
}

// kp302ProbeUse returns the use of an httpGet or tcpSocket probe or hook whose host is a
// loopback address: the kubelet runs it from the host network whatever the Pod's network.
// hn is the handler at path h of the container at cpath; kind is httpGet or tcpSocket.
func kp302ProbeUse(d *checker.Document, hn *yaml.Node, cpath, h checker.Path, kind string) (kp302Use, bool) {
	if hn == nil {
		return kp302Use{}, false
	}
	_, host := checker.LookupNode(hn, checker.Path{kind, "host"})
	_, port := checker.LookupNode(hn, checker.Path{kind, "port"})
	if host == nil || port == nil || host.Kind != yaml.ScalarNode || port.Kind != yaml.ScalarNode {
		return kp302Use{}, false
	}
	h6 := strings.Trim(host.Value, "[]")
	v6 := h6 == "::1"
	if !v6 && host.Value != "localhost" {
		n, _ := loopbackHostAt(host.Value, 0)
		if host.Value == "" || n != len(host.Value) {
			return kp302Use{}, false
		}
	}
	pn, err := strconv.Atoi(port.Value)
	if err != nil || pn < 1 || pn > 65535 {
		return kp302Use{}, false
	}
	what := fmt.Sprintf("%s %s to %s port %d", strings.Join(h, "."), kind, host.Value, pn)
	return kp302Use{pos: d.NodePos(host), end: d.NodeEnd(host), path: cpath.Append(h, kind, "host"), what: what, port: pn, ipv6: v6}, true
}

// kp302RegistryUses finds node-local registries in YAML: the LocalRegistryHosting ConfigMap
// (KEP-1755; data localRegistryHosting.v1, whose hostFromContainerRuntime, or else host, is
// what the nodes' container runtime pulls from) and containerd hosts.toml text written by
// cloud-init, Butane or Ansible (a multi-line string with [host."..."] tables).
func kp302RegistryUses(ws *checker.Workspace) []kp302Use {
	var out []kp302Use
	for _, d := range ws.Docs {
		file := d.File.Outer().Path
		switch {
		case d.Kind == "ConfigMap":
			p := checker.Path{"data", "localRegistryHosting.v1"}
			_, n := d.Lookup(p)
			if n == nil || n.Kind != yaml.ScalarNode || !mayHoldLoopback(n.Value) {
				continue
			}
			key := "host"
			if strings.Contains(n.Value, "hostFromContainerRuntime") {
				key = "hostFromContainerRuntime"
			}
			for _, l := range scalarLines(n.Value) {
				off, line := l.off, l.text
				k, v, ok := strings.Cut(line, ":")
				if !ok || strings.TrimSpace(k) != key {
					continue
				}
				base := off + len(k) + 1
				v = v[:codePart(v, textTOML)] // a YAML comment
				for _, r := range findLoopbackRefs(v) {
					pos, end := d.SubPos(n, base+r.From, base+r.To)
					out = append(out, kp302Use{file: file, pos: pos, end: end, obj: d.Ref(), path: p, port: r.Port, ipv6: r.IPv6,
						what: v[r.From:r.To] + " (the local registry that localRegistryHosting.v1 " + key + " advertises)", text: key == "host"})
				}
			}
		case d.Kind == "" && d.Node != nil && d.Contains("[host."):
			walkScalars(d.Node, func(n *yaml.Node, p checker.Path) {
				if !hostsTOMLRe.MatchString(n.Value) || !mayHoldLoopback(n.Value) {
					return
				}
				for _, l := range scalarLines(n.Value) {
					off, line := l.off, l.text
					code := line[:codePart(line, textTOML)]
					for _, r := range findLoopbackRefs(code) {
						pos, end := d.SubPos(n, off+r.From, off+r.To)
						out = append(out, kp302Use{file: file, pos: pos, end: end, obj: d.Ref(), path: p.Clone(), port: r.Port, ipv6: r.IPv6,
							what: code[r.From:r.To] + " (a containerd registry host written by " + file + ")"})
					}
				}
			})
		}
	}
	return out
}

// scalarLines returns the lines of s, indexed by their byte offset in s.
func scalarLines(s string) []struct {
	off  int
	text string
} {
	var out []struct {
		off  int
		text string
	}
	for off := 0; off < len(s); {
		end := strings.IndexByte(s[off:], '\n')
		if end < 0 {
			end = len(s) - off
		}
		out = append(out, struct {
			off  int
			text string
		}{off, s[off : off+end]})
		off += end + 1
	}
	return out
}

// walkScalars calls fn for every multi-line string scalar under n, with the walk's path
// (checker.WalkNodes: fn copies the path it keeps).
func walkScalars(n *yaml.Node, fn func(*yaml.Node, checker.Path)) {
	checker.WalkNodes(n, nil, 64, func(p checker.Path, n *yaml.Node) bool {
		if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "\n") {
			fn(n, p)
		}
		return true
	})
}

// mayHoldLoopback is a cheap pre-check before the scan.
func mayHoldLoopback(s string) bool {
	return strings.Contains(s, "localhost") || strings.Contains(s, "127.") || strings.Contains(s, "[::1]") || strings.Contains(s, "[0:0:0:0:0:0:0:1]")
}

var loopbackNeedles = [][]byte{[]byte("localhost"), []byte("127."), []byte("[::1]"), []byte("[0:0:0:0:0:0:0:1]")}

// kp302TextUses scans shell scripts, systemd units and TOML files line by line, outside
// comments, skipping ports opened by kubectl port-forward in the same file.
func kp302TextUses(ws *checker.Workspace) []kp302Use {
	var out []kp302Use
	for _, f := range ws.Files {
		if f.Format != checker.FormatText || f.Parent != nil {
			continue
		}
		found := false
		for _, n := range loopbackNeedles {
			if bytes.Contains(f.Content, n) {
				found = true
				break
			}
		}
		if !found {
			continue
		}
		kind := loopbackTextKind(f.Path, f.Content)
		if kind == textOther {
			continue
		}
		forwarded := map[int]bool{}
		type lineRefs struct {
			line  int
			code  string
			start int
			refs  []loopbackRef
		}
		var pending []lineRefs
		for l := 1; l <= f.Lines.Lines(); l++ {
			text := f.Lines.LineText(l)
			code := text[:codePart(text, kind)]
			if code == "" {
				continue
			}
			for _, port := range portForwardPorts(code) {
				forwarded[port] = true
			}
			if !mayHoldLoopback(code) {
				continue
			}
			refs := findLoopbackRefs(code)
			if len(refs) > 0 {
				pending = append(pending, lineRefs{line: l, code: code, start: f.Lines.LineStart(l), refs: refs})
			}
		}
		for _, lr := range pending {
			for _, r := range lr.refs {
				if forwarded[r.Port] || kp302PathSegment(lr.code, r) || kp302SearchPattern(lr.code, r) {
					continue
				}
				out = append(out, kp302Use{
					file: f.Path, pos: f.PositionAt(lr.start + r.From), end: f.PositionAt(lr.start + r.To),
					what: lr.code[r.From:r.To], port: r.Port, ipv6: r.IPv6, text: true,
				})
			}
		}
	}
	return out
}

// kp302PathSegment reports whether a reference is a directory name in a path, such as
// containerd's certs.d/localhost:32000/hosts.toml: a registry's name, not a connection.
func kp302PathSegment(s string, r loopbackRef) bool {
	if r.From == 0 || s[r.From-1] != '/' {
		return false
	}
	return r.From < 2 || s[r.From-2] != '/'
}

// kp302SearchPattern reports whether the address at r is an argument of a search command
// (grep and its kin) on its line: `grep -qs localhost:32000 /etc/docker/daemon.json` looks
// for the text, it does not connect.
func kp302SearchPattern(s string, r loopbackRef) bool {
	seg := s[:r.From]
	for _, sep := range []string{"|", ";", "&&", "$(", "`", "(", "{"} {
		if i := strings.LastIndex(seg, sep); i >= 0 {
			seg = seg[i+len(sep):]
		}
	}
	for _, w := range strings.Fields(seg) {
		switch w {
		case "if", "!", "then", "do", "while", "until", "elif", "else", "sudo", "command":
			continue
		}
		switch path.Base(w) {
		case "grep", "egrep", "fgrep", "zgrep", "rg", "ag":
			return true
		}
		return false
	}
	return false
}

// kp302ScrapeUses finds loopback targets in standalone Prometheus configurations
// (scrape_configs[].static_configs[].targets[]), which run on a host. A configuration
// inside a ConfigMap is scraped from a Pod with its own loopback and is not scanned.
func kp302ScrapeUses(ws *checker.Workspace) []kp302Use {
	var out []kp302Use
	for _, d := range ws.Docs {
		if d.Parent != nil || d.Kind != "" {
			continue
		}
		_, scs := d.Lookup(checker.Path{"scrape_configs"})
		if scs == nil || scs.Kind != yaml.SequenceNode {
			continue
		}
		for i, sc := range scs.Content {
			_, statics := checker.LookupNode(sc, checker.Path{"static_configs"})
			if statics == nil || statics.Kind != yaml.SequenceNode {
				continue
			}
			for j, st := range statics.Content {
				_, ts := checker.LookupNode(st, checker.Path{"targets"})
				if ts == nil || ts.Kind != yaml.SequenceNode {
					continue
				}
				for k, t := range ts.Content {
					if t.Kind != yaml.ScalarNode {
						continue
					}
					for _, r := range findLoopbackRefs(t.Value) {
						pos, end := d.SubPos(t, r.From, r.To)
						out = append(out, kp302Use{
							file: d.File.Path, pos: pos, end: end, obj: d.Ref(),
							path: checker.P("scrape_configs", i, "static_configs", j, "targets", k),
							what: "scrape target " + t.Value[r.From:r.To], port: r.Port, ipv6: r.IPv6, text: true,
						})
					}
				}
			}
		}
	}
	return out
}

// kindHostPort is a host port that a kind cluster maps to a node's port.
type kindHostPort struct {
	file string
	port int
}

// kp302KindHostPorts lists the hostPorts of kind extraPortMappings: on the machine running
// kind, localhost:<hostPort> reaches the node container's port, not a loopback NodePort.
func kp302KindHostPorts(ws *checker.Workspace) []kindHostPort {
	var out []kindHostPort
	for _, d := range ws.Docs {
		if d.Kind != "Cluster" || !strings.HasPrefix(d.APIVersion, "kind.x-k8s.io/") {
			continue
		}
		_, nodes := d.Lookup(checker.Path{"nodes"})
		if nodes == nil || nodes.Kind != yaml.SequenceNode {
			continue
		}
		for _, n := range nodes.Content {
			_, maps := checker.LookupNode(n, checker.Path{"extraPortMappings"})
			if maps == nil || maps.Kind != yaml.SequenceNode {
				continue
			}
			for _, m := range maps.Content {
				_, hp := checker.LookupNode(m, checker.Path{"hostPort"})
				if hp == nil {
					continue
				}
				if port, err := strconv.Atoi(hp.Value); err == nil {
					out = append(out, kindHostPort{file: d.File.Outer().Path, port: port})
				}
			}
		}
	}
	return out
}

func kp302KindMapped(idx *checker.ScopeIndex, ports []kindHostPort, file string, port int) bool {
	for _, k := range ports {
		if k.port == port && idx.Same(file, k.file) {
			return true
		}
	}
	return false
}

// outsideShellComments drops the references that sit in a shell comment of a command or
// argument (a "sh -c" script): "#" at a line start or after a blank, outside quotes.
func outsideShellComments(s string, refs []loopbackRef) []loopbackRef {
	if !strings.Contains(s, "#") {
		return refs
	}
	var out []loopbackRef
	start := 0
	for _, line := range strings.SplitAfter(s, "\n") {
		cut := start + codePart(strings.TrimRight(line, "\n"), textShell)
		for _, r := range refs {
			if r.From >= start && r.From < start+len(line) && r.To <= cut {
				out = append(out, r)
			}
		}
		start += len(line)
	}
	return out
}
