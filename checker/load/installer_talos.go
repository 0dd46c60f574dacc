package load

import (
	"regexp"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Talos: machine configurations (version: v1alpha1) and their strategic-merge patches with
// cluster.proxy (mode, extraArgs, disabled), and the newer KubeProxyConfig document (mode,
// extraArgs, config, enabled). Talos's kind KubeProxyConfig is not upstream's
// KubeProxyConfiguration. Talos defaults to nftables since Talos 1.8 (iptables before).

func init() {
	docInstallers = append(docInstallers, talosInstances)
}

var talosVersionRe = regexp.MustCompile(`/installer(?:/[0-9a-f]+)?:v?(\d+)\.(\d+)`)

func talosInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil || isTerraformFragment(d) {
		// Fragments in strings are strings_talos.go's (talosFragmentInstances).
		return nil
	}
	var ins *checker.Installer
	var in *checker.Instance
	switch {
	case d.Kind == "KubeProxyConfig" && (d.APIVersion == "v1alpha1" || d.APIVersion == ""):
		ins = talosInstaller(d)
		ins.ModeKey = "mode"
		ins.Anchor, ins.AnchorEnd = d.KindPos()
		ins.Mode = modeSetting(ins, d, checker.Path{"mode"})
		if ins.Mode == nil {
			ins.Mode = modeSetting(ins, d, checker.Path{"config", "mode"})
		}
		if s, b, ok := boolSetting(d, checker.Path{"enabled"}); ok && !b {
			ins.Disabled = s
		}
		in = newInstallerInstance(ins, "Talos KubeProxyConfig in "+d.File.Path)
		in.Flags = mapFlags(d, checker.Path{"extraArgs"})
	case d.Kind == "" && d.Has(checker.Path{"cluster"}) && (d.Has(checker.Path{"cluster", "proxy"}) ||
		d.Str(checker.Path{"version"}) == "v1alpha1" && d.Has(checker.Path{"machine"})):
		if d.Has(checker.Path{"services"}) {
			return nil // RKE1 or another tool's cluster file.
		}
		ins = talosInstaller(d)
		px := checker.Path{"cluster", "proxy"}
		ins.ModeKey = "cluster.proxy.mode"
		docAnchor(ins, d, px)
		ins.Mode = modeSetting(ins, d, px.Append("mode"))
		if s, b, ok := boolSetting(d, px.Append("disabled")); ok && b {
			ins.Disabled = s
		}
		in = newInstallerInstance(ins, "Talos machine config in "+d.File.Path)
		in.Flags = mapFlags(d, px.Append("extraArgs"))
	default:
		return nil
	}
	return []*checker.Instance{in}
}

func talosInstaller(d *checker.Document) *checker.Installer {
	ins := &checker.Installer{
		Name: checker.InstallerTalos, Doc: d, File: d.File.Outer(), Modes: lowerModes,
		Defaults:   fixedDefault(checker.ModeNFTables),
		DefaultWhy: "Talos defaults to nftables since Talos 1.8",
	}
	if m := talosVersionRe.FindStringSubmatch(d.Str(checker.Path{"machine", "install", "image"})); m != nil {
		ins.Version = m[1] + "." + m[2]
		if v, err := checker.ParseVersion(ins.Version); err == nil && v.Less(checker.Version{Major: 1, Minor: 8}) {
			ins.Defaults = fixedDefault(checker.ModeIPTables)
			ins.DefaultWhy = "Talos before 1.8 defaults to iptables"
		}
	}
	return ins
}
