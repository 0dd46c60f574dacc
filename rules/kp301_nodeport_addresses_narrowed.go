package rules

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP301 flags nftables-mode kube-proxies without nodePortAddresses: nftables accepts
// NodePorts only on the node's primary IPs, where iptables and ipvs accepted them on all.
var KP301 = &checker.Rule{
	ID:       "KP301",
	Name:     "nodeport-addresses-narrowed",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"KubeProxyConfiguration", "DaemonSet", "Service"},
	Doc: withProse("kp301_nodeport_addresses_narrowed.md", checker.Doc{
		Title:  "nftables mode accepts NodePorts only on the node's primary IPs",
		Before: "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n",
		After:  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nnodePortAddresses: [\"primary\"]\n",
		Since:  "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Set ` + "`nodePortAddresses: [\"primary\"]`" + `, which is what nftables mode does when the field is unset; safe when the configuration itself sets ` + "`mode: nftables`" + `.`, Safety: checker.Safe, Preferred: true},
			{Text: `The same when nftables mode comes from the 1.40 default: the iptables mode that runs today would then accept NodePorts on the primary IPs only.`, Safety: checker.Unsafe, Preferred: true},
			{Text: `Set the version-correct form of "all" (` + "`[\"all\"]`" + ` from 1.37, ` + "`[\"0.0.0.0/0\", \"::/0\"]`" + ` before) to keep NodePorts on every node address.`, Safety: checker.Unsafe},
		},
		SeverityText: "warning when NodePort or LoadBalancer Services are in scope; info otherwise",
	}),
	Run: runKP301,
}

// kp301MaxRelated bounds the Services listed as related locations.
const kp301MaxRelated = 10

func runKP301(p *checker.Pass) error {
	seen := findingKeys{}
	nodePorts := p.Workspace.NodePorts()
	idx := p.Workspace.NewScopeIndex()
	// The NodePorts in scope of each scope class (ScopeIndex.Class): found once per class,
	// not once per kube-proxy.
	type scoped struct {
		related  []checker.Related
		services int
	}
	byClass := map[string]scoped{}
	for _, bi := range linuxInstancesEach(p) {
		in, p := bi.proxyInstance, bi.p
		if in.mode.Value != checker.ModeNFTables || !p.Target().AtLeast(31) {
			// Before 1.31 nftables mode (alpha and beta) accepted NodePorts on all IPs too.
			continue
		}
		addrs, s := in.NodePortAddresses()
		if len(addrs) > 0 || s.Origin != checker.OriginDefault || kindPatchesNodePortAddresses(in.Instance) {
			continue
		}
		pos, end, obj, ok := instanceAnchor(in.Instance)
		if !ok {
			continue
		}
		sc, ok := byClass[idx.Class(in.file)]
		if !ok {
			services := map[*checker.Document]bool{}
			for _, np := range nodePorts {
				if !idx.Same(in.file, np.Service.File.Outer().Path) {
					continue
				}
				services[np.Service] = true
				if len(sc.related) < kp301MaxRelated {
					sc.related = append(sc.related, nodePortRelated(np))
				}
			}
			sc.services = len(services)
			byClass[idx.Class(in.file)] = sc
		}
		related := append([]checker.Related(nil), sc.related...)
		sev := checker.SeverityInfo
		msg := fmt.Sprintf("nodePortAddresses is unset: kube-proxy in nftables mode at target %s accepts NodePorts only on the node's primary IPs, not on every local IP as iptables and ipvs did", p.Target())
		if sc.services > 0 {
			sev = checker.SeverityWarning
			msg = fmt.Sprintf("nodePortAddresses is unset: kube-proxy in nftables mode at target %s accepts NodePorts only on the node's primary IPs; %d NodePort or LoadBalancer Services in scope lose reach on other node addresses", p.Target(), sc.services)
		}
		if !seen.first(pos, msg) {
			continue
		}
		if in.mode.Origin != checker.OriginConfig {
			related = append(modeRelated(in, p.Target()), related...)
		}
		var fixes []checker.Fix
		var path checker.Path
		if in.HasConfigFlag() && in.Config != nil {
			path = checker.Path{"nodePortAddresses"}
			all := `["all"]`
			if !p.Target().AtLeast(37) {
				all = `["0.0.0.0/0", "::/0"]`
			}
			for _, fx := range [][2]string{
				{`["primary"]`, `Set nodePortAddresses to ["primary"] (accept the nftables behaviour)`},
				{all, "Set nodePortAddresses to " + all + " (keep NodePorts on every node address)"},
			} {
				if fix, ok := nodePortAddressesFix(in.Config, fx[0], fx[1]); ok {
					if fx[0] == `["primary"]` {
						// What nftables does with the field unset: nothing changes when
						// nftables already runs (the mode is written down), but iptables,
						// which runs today when the mode is a default, would narrow too.
						fix.Preferred = true
						if todayMode(in.mode, false) == checker.ModeNFTables {
							fix.Safety = checker.Safe
						}
					}
					fixes = append(fixes, fix)
				}
			}
		}
		p.Report(checker.Finding{Severity: sev, Message: msg, Pos: pos, End: end, Object: obj, Path: path, Related: related, Fixes: fixes})
	}
	return nil
}

// nodePortRelated describes a Service port with a NodePort as a related location.
func nodePortRelated(np checker.NodePort) checker.Related {
	pos, end := np.Pos, np.End
	msg := fmt.Sprintf("%s (type %s) allocates a NodePort", np.Label(), np.Type)
	if np.Port != 0 {
		msg = fmt.Sprintf("%s (type %s) uses NodePort %d", np.Label(), np.Type, np.Port)
	}
	return checker.Related{Pos: pos, End: end, Message: msg}
}

// kindPatchesNodePortAddresses reports whether a kind cluster sets nodePortAddresses in a
// KubeProxyConfiguration of its kubeadmConfigPatches: kind merges every patch, while the
// instance's Config is only the patch that sets the mode.
func kindPatchesNodePortAddresses(in *checker.Instance) bool {
	if in.Installer == nil || in.Installer.Doc == nil || in.Installer.Doc.Kind != "Cluster" {
		return false
	}
	found := false
	check := func(seq *yaml.Node) {
		if seq == nil || seq.Kind != yaml.SequenceNode {
			return
		}
		for _, n := range seq.Content {
			if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "KubeProxyConfiguration") && strings.Contains(n.Value, "nodePortAddresses") {
				found = true
			}
		}
	}
	d := in.Installer.Doc
	_, top := d.Lookup(checker.Path{"kubeadmConfigPatches"})
	check(top)
	if _, nodes := d.Lookup(checker.Path{"nodes"}); nodes != nil && nodes.Kind == yaml.SequenceNode {
		for _, n := range nodes.Content {
			_, p := checker.LookupNode(n, checker.Path{"kubeadmConfigPatches"})
			check(p)
		}
	}
	return found
}
