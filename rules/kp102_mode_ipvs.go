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
	Doc: checker.Doc{
		Title: "kube-proxy runs in the deprecated ipvs mode",
		Why: `The ipvs proxy mode is deprecated. kube-proxy logs a deprecation warning since 1.35; 1.37 adds
the ` + "`KubeProxyIPVS`" + ` feature gate; from 1.40 the gate is off by default, so kube-proxy in ipvs mode
exits at startup unless the gate is set to true; in 1.43 the ipvs code is deleted and no gate brings it
back.

The finding points at the source that decides the mode: the ` + "`mode:`" + ` field of the
KubeProxyConfiguration in use, or the ` + "`--proxy-mode`" + ` flag when kube-proxy runs without ` + "`--config`" + `.

Installer configurations count too, in the installer's own words: kind
` + "`networking.kubeProxyMode: ipvs`" + `, kops ` + "`spec.kubeProxy.proxyMode`" + `, kubespray ` + "`kube_proxy_mode`" + `
(group_vars, host_vars, INI inventories), k3s/RKE2 ` + "`kube-proxy-arg: [proxy-mode=ipvs]`" + ` and
` + "`--kube-proxy-arg proxy-mode=ipvs`" + ` on install command lines, RKE1 ` + "`extra_args`" + `, Talos
` + "`cluster.proxy.mode`" + ` and ` + "`KubeProxyConfig`" + `, EKS add-on configuration values (eksctl and Terraform),
Gardener ` + "`IPVS`" + `, AKS ` + "`kubeProxyConfig.mode: IPVS`" + `, kind ` + "`kubeadmConfigPatches`" + `, KubeKey
` + "`proxyMode`" + ` and ` + "`kube_proxy.mode`" + `, k0s ` + "`spec.network.kubeProxy.mode`" + `, KubeOne ` + "`clusterNetwork.kubeProxy.ipvs`" + `,
aks-engine ` + "`kubeProxyMode`" + `, kubeasz ` + "`PROXY_MODE`" + `, ACK ` + "`proxy_mode`" + `, sealos Clusterfiles, Cluster API
topology variables, ` + "`KUBE_PROXY_ARGS`" + ` in environment files, and scripts that switch a running
cluster (` + "`sed 's/mode: \"\"/mode: \"ipvs\"/'`" + ` on the kube-proxy ConfigMap, ` + "`kubectl patch`" + `). Some installers
default to ipvs: kubespray (its role default), KubeKey, sealos and ACK's Terraform provider. A
configuration that does not set the mode then runs ipvs, and the finding is at the installer
default's line when it is in the repository (a vendored kubespray's role defaults), else at
the first setting or the configuration's anchor. Values that come from variables or templates
(` + "`{{ kube_proxy_mode }}`" + `, ` + "`var.mode`" + `) are not reported.`,
		Remediation: `Plan the move to ` + "`nftables`" + ` (Linux 5.13 or newer on every node) or, as an interim,
` + "`iptables`" + `. Before switching, check what depends on ipvs: ` + "`kube-ipvs0`" + `, ` + "`ipvsadm`" + `,
` + "`strictARP`" + ` for MetalLB, the ipvs scheduler, NodePorts reached on secondary addresses or on
` + "`127.0.0.1`" + `. Setting ` + "`KubeProxyIPVS: true`" + ` only defers the break to 1.43.

The fix sets the mode to nftables where ipvs is written: the ` + "`mode`" + ` field of a configuration
(standalone, in a ConfigMap, a kubeadm document or a heredoc), ` + "`--proxy-mode`" + ` on a command line, or
an installer setting in the installer's spelling (` + "`NFTables`" + ` for Gardener, ` + "`NFTABLES`" + ` for AKS;
iptables only for aks-engine and ACK, which have no nftables value; where an installer's default
applies it writes the setting down: kubespray ` + "`kube_proxy_mode`" + `, KubeKey ` + "`proxyMode`" + `, ACK ` + "`proxy_mode`" + `, a
` + "`KubeProxyConfiguration`" + ` document in a sealos Clusterfile; KubeOne's ` + "`ipvs:`" + ` section is swapped for
` + "`nftables: {}`" + `). In a configuration it also
carries the values ipvs mode read (` + "`iptables.masqueradeAll`" + `, ` + "`iptables.masqueradeBit`" + `, the ` + "`ipvs:`" + `
sync periods) into the ` + "`nftables:`" + ` section, so that they keep applying. The alternative fix sets
iptables, for when the nodes are not ready for nftables. Both change the data plane: they are unsafe
fixes, applied with ` + "`--fix --unsafe-fixes`" + `.`,
		Before: "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
		After:  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n",
		Since:  "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Set the mode to ` + "`nftables`" + ` where ipvs is written: the ` + "`mode`" + ` field, ` + "`--proxy-mode`" + `, or the installer's setting in its own spelling (` + "`NFTables`" + ` for Gardener, ` + "`NFTABLES`" + ` for AKS).`, Safety: checker.Unsafe, Preferred: true},
			{Text: `Set the mode to ` + "`iptables`" + ` instead, the interim while the nodes are not ready for nftables.`, Safety: checker.Unsafe},
		},
		SeverityText: "warning up to target 1.39; error 1.40–1.42 (warning when `KubeProxyIPVS: true` is set); error from 1.43",
	},
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
