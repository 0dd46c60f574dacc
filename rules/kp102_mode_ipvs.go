package rules

import (
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
		reportSetting(p, in, m, sev, msg, kp102Fixes(in, m)...)
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
// masquerading and sync periods stay as they are.
func kp102Fixes(in *checker.Instance, m checker.Setting) []checker.Fix {
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
			}
		}
		if ok {
			fix.Preferred = fx[0] == checker.ModeNFTables
			fixes = append(fixes, fix)
		}
	}
	return fixes
}
