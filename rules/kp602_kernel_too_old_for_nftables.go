package rules

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP602 flags node pools whose kernels are too old for nftables mode in a cluster that runs it
// or is moving to it.
var KP602 = &checker.Rule{
	ID:       "KP602",
	Name:     "kernel-too-old-for-nftables",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"Node", "NodeList", "List"},
	Doc: withProse("kp602_kernel_too_old_for_nftables.md", checker.Doc{
		Title:        "nodes run a kernel too old for nftables mode",
		Since:        "0.1.0",
		SeverityText: "error when the scope runs nftables mode; warning when it is moving to nftables (mode unset, or ipvs)",
	}),
	Run: runKP602,
}

// kp602MaxRelated bounds the other nodes listed as related locations.
const kp602MaxRelated = 5

// kp602Scope is a cluster with its kube-proxies and nodes.
type kp602Scope struct {
	instances []*checker.Instance
	nodes     []checker.Node
}

func runKP602(p *checker.Pass) error {
	ws := p.Workspace
	if len(ws.Nodes) == 0 {
		return nil
	}
	replaced := ws.Replaced()
	byScope := map[string]*kp602Scope{}
	var order []string
	for _, in := range ws.Instances {
		if runsOnWindows(in) || !in.KubeProxyRemains() || in.IsDisabled() {
			continue
		}
		f := instanceFile(in)
		if _, quiet := replaced.Quiet(f); quiet {
			continue
		}
		c := ws.ClusterOf(f)
		key := ws.ClusterKey(f)
		s := byScope[key]
		if s == nil {
			s = &kp602Scope{nodes: ws.NodesFor(c)}
			byScope[key] = s
			order = append(order, key)
		}
		s.instances = append(s.instances, in)
	}
	sort.Strings(order)
	type pending struct {
		f   checker.Finding
		sev checker.Severity
	}
	best := map[checker.Position]pending{}
	var keys []checker.Position
	for _, key := range order {
		s := byScope[key]
		in, sev, why := kp602Decide(p, s.instances)
		if in == nil {
			continue
		}
		ip := p.ForInstance(in)
		for _, pool := range checker.Pools(s.nodes) {
			f, ok := kp602Finding(ip, in, pool, sev, why)
			if !ok {
				continue
			}
			if prev, seen := best[f.Pos]; seen && prev.sev >= sev {
				continue
			} else if !seen {
				keys = append(keys, f.Pos)
			}
			best[f.Pos] = pending{f, sev}
		}
	}
	for _, k := range keys {
		p.Report(best[k].f)
	}
	return nil
}

// kp602Decide picks the kube-proxy of a scope that decides the severity: one running nftables
// at its target (error), else one moving to nftables or running ipvs (warning).
func kp602Decide(p *checker.Pass, ins []*checker.Instance) (*checker.Instance, checker.Severity, string) {
	var warn *checker.Instance
	var warnWhy string
	for _, in := range ins {
		t := p.ForInstance(in).Target()
		m := in.Mode(t)
		switch {
		case m.Value == checker.ModeNFTables:
			return in, checker.SeverityError, "kube-proxy runs nftables mode here and exits at startup on these nodes"
		case warn != nil:
		case m.Value == checker.ModeIPVS:
			warn, warnWhy = in, "ipvs mode exits from 1.40 and is removed in 1.43, and nftables mode would exit at startup on these nodes: move them to iptables first, not to the KubeProxyIPVS gate"
		default:
			if v, ok := in.MovesToNFTables(t); ok {
				warn, warnWhy = in, fmt.Sprintf("the mode is unset and becomes nftables from %s, which exits at startup on these nodes: pin iptables until they are upgraded", v)
			}
		}
	}
	return warn, checker.SeverityWarning, warnWhy
}

// kp602Finding reports the pool's first node whose kernel is too old, if any.
func kp602Finding(p *checker.Pass, in *checker.Instance, pool checker.NodePool, sev checker.Severity, why string) (checker.Finding, bool) {
	var old []checker.Node
	kernels := map[string]bool{}
	for _, n := range pool.Nodes {
		if !n.NFTablesReady() {
			old = append(old, n)
			kernels[n.KernelVersion.String()] = true
		}
	}
	if len(old) == 0 {
		return checker.Finding{}, false
	}
	ks := make([]string, 0, len(kernels))
	for k := range kernels {
		ks = append(ks, "Linux "+k)
	}
	sort.Strings(ks)
	first := old[0]
	who := "nodes without a pool label"
	if pool.Name != "" {
		who = "node pool " + pool.Name + " (" + pool.Label + ")"
	}
	msg := fmt.Sprintf("%s: %d of %d nodes run %s, older than the Linux %s that nftables mode needs; %s",
		who, len(old), len(pool.Nodes), strings.Join(ks, ", "), checker.NFTablesMinKernel, why)
	if h := checker.OSHint(first.OSImage); h != "" {
		msg += " (" + h + ")"
	}
	var related []checker.Related
	if pos, end, ok := in.Mode(p.Target()).Where(); ok {
		related = append(related, checker.Related{Pos: pos, End: end, Message: fmt.Sprintf("%s runs in %s mode", in.Label, describeMode(in, p.Target()))})
	}
	for _, n := range old[1:] {
		if len(related) > kp602MaxRelated {
			break
		}
		related = append(related, checker.Related{Pos: n.Pos, End: n.End, Message: "node " + n.Name + " runs kernel " + n.Kernel})
	}
	// The finding is in the node inventory, but it is about this kube-proxy's cluster: it
	// carries that cluster's target and scope.
	t := p.BoundTarget()
	return checker.Finding{Severity: sev, Message: p.InCluster(msg), Pos: first.Pos, End: first.End, Related: related, Target: &t}, true
}

// describeMode names an instance's mode at target: "ipvs", "iptables (the default)".
func describeMode(in *checker.Instance, t checker.Version) string {
	m := in.Mode(t)
	if m.Origin == checker.OriginDefault || m.Origin == checker.OriginInstallerDefault {
		return m.Value + " (the default)"
	}
	return m.Value
}
