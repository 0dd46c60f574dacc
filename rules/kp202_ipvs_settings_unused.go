package rules

import (
	"fmt"
	"strings"

	kpv1 "k8s.io/kube-proxy/config/v1alpha1"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP202 flags ipvs settings that kube-proxy does not read because it does not run in ipvs mode.
var KP202 = &checker.Rule{
	ID:       "KP202",
	Name:     "ipvs-settings-unused",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap", "DaemonSet", "Pod"},
	Doc: withProse("kp202_ipvs_settings_unused.md", checker.Doc{
		Title: "ipvs settings are set but kube-proxy does not run in ipvs mode",
		Before: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
ipvs:
  scheduler: lc
  strictARP: true
`,
		After: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
`,
		Since: "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Delete the ipvs settings the effective mode never reads: the fields (the whole ` + "`ipvs:`" + ` section when every key in it is unused), ` + "`--ipvs-*`" + ` flags, installer ipvs knobs.`, Safety: checker.Safe, Preferred: true},
		},
	}),
	Run: runKP202,
}

// ipvsFields are the fields of the ipvs: section with how to tell a non-default value.
var ipvsFields = []struct {
	name string
	set  func(c *kpv1.KubeProxyIPVSConfiguration) bool
}{
	{"syncPeriod", func(c *kpv1.KubeProxyIPVSConfiguration) bool { return c.SyncPeriod.Duration != 0 }},
	{"minSyncPeriod", func(c *kpv1.KubeProxyIPVSConfiguration) bool { return c.MinSyncPeriod.Duration != 0 }},
	{"scheduler", func(c *kpv1.KubeProxyIPVSConfiguration) bool { return c.Scheduler != "" }},
	{"excludeCIDRs", func(c *kpv1.KubeProxyIPVSConfiguration) bool { return len(c.ExcludeCIDRs) > 0 }},
	{"strictARP", func(c *kpv1.KubeProxyIPVSConfiguration) bool { return c.StrictARP }},
	{"tcpTimeout", func(c *kpv1.KubeProxyIPVSConfiguration) bool { return c.TCPTimeout.Duration != 0 }},
	{"tcpFinTimeout", func(c *kpv1.KubeProxyIPVSConfiguration) bool { return c.TCPFinTimeout.Duration != 0 }},
	{"udpTimeout", func(c *kpv1.KubeProxyIPVSConfiguration) bool { return c.UDPTimeout.Duration != 0 }},
}

// ipvsFlags are kube-proxy's --ipvs-* flags.
var ipvsFlags = map[string]bool{
	"ipvs-scheduler": true, "ipvs-sync-period": true, "ipvs-min-sync-period": true,
	"ipvs-exclude-cidrs": true, "ipvs-strict-arp": true, "ipvs-tcp-timeout": true,
	"ipvs-tcpfin-timeout": true, "ipvs-udp-timeout": true,
}

// ipvsUnused reports whether mode is a known mode other than ipvs.
func ipvsUnused(mode checker.Setting) bool {
	switch mode.Value {
	case checker.ModeIPTables, checker.ModeNFTables, checker.ModeKernelspace:
		return true
	}
	return false
}

func runKP202(p *checker.Pass) error {
	for _, u := range configsInUse(p) {
		if ipvsUnused(u.mode) {
			reportIPVSSection(u.pass, u)
		}
	}
	for _, in := range p.Workspace.Instances {
		if in.HasConfigFlag() {
			continue // KP201 reports every --ipvs-* flag as ignored.
		}
		p := p.ForInstance(in)
		if installerOnly(in) {
			kp202Installer(p, in)
			continue
		}
		m := in.Mode(p.Target())
		if !ipvsUnused(m) {
			continue
		}
		for i := range in.Flags {
			f := &in.Flags[i]
			if !ipvsFlags[f.Name] {
				continue
			}
			text := "--" + f.Name
			if f.HasValue {
				text += "=" + f.Value
			}
			msg := fmt.Sprintf("%s has no effect: %s, and --ipvs-* flags apply only in ipvs mode", text, modeReason(m, p.Target()))
			var fixes []checker.Fix
			if len(f.Remove) > 0 {
				fixes = append(fixes, safeDelete("Remove --"+f.Name, f.Remove...))
			}
			p.ReportFlag(f, checker.SeverityWarning, msg, fixes...)
		}
	}
	return nil
}

// reportIPVSSection reports each non-default field of the ipvs: section of a configuration
// whose mode is not ipvs.
func reportIPVSSection(p *checker.Pass, u configUse) {
	_, sec := u.doc.Lookup(checker.Path{"ipvs"})
	if sec == nil {
		return
	}
	var set []string
	for _, fd := range ipvsFields {
		if fd.set(&u.kpc.IPVS) && u.doc.Has(checker.Path{"ipvs", fd.name}) {
			set = append(set, fd.name)
		}
	}
	if len(set) == 0 {
		return
	}
	// When every key of the section is reported, one fix deletes the whole section. It goes
	// on the first finding only: the fixes of all findings are applied together, and
	// identical edits would conflict.
	whole := len(sec.Content) == 2*len(set)
	var wholeFix []checker.Fix
	if whole {
		if e, ok := deleteFieldEdit(u.doc, checker.Path{"ipvs"}); ok {
			wholeFix = []checker.Fix{safeDelete("Delete the unused ipvs: section", e)}
		}
	}
	reason := modeReason(u.mode, p.Target())
	for i, name := range set {
		path := checker.Path{"ipvs", name}
		msg := fmt.Sprintf("ipvs.%s %s has no effect: %s, and only ipvs mode reads the ipvs: section", name, ipvsValueText(u, name), reason)
		var fixes []checker.Fix
		switch {
		case whole && i == 0:
			fixes = wholeFix
		case !whole:
			if e, ok := deleteFieldEdit(u.doc, path); ok {
				fixes = []checker.Fix{safeDelete("Delete ipvs."+name, e)}
			}
		}
		p.ReportKey(u.doc, path, checker.SeverityWarning, msg, fixes...)
	}
}

// ipvsValueText renders the value of an ipvs field for a message.
func ipvsValueText(u configUse, name string) string {
	if name == "excludeCIDRs" {
		return "[" + strings.Join(u.kpc.IPVS.ExcludeCIDRs, ", ") + "]"
	}
	return u.doc.Str(checker.Path{"ipvs", name})
}
