package rules

import (
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP303 flags localhost NodePorts half enabled in nftables mode: the gate without a loopback
// entry in nodePortAddresses, or a loopback entry without the gate.
var KP303 = &checker.Rule{
	ID:       "KP303",
	Name:     "localhost-nodeports-incomplete",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"KubeProxyConfiguration", "DaemonSet"},
	Doc: withProse("kp303_localhost_nodeports_incomplete.md", checker.Doc{
		Title:  "localhost NodePorts are only half enabled in nftables mode",
		Before: "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nfeatureGates:\n  KubeProxyNFTablesLocalhostNodePorts: true\n",
		After:  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nnodePortAddresses: [\"primary\", \"localhost\"]\nfeatureGates:\n  KubeProxyNFTablesLocalhostNodePorts: true\n",
		Since:  "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Set ` + "`nodePortAddresses: [\"primary\", \"localhost\"]`" + ` when the gate is on and the field is unset, so that loopback NodePorts are served.`, Safety: checker.Unsafe, Preferred: true},
		},
	}),
	Run: runKP303,
}

func runKP303(p *checker.Pass) error {
	seen := findingKeys{}
	for _, bi := range linuxInstancesEach(p) {
		in, p := bi.proxyInstance, bi.p
		if in.mode.Value != checker.ModeNFTables {
			continue
		}
		addrs, as := in.NodePortAddresses()
		if as.Origin == checker.OriginUnknown {
			continue
		}
		on, explicit := gateOn(in.Instance, p.Target())
		loop := hasLoopbackEntry(addrs, false) || hasLoopbackEntry(addrs, true)
		switch {
		case on && explicit && !loop:
			g, _ := in.Gate(gateNFTablesLocalhostNodePorts)
			pos, end, ok := g.Where()
			if !ok {
				continue
			}
			msg := "feature gate " + gateNFTablesLocalhostNodePorts + " is true but nodePortAddresses has no loopback entry (localhost, 127.0.0.1/32 or ::1/128), so kube-proxy in nftables mode still does not serve NodePorts on localhost"
			if kp303CoversAll(addrs) {
				msg += `; "all" and 0.0.0.0/0 do not count`
			}
			if !seen.first(pos, msg) {
				continue
			}
			f := checker.Finding{Message: msg, Pos: pos, End: end, Path: g.Path}
			if g.Doc != nil {
				f.Object = g.Doc.Ref()
			} else if g.Flag != nil && g.Flag.Doc != nil {
				f.Object, f.Path = g.Flag.Doc.Ref(), g.Flag.NodePath
			}
			if len(addrs) == 0 && in.HasConfigFlag() && in.Config != nil {
				if fix, ok := nodePortAddressesFix(in.Config, `["primary", "localhost"]`, `Set nodePortAddresses to ["primary", "localhost"]`); ok {
					f.Fixes = append(f.Fixes, fix)
				}
			}
			if pos, end, ok := as.Where(); ok && len(addrs) > 0 {
				f.Related = append(f.Related, checker.Related{Pos: pos, End: end, Message: "nodePortAddresses: " + strings.Join(addrs, ", ")})
			}
			p.Report(f)
		case loop && !on:
			var why string
			switch {
			case !p.Target().AtLeast(37):
				why = fmt.Sprintf("nftables mode serves no localhost NodePorts before 1.37 (target %s)", p.Target())
			case explicit:
				why = gateNFTablesLocalhostNodePorts + " is false"
			default:
				why = fmt.Sprintf("the %s gate is off by default at target %s", gateNFTablesLocalhostNodePorts, p.Target())
			}
			for i, a := range addrs {
				if v4, v6 := loopbackEntry(a); !v4 && !v6 {
					continue
				}
				if a == "localhost" && !p.Target().AtLeast(37) {
					// KP003 reports the keyword as invalid before 1.37.
					continue
				}
				msg := fmt.Sprintf("nodePortAddresses lists %s but %s, so kube-proxy in nftables mode does not serve NodePorts on localhost", a, why)
				f := checker.Finding{Message: msg}
				switch {
				case as.Flag != nil:
					f.Pos, f.End = as.Flag.Pos, as.Flag.End
					if as.Flag.Doc != nil {
						f.Object, f.Path = as.Flag.Doc.Ref(), as.Flag.NodePath
					}
				case as.Doc != nil:
					path := as.Path.Append(i)
					pos, end, ok := as.Doc.ValuePos(path)
					if !ok {
						continue
					}
					f.Pos, f.End, f.Object, f.Path = pos, end, as.Doc.Ref(), path
				default:
					continue
				}
				if !seen.first(f.Pos, msg) {
					continue
				}
				if g, ok := in.Gate(gateNFTablesLocalhostNodePorts); ok {
					if pos, end, ok := g.Where(); ok {
						f.Related = append(f.Related, checker.Related{Pos: pos, End: end, Message: gateNFTablesLocalhostNodePorts + " is set here"})
					}
				}
				p.Report(f)
			}
		}
	}
	return nil
}

// kp303CoversAll reports whether addrs hold an entry that covers loopback without naming it.
func kp303CoversAll(addrs []string) bool {
	for _, a := range addrs {
		switch strings.TrimSpace(a) {
		case "all", "0.0.0.0/0", "::/0":
			return true
		}
	}
	return false
}
