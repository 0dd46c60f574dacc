package load

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Gardener: a Shoot (core.gardener.cloud) with spec.kubernetes.kubeProxy.mode IPTables
// (the default), IPVS or NFTables, enabled and featureGates.

func init() {
	docInstallers = append(docInstallers, gardenerInstances)
}

var gardenerModes = map[string]string{"IPTables": checker.ModeIPTables, "IPVS": checker.ModeIPVS, "NFTables": checker.ModeNFTables}

func gardenerInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Kind != "Shoot" || !strings.HasPrefix(d.APIVersion, "core.gardener.cloud/") {
		return nil
	}
	kp := checker.Path{"spec", "kubernetes", "kubeProxy"}
	ins := &checker.Installer{
		Name: checker.InstallerGardener, Doc: d, File: d.File.Outer(), ModeKey: "spec.kubernetes.kubeProxy.mode",
		Modes: gardenerModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: "Gardener's default kube-proxy mode is IPTables",
	}
	docAnchor(ins, d, kp)
	ins.Mode = modeSetting(ins, d, kp.Append("mode"))
	if s, b, ok := boolSetting(d, kp.Append("enabled")); ok && !b {
		ins.Disabled = s
	}
	ins.Gates = gatesSetting(d, kp.Append("featureGates"))
	label := "Gardener Shoot in " + d.File.Outer().Path
	if d.Name != "" {
		label = "Gardener Shoot " + d.Name
	}
	return []*checker.Instance{newInstallerInstance(ins, label)}
}
