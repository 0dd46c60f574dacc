package rules

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	kpv1 "k8s.io/kube-proxy/config/v1alpha1"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// KP003 reports values that kube-proxy's validation rejects at the target version, so that
// kube-proxy exits at startup.
var KP003 = &checker.Rule{
	ID:       "KP003",
	Name:     "invalid-value",
	Severity: checker.SeverityError,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap", "DaemonSet", "Pod"},
	Doc: withProse("kp003_invalid_value.md", checker.Doc{
		Title:  "value that kube-proxy rejects at startup",
		Before: "apiVersion: kubeproxy.config.k8s.io/v1beta1\nkind: KubeProxyConfiguration\nnodePortAddresses: [\"10.0.0.1\", \"primary\"]\niptables:\n  masqueradeBit: 40\n",
		After:  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnodePortAddresses: [\"10.0.0.0/24\"]\niptables:\n  masqueradeBit: 14\n",
		Since:  "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Set a wrong apiVersion to ` + "`kubeproxy.config.k8s.io/v1alpha1`" + `, or add it when it is missing. kube-proxy exits on the file as it is, so the repaired file starts a kube-proxy that did not run.`, Safety: checker.Unsafe, Preferred: true},
		},
	}),
	Run: runKP003,
}

const (
	kp003APIVersion = "kubeproxy.config.k8s.io/v1alpha1"
	kp003Exits      = "kube-proxy exits at startup"
)

var (
	kp003NPAKeywords  = []string{"primary", "localhost", "all"}
	kp003LocalModes   = []string{"ClusterCIDR", "NodeCIDR", "BridgeInterface", "InterfaceNamePrefix"}
	kp003DefaultSync  = 30 * time.Second
	kp003TemplateMark = []string{"{{", "{%", "<%", "${"}
)

// kp003 is one run of the rule: it reports each finding once, even when several kube-proxy
// instances share a configuration.
type kp003 struct {
	p    *checker.Pass
	seen map[string]bool
}

func runKP003(p *checker.Pass) error {
	k := &kp003{p: p, seen: map[string]bool{}}
	for _, d := range p.Workspace.Docs {
		if d.Kind == "KubeProxyConfiguration" {
			k.apiVersion(d)
		}
	}
	for _, in := range p.Workspace.Instances {
		k.p = p.ForInstance(in)
		if in.HasConfigFlag() {
			if in.Config != nil {
				k.config(in, in.Config)
			}
			continue
		}
		k.flags(in)
	}
	return nil
}

func (k *kp003) report(f checker.Finding) {
	key := fmt.Sprintf("%s:%d:%s", f.Pos.Filename, f.Pos.Offset, f.Message)
	if k.seen[key] {
		return
	}
	k.seen[key] = true
	k.p.Report(f)
}

// value reports on the value at path, which the caller has checked exists.
func (k *kp003) value(d *checker.Document, path checker.Path, msg string, fixes ...checker.Fix) {
	pos, end, ok := d.ValuePos(path)
	if !ok {
		pos, end = d.AbsentPos(path)
	}
	k.report(checker.Finding{Message: msg, Pos: pos, End: end, Object: d.Ref(), Path: path, Fixes: fixes})
}

// ---- apiVersion ----

func (k *kp003) apiVersion(d *checker.Document) {
	if d.APIVersion == kp003APIVersion {
		return
	}
	for _, m := range kp003TemplateMark {
		if strings.Contains(d.APIVersion, m) {
			return
		}
	}
	key, v := d.Lookup(checker.Path{"apiVersion"})
	if v == nil || v.Kind != yaml.ScalarNode || v.Value == "" || v.Tag == "!!null" {
		msg := "KubeProxyConfiguration has no apiVersion: kube-proxy cannot decode it and exits; set apiVersion " + kp003APIVersion
		pos, end := d.KindPos()
		var fixes []checker.Fix
		if key == nil {
			if fix, ok := kp003InsertAPIVersion(d); ok {
				fixes = append(fixes, fix)
			}
		}
		k.report(checker.Finding{Message: msg, Pos: pos, End: end, Object: d.Ref(), Path: checker.Path{"apiVersion"}, Fixes: fixes})
		return
	}
	msg := fmt.Sprintf("apiVersion %s does not exist for KubeProxyConfiguration: kube-proxy only reads %s and exits", v.Value, kp003APIVersion)
	var fixes []checker.Fix
	if e, ok := kp003ReplaceScalar(d, v, kp003APIVersion); ok {
		fixes = append(fixes, checker.Fix{Message: "Set apiVersion to " + kp003APIVersion, Edits: []checker.TextEdit{e}})
	}
	k.value(d, checker.Path{"apiVersion"}, msg, fixes...)
}

// kp003ReplaceScalar replaces the source text of one-line scalar n with text, keeping its quotes.
func kp003ReplaceScalar(d *checker.Document, n *yaml.Node, text string) (checker.TextEdit, bool) {
	pos, end := d.NodePos(n), d.NodeEnd(n)
	src := d.File.Outer().Content
	if pos.Offset < 0 || end.Offset > len(src) || pos.Offset >= end.Offset || pos.Line != end.Line {
		return checker.TextEdit{}, false
	}
	raw := string(src[pos.Offset:end.Offset])
	switch n.Style {
	case 0:
		if raw != n.Value {
			return checker.TextEdit{}, false
		}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		if len(raw) < 2 || raw[1:len(raw)-1] != n.Value {
			return checker.TextEdit{}, false
		}
		text = raw[:1] + text + raw[:1]
	default:
		return checker.TextEdit{}, false
	}
	return checker.TextEdit{Pos: pos, End: end, NewText: text}, true
}

// kp003InsertAPIVersion inserts an apiVersion line above the kind key, with its indentation
// (which inside a ConfigMap block scalar is the block's indentation).
func kp003InsertAPIVersion(d *checker.Document) (checker.Fix, bool) {
	k, _ := d.Lookup(checker.Path{"kind"})
	if k == nil {
		return checker.Fix{}, false
	}
	pos := d.NodePos(k)
	outer := d.File.Outer()
	start := outer.Lines.LineStart(pos.Line)
	indent := string(outer.Content[start:pos.Offset])
	if strings.Trim(indent, " ") != "" {
		return checker.Fix{}, false
	}
	eol := "\n"
	if next := outer.Lines.LineStart(pos.Line + 1); next >= 2 && next <= len(outer.Content) && outer.Content[next-2] == '\r' {
		eol = "\r\n"
	}
	return checker.Fix{
		Message: "Add apiVersion " + kp003APIVersion,
		Edits:   []checker.TextEdit{{Pos: pos, End: pos, NewText: "apiVersion: " + kp003APIVersion + eol + indent}},
	}, true
}

// ---- configuration file ----

// kp003Set returns the value node at path and whether the field is written: present, not
// null and not empty (kube-proxy defaults empty values).
func kp003Set(d *checker.Document, path checker.Path) (*yaml.Node, bool) {
	_, v := d.Lookup(path)
	if v == nil || (v.Kind == yaml.ScalarNode && (v.Tag == "!!null" || v.Value == "" || text.HasPlaceholder(v.Value))) {
		// Unset, or set by a template placeholder whose value is not known here.
		return v, false
	}
	return v, true
}

func (k *kp003) config(in *checker.Instance, d *checker.Document) {
	c, _ := d.Object.(*kpv1.KubeProxyConfiguration)
	if c == nil {
		return // did not decode: KP001
	}
	t := k.p.Target()
	mode := in.Mode(t).Value
	section := "iptables"
	switch mode {
	case checker.ModeIPVS, checker.ModeNFTables:
		section = mode
	}

	// nodePortAddresses
	if _, seq := d.Lookup(checker.Path{"nodePortAddresses"}); seq != nil && seq.Kind == yaml.SequenceNode {
		vals := make([]string, len(seq.Content))
		for i, n := range seq.Content {
			vals[i] = n.Value
		}
		for _, pr := range kp003NodePortProblems(vals, t) {
			if text.HasPlaceholder(vals[pr.index]) {
				continue // a template placeholder: its value is not known here
			}
			k.value(d, checker.P("nodePortAddresses", pr.index), "nodePortAddresses entry "+pr.msg)
		}
	}

	// masquerade bits: iptables always, nftables in nftables mode.
	bits := []struct {
		section string
		v       *int32
	}{{"iptables", c.IPTables.MasqueradeBit}}
	if mode == checker.ModeNFTables {
		bits = append(bits, struct {
			section string
			v       *int32
		}{"nftables", c.NFTables.MasqueradeBit})
	}
	for _, b := range bits {
		path := checker.Path{b.section, "masqueradeBit"}
		if n, ok := kp003Set(d, path); ok && b.v != nil && (*b.v < 0 || *b.v > 31) {
			k.value(d, path, fmt.Sprintf("%s %s is not between 0 and 31: %s", path, n.Value, kp003Exits))
		}
	}

	// Sync periods of the section the mode reads; before 1.31 iptables is validated in every mode.
	sections := []string{section}
	if !t.AtLeast(31) && section != "iptables" {
		sections = append(sections, "iptables")
	}
	for _, s := range sections {
		k.syncPeriods(d, c, s)
	}

	// Addresses.
	if n, ok := kp003Set(d, checker.Path{"bindAddress"}); ok && !kp003IsIP(n.Value) {
		hint := ""
		if _, _, err := net.SplitHostPort(n.Value); err == nil {
			hint = " (it takes no port)"
		}
		k.value(d, checker.Path{"bindAddress"}, fmt.Sprintf("bindAddress %q is not an IP address%s: %s", n.Value, hint, kp003Exits))
	}
	for _, f := range []string{"healthzBindAddress", "metricsBindAddress"} {
		if n, ok := kp003Set(d, checker.Path{f}); ok {
			if msg := kp003HostPort(n.Value); msg != "" {
				k.value(d, checker.Path{f}, fmt.Sprintf("%s %q %s: %s", f, n.Value, msg, kp003Exits))
			}
		}
	}

	// Ranges and signs.
	if n, ok := kp003Set(d, checker.Path{"oomScoreAdj"}); ok && c.OOMScoreAdj != nil && (*c.OOMScoreAdj < -1000 || *c.OOMScoreAdj > 1000) {
		k.value(d, checker.Path{"oomScoreAdj"}, fmt.Sprintf("oomScoreAdj %s is not between -1000 and 1000: %s", n.Value, kp003Exits))
	}
	ints := []struct {
		path checker.Path
		v    *int32
	}{
		{checker.Path{"conntrack", "maxPerCore"}, c.Conntrack.MaxPerCore},
		{checker.Path{"conntrack", "min"}, c.Conntrack.Min},
		{checker.Path{"clientConnection", "burst"}, &c.ClientConnection.Burst},
	}
	for _, i := range ints {
		if n, ok := kp003Set(d, i.path); ok && i.v != nil && *i.v < 0 {
			k.value(d, i.path, fmt.Sprintf("%s %s is negative: %s", i.path, n.Value, kp003Exits))
		}
	}
	var established, closeWait time.Duration
	if c.Conntrack.TCPEstablishedTimeout != nil {
		established = c.Conntrack.TCPEstablishedTimeout.Duration
	}
	if c.Conntrack.TCPCloseWaitTimeout != nil {
		closeWait = c.Conntrack.TCPCloseWaitTimeout.Duration
	}
	durs := []struct {
		path checker.Path
		v    time.Duration
	}{
		{checker.Path{"conntrack", "tcpEstablishedTimeout"}, established},
		{checker.Path{"conntrack", "tcpCloseWaitTimeout"}, closeWait},
		{checker.Path{"conntrack", "udpTimeout"}, c.Conntrack.UDPTimeout.Duration},
		{checker.Path{"conntrack", "udpStreamTimeout"}, c.Conntrack.UDPStreamTimeout.Duration},
		{checker.Path{"configSyncPeriod"}, c.ConfigSyncPeriod.Duration},
	}
	if mode == checker.ModeIPVS {
		durs = append(durs, []struct {
			path checker.Path
			v    time.Duration
		}{
			{checker.Path{"ipvs", "tcpTimeout"}, c.IPVS.TCPTimeout.Duration},
			{checker.Path{"ipvs", "tcpFinTimeout"}, c.IPVS.TCPFinTimeout.Duration},
			{checker.Path{"ipvs", "udpTimeout"}, c.IPVS.UDPTimeout.Duration},
		}...)
		if _, seq := d.Lookup(checker.Path{"ipvs", "excludeCIDRs"}); seq != nil && seq.Kind == yaml.SequenceNode {
			for i, n := range seq.Content {
				if !kp003IsCIDR(n.Value) {
					k.value(d, checker.P("ipvs", "excludeCIDRs", i), fmt.Sprintf("ipvs.excludeCIDRs entry %q is not a CIDR: %s", n.Value, kp003Exits))
				}
			}
		}
	}
	for _, du := range durs {
		if n, ok := kp003Set(d, du.path); ok && du.v < 0 {
			k.value(d, du.path, fmt.Sprintf("%s %s is negative: %s", du.path, n.Value, kp003Exits))
		}
	}

	// Local traffic detection.
	localMode := ""
	if n, ok := kp003Set(d, checker.Path{"detectLocalMode"}); ok {
		localMode = n.Value
		k.detectLocal(d, c, n)
	}
	if n, ok := kp003Set(d, checker.Path{"clusterCIDR"}); ok && (!t.AtLeast(31) || localMode == "" || localMode == "ClusterCIDR") {
		for _, pr := range kp003ClusterCIDR(n.Value) {
			pos, end := d.SubPos(n, pr.from, pr.to)
			k.report(checker.Finding{Message: "clusterCIDR " + pr.msg + ": " + kp003Exits, Pos: pos, End: end, Object: d.Ref(), Path: checker.Path{"clusterCIDR"}})
		}
	}
}

// syncPeriods checks syncPeriod and minSyncPeriod of one section. Unset and zero values take
// kube-proxy's defaults, so only written values can be wrong.
func (k *kp003) syncPeriods(d *checker.Document, c *kpv1.KubeProxyConfiguration, section string) {
	var sync, minSync time.Duration
	defMin := time.Second
	switch section {
	case "iptables":
		sync, minSync = c.IPTables.SyncPeriod.Duration, c.IPTables.MinSyncPeriod.Duration
	case "ipvs":
		sync, minSync = c.IPVS.SyncPeriod.Duration, c.IPVS.MinSyncPeriod.Duration
		defMin = 0
	case "nftables":
		sync, minSync = c.NFTables.SyncPeriod.Duration, c.NFTables.MinSyncPeriod.Duration
	}
	syncPath, minPath := checker.Path{section, "syncPeriod"}, checker.Path{section, "minSyncPeriod"}
	syncNode, syncSet := kp003Set(d, syncPath)
	minNode, minSet := kp003Set(d, minPath)
	syncSet = syncSet && sync != 0
	minSet = minSet && minSync != 0
	bad := false
	if syncSet && sync < 0 {
		k.value(d, syncPath, fmt.Sprintf("%s %s is not greater than 0: %s", syncPath, syncNode.Value, kp003Exits))
		bad = true
	}
	if minSet && minSync < 0 {
		k.value(d, minPath, fmt.Sprintf("%s %s is negative: %s", minPath, minNode.Value, kp003Exits))
		bad = true
	}
	if bad || (!syncSet && !minSet) {
		return
	}
	effSync, effMin := kp003DefaultSync, defMin
	syncText, minText := "(default 30s)", fmt.Sprintf("(default %s)", defMin)
	if syncSet {
		effSync, syncText = sync, syncNode.Value
	}
	if minSet {
		effMin, minText = minSync, minNode.Value
	}
	if effMin <= effSync {
		return
	}
	if minSet {
		k.value(d, minPath, fmt.Sprintf("%s %s is longer than %s %s: %s", minPath, minText, syncPath, syncText, kp003Exits))
	} else {
		k.value(d, syncPath, fmt.Sprintf("%s %s is shorter than %s %s: %s", syncPath, syncText, minPath, minText, kp003Exits))
	}
}

func (k *kp003) detectLocal(d *checker.Document, c *kpv1.KubeProxyConfiguration, n *yaml.Node) {
	path := checker.Path{"detectLocalMode"}
	v := n.Value
	valid := false
	for _, m := range kp003LocalModes {
		if v == m {
			valid = true
		}
	}
	if !valid {
		hint := ""
		for _, m := range kp003LocalModes {
			if strings.EqualFold(v, m) {
				hint = " (values are case-sensitive: " + m + ")"
			}
		}
		k.value(d, path, fmt.Sprintf("detectLocalMode %q is not one of %s%s: %s", v, strings.Join(kp003LocalModes, ", "), hint, kp003Exits))
		return
	}
	var field, got string
	switch v {
	case "BridgeInterface":
		field, got = "bridgeInterface", c.DetectLocal.BridgeInterface
	case "InterfaceNamePrefix":
		field, got = "interfaceNamePrefix", c.DetectLocal.InterfaceNamePrefix
	default:
		return
	}
	if got != "" || text.HasPlaceholder(d.Str(checker.Path{"detectLocal", field})) {
		return // set, or set by a template placeholder
	}
	msg := fmt.Sprintf("detectLocalMode %s needs detectLocal.%s, which is not set: %s", v, field, kp003Exits)
	fp := checker.Path{"detectLocal", field}
	switch {
	case d.Has(fp):
		k.value(d, fp, msg)
	case d.Has(checker.Path{"detectLocal"}):
		pos, end, _ := d.KeyPos(checker.Path{"detectLocal"})
		k.report(checker.Finding{Message: msg, Pos: pos, End: end, Object: d.Ref(), Path: fp})
	default:
		k.value(d, path, msg)
	}
}

// ---- shared value checks ----

type kp003Problem struct {
	index    int
	from, to int
	msg      string
}

// kp003NodePortProblems validates nodePortAddresses entries as kube-proxy at target does. Each
// message starts with the entry and ends with the consequence.
func kp003NodePortProblems(vals []string, t checker.Version) []kp003Problem {
	var out []kp003Problem
	add := func(i int, format string, args ...any) {
		out = append(out, kp003Problem{index: i, msg: fmt.Sprintf("%q ", vals[i]) + fmt.Sprintf(format, args...) + ": " + kp003Exits})
	}
	isKW := func(s string) bool {
		for _, k := range kp003NPAKeywords {
			if s == k {
				return true
			}
		}
		return false
	}
	caseHint := func(s string) string {
		for _, k := range kp003NPAKeywords {
			if s != k && strings.EqualFold(s, k) {
				return " (keywords are lowercase: " + k + ")"
			}
		}
		return ""
	}
	switch {
	case t.AtLeast(37):
		seen := map[string]bool{}
		for i, v := range vals {
			if isKW(v) {
				if seen[v] {
					add(i, "repeats the keyword %s", v)
				}
				seen[v] = true
				continue
			}
			if !kp003IsCIDR(v) {
				add(i, "is not a CIDR or one of the keywords primary, localhost, all%s", caseHint(v))
			}
		}
	case t.AtLeast(31):
		for i, v := range vals {
			if v == "primary" {
				if i != 0 || len(vals) != 1 {
					add(i, "is mixed with other entries: before 1.37 primary must be the only entry (target %s)", t)
				}
				break // kube-proxy stops checking here
			}
			switch {
			case isKW(v):
				add(i, "is a keyword only from 1.37 (target %s); entries must be CIDRs or primary alone", t)
			case !kp003IsCIDR(v):
				add(i, "is not a CIDR or primary%s", caseHint(v))
			}
		}
	default:
		for i, v := range vals {
			switch {
			case v == "primary":
				add(i, "is a keyword only from 1.31 (target %s); entries must be CIDRs", t)
			case isKW(v):
				add(i, "is a keyword only from 1.37 (target %s); entries must be CIDRs", t)
			case !kp003IsCIDR(v):
				add(i, "is not a CIDR")
			}
		}
	}
	return out
}

// kp003ClusterCIDR validates a clusterCIDR value: one CIDR or an IPv4/IPv6 pair, comma-separated.
// Problems carry byte ranges inside the value.
func kp003ClusterCIDR(s string) []kp003Problem {
	var out []kp003Problem
	parts := strings.Split(s, ",")
	if len(parts) > 2 {
		return []kp003Problem{{from: 0, to: len(s), msg: fmt.Sprintf("%q lists %d CIDRs; at most one per IP family is allowed", s, len(parts))}}
	}
	var fams []bool
	off := 0
	for _, part := range parts {
		v := strings.TrimSpace(part)
		lead := strings.Index(part, v)
		if v == "" {
			return []kp003Problem{{from: 0, to: len(s), msg: fmt.Sprintf("%q has an empty entry", s)}}
		}
		if !kp003IsCIDR(v) {
			out = append(out, kp003Problem{from: off + lead, to: off + lead + len(v), msg: fmt.Sprintf("entry %q is not a CIDR", v)})
		} else {
			fams = append(fams, kp003Is4(v))
		}
		off += len(part) + 1
	}
	if len(out) == 0 && len(fams) == 2 && fams[0] == fams[1] {
		out = append(out, kp003Problem{from: 0, to: len(s), msg: fmt.Sprintf("%q has two CIDRs of the same IP family; a pair must be one IPv4 and one IPv6 CIDR", s)})
	}
	return out
}

// kp003Sloppy rewrites IPv4 octets with leading zeros ("010.0.0.1"), which kube-proxy's
// parser (k8s.io/utils/net, "sloppy") accepts and net/netip does not.
func kp003Sloppy(s string) string {
	host, suffix, _ := strings.Cut(s, "/")
	if strings.Contains(host, ":") {
		return s
	}
	parts := strings.Split(host, ".")
	if len(parts) != 4 {
		return s
	}
	for i, p := range parts {
		if len(p) > 1 {
			t := strings.TrimLeft(p, "0")
			if t == "" {
				t = "0"
			}
			parts[i] = t
		}
	}
	out := strings.Join(parts, ".")
	if strings.Contains(s, "/") {
		out += "/" + suffix
	}
	return out
}

func kp003IsIP(s string) bool {
	if strings.Contains(s, "%") {
		return false // zones are not accepted
	}
	_, err := netip.ParseAddr(s)
	if err != nil {
		_, err = netip.ParseAddr(kp003Sloppy(s))
	}
	return err == nil
}

func kp003IsCIDR(s string) bool {
	_, err := netip.ParsePrefix(s)
	if err != nil {
		_, err = netip.ParsePrefix(kp003Sloppy(s))
	}
	return err == nil
}

func kp003Is4(cidr string) bool {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		p, err = netip.ParsePrefix(kp003Sloppy(cidr))
	}
	return err == nil && p.Addr().Unmap().Is4() && !strings.Contains(cidr, ":")
}

// kp003HostPort checks a healthz or metrics bind address: an IP (kube-proxy adds the default
// port) or IP:port. It returns "" when valid, else what is wrong.
func kp003HostPort(s string) string {
	if kp003IsIP(s) {
		return ""
	}
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return "is not an IP or IP:port"
	}
	if !kp003IsIP(host) {
		return fmt.Sprintf("has host %q, which is not an IP address", host)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return fmt.Sprintf("has port %q, which is not a port between 1 and 65535", port)
	}
	return ""
}

// ---- flags (kube-proxy without --config) ----

func (k *kp003) flags(in *checker.Instance) {
	t := k.p.Target()
	mode := in.Mode(t).Value
	flagAt := func(f *checker.Flag, msg string) {
		k.report(checker.Finding{Message: msg, Pos: f.Pos, End: f.End, Object: f.Doc.Ref(), Path: f.NodePath, Related: append([]checker.Related(nil), f.Via...)})
	}
	get := func(name string) *checker.Flag {
		f := in.Flag(name)
		if f == nil || !f.HasValue || text.HasPlaceholder(f.Value) {
			// A placeholder's value is unknown, never invalid.
			return nil
		}
		return f
	}

	if f := get("nodeport-addresses"); f != nil {
		var vals []string
		var spans [][2]int
		off := 0
		for _, part := range strings.Split(f.Value, ",") {
			v := strings.TrimSpace(part)
			if v != "" {
				lead := strings.Index(part, v)
				vals = append(vals, v)
				spans = append(spans, [2]int{off + lead, off + lead + len(v)})
			}
			off += len(part) + 1
		}
		for _, pr := range kp003NodePortProblems(vals, t) {
			pos, end := kp003FlagSub(f, spans[pr.index][0], spans[pr.index][1])
			k.report(checker.Finding{Message: "--nodeport-addresses entry " + pr.msg, Pos: pos, End: end, Object: f.Doc.Ref(), Path: f.NodePath})
		}
	}

	intFlags := []struct {
		name     string
		min, max int64
		rangeMsg string
	}{
		{"iptables-masquerade-bit", 0, 31, "is not between 0 and 31"},
		{"oom-score-adj", -1000, 1000, "is not between -1000 and 1000"},
		{"conntrack-max-per-core", 0, 1<<31 - 1, "is negative"},
		{"conntrack-min", 0, 1<<31 - 1, "is negative"},
	}
	for _, fl := range intFlags {
		f := get(fl.name)
		if f == nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(f.Value), 0, 32)
		switch {
		case err != nil:
			flagAt(f, fmt.Sprintf("--%s value %q is not an integer: %s", fl.name, f.Value, kp003Exits))
		case n < fl.min || n > fl.max:
			flagAt(f, fmt.Sprintf("--%s %s %s: %s", fl.name, f.Value, fl.rangeMsg, kp003Exits))
		}
	}

	// Durations: a value that does not parse is fatal for every flag; the sign and the
	// sync period relation only for the flags the mode uses.
	durs := map[string]time.Duration{}
	for _, name := range []string{
		"conntrack-tcp-timeout-established", "conntrack-tcp-timeout-close-wait", "conntrack-udp-timeout",
		"conntrack-udp-timeout-stream", "config-sync-period", "iptables-sync-period", "iptables-min-sync-period",
		"ipvs-sync-period", "ipvs-min-sync-period", "ipvs-tcp-timeout", "ipvs-tcpfin-timeout", "ipvs-udp-timeout",
	} {
		f := get(name)
		if f == nil {
			continue
		}
		v, err := time.ParseDuration(strings.TrimSpace(f.Value))
		if err != nil {
			flagAt(f, fmt.Sprintf("--%s value %q is not a duration (use a unit, such as 30s): %s", name, f.Value, kp003Exits))
			continue
		}
		durs[name] = v
	}
	for _, name := range []string{"conntrack-tcp-timeout-established", "conntrack-tcp-timeout-close-wait", "conntrack-udp-timeout", "conntrack-udp-timeout-stream"} {
		if v, ok := durs[name]; ok && v < 0 {
			flagAt(in.Flag(name), fmt.Sprintf("--%s %s is negative: %s", name, in.Flag(name).Value, kp003Exits))
		}
	}
	if mode == checker.ModeIPVS {
		for _, name := range []string{"ipvs-tcp-timeout", "ipvs-tcpfin-timeout", "ipvs-udp-timeout"} {
			if v, ok := durs[name]; ok && v < 0 {
				flagAt(in.Flag(name), fmt.Sprintf("--%s %s is negative: %s", name, in.Flag(name).Value, kp003Exits))
			}
		}
	}
	if v, ok := durs["config-sync-period"]; ok && v <= 0 {
		flagAt(in.Flag("config-sync-period"), fmt.Sprintf("--config-sync-period %s is not greater than 0: %s", in.Flag("config-sync-period").Value, kp003Exits))
	}
	prefixes := []string{"iptables"}
	if mode == checker.ModeIPVS {
		prefixes = []string{"ipvs"}
		if !t.AtLeast(31) {
			prefixes = append(prefixes, "iptables")
		}
	}
	for _, pre := range prefixes {
		k.syncFlags(in, durs, pre)
	}

	// Addresses.
	if f := get("bind-address"); f != nil && strings.TrimSpace(f.Value) != "" && !kp003IsIP(strings.TrimSpace(f.Value)) {
		flagAt(f, fmt.Sprintf("--bind-address %q is not an IP address: %s", f.Value, kp003Exits))
	}
	for _, name := range []string{"healthz-bind-address", "metrics-bind-address"} {
		if f := get(name); f != nil && strings.TrimSpace(f.Value) != "" {
			if msg := kp003HostPort(strings.TrimSpace(f.Value)); msg != "" {
				flagAt(f, fmt.Sprintf("--%s %q %s: %s", name, f.Value, msg, kp003Exits))
			}
		}
	}

	// Local traffic detection.
	localMode := ""
	if f := get("detect-local-mode"); f != nil {
		localMode = f.Value
		valid := localMode == ""
		for _, m := range kp003LocalModes {
			if localMode == m {
				valid = true
			}
		}
		need := map[string]string{"BridgeInterface": "pod-bridge-interface", "InterfaceNamePrefix": "pod-interface-name-prefix"}
		switch {
		case !valid:
			hint := ""
			for _, m := range kp003LocalModes {
				if strings.EqualFold(localMode, m) {
					hint = " (values are case-sensitive: " + m + ")"
				}
			}
			flagAt(f, fmt.Sprintf("--detect-local-mode %q is not one of %s%s: %s", localMode, strings.Join(kp003LocalModes, ", "), hint, kp003Exits))
		case need[localMode] != "":
			if g := get(need[localMode]); g == nil || strings.TrimSpace(g.Value) == "" {
				flagAt(f, fmt.Sprintf("--detect-local-mode %s needs --%s, which is not set: %s", localMode, need[localMode], kp003Exits))
			}
		}
	}
	if f := get("cluster-cidr"); f != nil && strings.TrimSpace(f.Value) != "" && (!t.AtLeast(31) || localMode == "" || localMode == "ClusterCIDR") {
		for _, pr := range kp003ClusterCIDR(f.Value) {
			pos, end := kp003FlagSub(f, pr.from, pr.to)
			k.report(checker.Finding{Message: "--cluster-cidr " + pr.msg + ": " + kp003Exits, Pos: pos, End: end, Object: f.Doc.Ref(), Path: f.NodePath})
		}
	}
}

// syncFlags checks --PREFIX-sync-period and --PREFIX-min-sync-period. Flags are applied over
// the defaults, so a zero period stays zero and is rejected.
func (k *kp003) syncFlags(in *checker.Instance, durs map[string]time.Duration, prefix string) {
	syncName, minName := prefix+"-sync-period", prefix+"-min-sync-period"
	sync, syncSet := durs[syncName]
	minSync, minSet := durs[minName]
	report := func(name, msg string) {
		f := in.Flag(name)
		k.report(checker.Finding{Message: msg, Pos: f.Pos, End: f.End, Object: f.Doc.Ref(), Path: f.NodePath, Related: append([]checker.Related(nil), f.Via...)})
	}
	bad := false
	if syncSet && sync <= 0 {
		report(syncName, fmt.Sprintf("--%s %s is not greater than 0: %s", syncName, in.Flag(syncName).Value, kp003Exits))
		bad = true
	}
	if minSet && minSync < 0 {
		report(minName, fmt.Sprintf("--%s %s is negative: %s", minName, in.Flag(minName).Value, kp003Exits))
		bad = true
	}
	if bad || (!syncSet && !minSet) {
		return
	}
	defMin := time.Second
	if prefix == "ipvs" {
		defMin = 0
	}
	effSync, effMin := kp003DefaultSync, defMin
	syncText, minText := "(default 30s)", fmt.Sprintf("(default %s)", defMin)
	if syncSet {
		effSync, syncText = sync, in.Flag(syncName).Value
	}
	if minSet {
		effMin, minText = minSync, in.Flag(minName).Value
	}
	if effMin <= effSync {
		return
	}
	if minSet {
		report(minName, fmt.Sprintf("--%s %s is longer than --%s %s: %s", minName, minText, syncName, syncText, kp003Exits))
	} else {
		report(syncName, fmt.Sprintf("--%s %s is shorter than --%s %s: %s", syncName, syncText, minName, minText, kp003Exits))
	}
}

// kp003FlagSub returns the position of bytes [from, to) of a flag's value. It is exact when the
// value appears verbatim in the source (no quotes or escapes inside it), else it spans the value.
func kp003FlagSub(f *checker.Flag, from, to int) (checker.Position, checker.Position) {
	if f.Doc == nil {
		return textFlagSub(f, from, to)
	}
	outer := f.Doc.File.Outer()
	vp, ve := f.ValuePos, f.ValueEnd
	if vp.Offset < 0 || ve.Offset > len(outer.Content) || vp.Offset > ve.Offset ||
		string(outer.Content[vp.Offset:ve.Offset]) != f.Value || to > len(f.Value) {
		return vp, ve
	}
	return outer.Lines.Position(outer.Path, vp.Offset+from), outer.Lines.Position(outer.Path, vp.Offset+to)
}
