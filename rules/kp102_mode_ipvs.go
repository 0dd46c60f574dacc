package rules

import (
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP102 flags kube-proxies whose effective mode is ipvs.
var KP102 = &checker.Rule{
	ID:       "KP102",
	Name:     "mode-ipvs",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"KubeProxyConfiguration", "DaemonSet", "Pod", "ConfigMap"},
	Doc: withProse("kp102_mode_ipvs.md", checker.Doc{
		Title:  "kube-proxy runs in the deprecated ipvs mode",
		Before: "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
		After:  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n",
		Since:  "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Set the mode to ` + "`nftables`" + ` where ipvs is written: the ` + "`mode`" + ` field, ` + "`--proxy-mode`" + `, or the installer's setting in its own spelling (` + "`NFTables`" + ` for Gardener, ` + "`NFTABLES`" + ` for AKS).`, Safety: checker.Unsafe, Preferred: true},
			{Text: `Set the mode to ` + "`iptables`" + ` instead, the interim while the nodes are not ready for nftables.`, Safety: checker.Unsafe},
		},
		SeverityText: "warning up to target 1.39; error 1.40–1.42 (warning when `KubeProxyIPVS: true` is set); error from 1.43",
	}),
	Run: runKP102,

	// An error from 1.40, where the gate is off by default (what `rules` shows at a target).
	SeverityAt: checker.ErrorFrom(40),
}

func runKP102(p *checker.Pass) error {
	services := &kp102Services{}
	for _, in := range p.Workspace.Instances {
		if in.IsDisabled() {
			continue
		}
		p := p.ForInstance(in)
		m := in.Mode(p.Target())
		if m.Value != checker.ModeIPVS {
			continue
		}
		// Every message names the releases that break ipvs, whatever the target; the cluster
		// clause (checker.Pass.Report) adds this cluster's version.
		sev := checker.SeverityWarning
		msg := "kube-proxy mode ipvs is deprecated from 1.35: it exits at startup from 1.40 unless KubeProxyIPVS is true, and is removed in 1.43"
		switch {
		case p.Target().AtLeast(43):
			sev = checker.SeverityError
			msg = "kube-proxy mode ipvs was removed in 1.43: kube-proxy cannot start"
		case p.Target().AtLeast(40):
			if g, ok := in.Gate("KubeProxyIPVS"); ok && g.Value && !g.Invalid {
				msg = "kube-proxy mode ipvs only starts because KubeProxyIPVS is true (the gate is off by default from 1.40); it is removed in 1.43"
			} else {
				sev = checker.SeverityError
				msg = "kube-proxy mode ipvs exits at startup from 1.40: the KubeProxyIPVS gate is off by default; the ipvs code is removed in 1.43"
			}
		case p.Target().AtLeast(35):
			msg = "kube-proxy mode ipvs is deprecated (a warning at startup since 1.35): it exits at startup from 1.40 unless KubeProxyIPVS is true, and is removed in 1.43"
		}
		if installerOnly(in) {
			kp102Installer(p, in, m, sev, msg)
			continue
		}
		reportSetting(p, in, m, sev, msg, kp102Fixes(p, in, m, services)...)
	}
	return nil
}

// Fix messages of KP102: nftables is the preferred target mode, iptables the interim.
const (
	kp102FixNFTables = "Set mode to nftables (needs Linux 5.13 or newer on every node)"
	kp102FixIPTables = "Set mode to iptables, the interim until the nodes are ready for nftables"
)

// kp102Fixes returns the fixes of an ipvs mode set in a configuration file or a --proxy-mode
// flag: nftables (preferred) and iptables. Both change the data plane. In a configuration
// file the fix also carries the values ipvs mode reads into the new mode's section, so that
// masquerading and sync periods stay as they are, and makes the companion edits of its own
// cluster part of the same fix (kp102Companions): the twin of a kubeadm KubeProxyConfiguration
// and the kube-proxy ConfigMap it writes, and nodePortAddresses where nftables narrows the
// cluster's NodePorts.
func kp102Fixes(p *checker.Pass, in *checker.Instance, m checker.Setting, services *kp102Services) []checker.Fix {
	var fixes []checker.Fix
	for _, fx := range [][2]string{{checker.ModeNFTables, kp102FixNFTables}, {checker.ModeIPTables, kp102FixIPTables}} {
		var fix checker.Fix
		var ok bool
		switch {
		case m.Flag != nil:
			fix, ok = replaceFlagValueFix(m.Flag, fx[0], strings.Replace(fx[1], "mode", "--proxy-mode", 1))
		case m.Doc != nil && m.Origin == checker.OriginConfig:
			_, v := m.Doc.Lookup(m.Path)
			if fix, ok = replaceScalarFix(m.Doc, v, fx[0], fx[1]); ok && m.Doc == in.Config {
				carry, names := carryForMode(m.Doc, in.KPC(), checker.ModeIPVS, fx[0])
				if len(carry) > 0 {
					fix.Edits = append(fix.Edits, carry...)
					fix.Message += "; carry " + strings.Join(names, ", ")
				}
				fix = kp102Companions(p, in, fix, fx[0], services)
			}
		}
		if ok {
			fix.Preferred = fx[0] == checker.ModeNFTables
			fixes = append(fixes, fix)
		}
	}
	return fixes
}

// kp102Companions adds to fix (moving in's configuration from ipvs to mode) the edits the
// move needs elsewhere in the same cluster, so that one fix (one suggestion in a review)
// leaves the cluster consistent:
//   - a kubeadm KubeProxyConfiguration and the kube-system/kube-proxy ConfigMap of the same
//     cluster are twins (kubeadm init and upgrade write the ConfigMap from the kubeadm
//     config): the twin that also sets ipvs moves with it, its ipvs values carried too;
//   - moving to nftables with nodePortAddresses unset while NodePort or LoadBalancer Services
//     are in the cluster: nodePortAddresses is set to ["primary"] in each moved
//     configuration, the behaviour nftables gives them, written down (what KP301 asks).
//
// A companion whose edits cannot be combined with the fix's is left out: the fix stays
// what it was, and the rules report what is left.
func kp102Companions(p *checker.Pass, in *checker.Instance, fix checker.Fix, mode string, services *kp102Services) checker.Fix {
	file := in.Config.File.Outer().Path
	ws := p.Workspace
	if ws.ClusterOf(file) == nil {
		return fix
	}
	moved := []*checker.Instance{in}
	role := kp102TwinRole(in.Config)
	if role != "" {
		for _, o := range ws.Instances {
			if o == in || o.Config == nil || o.Config == in.Config || o.IsDisabled() {
				continue
			}
			r := kp102TwinRole(o.Config)
			if r == "" || r == role || !ws.SameCluster(file, o.Config.File.Outer().Path) {
				continue
			}
			_, v := o.Config.Lookup(checker.Path{"mode"})
			if v == nil || v.Value != checker.ModeIPVS {
				continue
			}
			tf, ok := replaceScalarFix(o.Config, v, mode, "")
			if !ok {
				continue
			}
			carry, _ := carryForMode(o.Config, o.KPC(), checker.ModeIPVS, mode)
			edits, ok := combineEdits(fix.Edits, append(tf.Edits, carry...))
			if !ok {
				continue
			}
			fix.Edits = edits
			fix.Message += "; the same in " + kp102TwinName(r) + " " + tf.Edits[0].Pos.String()
			moved = append(moved, o)
		}
	}
	if mode != checker.ModeNFTables || !p.Target().AtLeast(31) {
		return fix
	}
	n := services.in(ws, file)
	if n == 0 {
		return fix
	}
	set := false
	for _, o := range moved {
		if addrs, s := o.NodePortAddresses(); len(addrs) > 0 || s.Origin != checker.OriginDefault {
			continue
		}
		nf, ok := nodePortAddressesFix(o.Config, `["primary"]`, "")
		if !ok {
			continue
		}
		if edits, ok := combineEdits(fix.Edits, nf.Edits); ok {
			fix.Edits = edits
			set = true
		}
	}
	if set {
		what := fmt.Sprintf("%d NodePort or LoadBalancer Services of this cluster then answer", n)
		if n == 1 {
			what = "the NodePort or LoadBalancer Service of this cluster then answers"
		}
		fix.Message += `; set nodePortAddresses to ["primary"] (` + what + ` only on the node's primary IPs)`
	}
	return fix
}

// kp102TwinRole says which twin a KubeProxyConfiguration is: "kubeadm" in a file with a
// kubeadm ClusterConfiguration, "configmap" in the config.conf of the kube-system/kube-proxy
// ConfigMap, "" otherwise.
func kp102TwinRole(d *checker.Document) string {
	if d.Kind != "KubeProxyConfiguration" {
		return ""
	}
	if parent := d.Parent; parent != nil {
		if isKubeProxyConfigMap(parent) && isConfigMapConf(d) {
			return "configmap"
		}
		return ""
	}
	for _, o := range d.File.Docs {
		if o.Kind == "ClusterConfiguration" && strings.HasPrefix(o.APIVersion, "kubeadm.k8s.io/") {
			return "kubeadm"
		}
	}
	return ""
}

func kp102TwinName(role string) string {
	if role == "configmap" {
		return "the kube-proxy ConfigMap at"
	}
	return "the kubeadm config at"
}

// combineEdits appends more to edits when none of them overlap; two insertions at the same
// place become one. ok is false when edits would overlap otherwise.
func combineEdits(edits, more []checker.TextEdit) ([]checker.TextEdit, bool) {
	out := append([]checker.TextEdit(nil), edits...)
	for _, e := range more {
		merged := false
		for i, o := range out {
			if o.Pos.Filename != e.Pos.Filename {
				continue
			}
			if o.Pos.Offset == o.End.Offset && e.Pos.Offset == e.End.Offset && o.Pos.Offset == e.Pos.Offset {
				out[i].NewText += e.NewText
				merged = true
				break
			}
			if o.Overlaps(e) {
				return edits, false
			}
		}
		if !merged {
			out = append(out, e)
		}
	}
	return out, true
}

// kp102Services counts the NodePort and LoadBalancer Services of each scope class, found once
// per run on first use (a run has thousands of Services and hundreds of ipvs fixes).
type kp102Services struct {
	idx     *checker.ScopeIndex
	byClass map[string]int
}

// in returns how many Services are in the scope of file.
func (s *kp102Services) in(ws *checker.Workspace, file string) int {
	if s.idx == nil {
		s.idx = ws.NewScopeIndex()
		seen := map[*checker.Document]bool{}
		s.byClass = map[string]int{}
		for _, np := range ws.NodePorts() {
			if !seen[np.Service] {
				seen[np.Service] = true
				s.byClass[s.idx.Class(np.Service.File.Outer().Path)]++
			}
		}
	}
	return s.byClass[s.idx.Class(file)]
}
