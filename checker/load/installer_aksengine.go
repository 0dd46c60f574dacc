package load

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// aks-engine (and AKS Engine on Azure Stack): an apimodel JSON file with
// properties.orchestratorProfile.kubernetesConfig.kubeProxyMode iptables (the default) or
// ipvs, and the kube-proxy addon in kubernetesConfig.addons, which enabled: false turns off.

func init() {
	docInstallers = append(docInstallers, aksEngineInstances)
}

// aksEngineModes are the kubeProxyMode values aks-engine's validation accepts.
var aksEngineModes = map[string]string{"iptables": checker.ModeIPTables, "ipvs": checker.ModeIPVS}

var aksEngineConfig = checker.Path{"properties", "orchestratorProfile", "kubernetesConfig"}

func isAKSEngineModel(d *checker.Document) bool {
	return d.Parent == nil && d.Kind == "" && d.Has(checker.Path{"properties", "orchestratorProfile"})
}

func aksEngineInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if !isAKSEngineModel(d) {
		return nil
	}
	kc := aksEngineConfig
	ins := &checker.Installer{
		Name: checker.InstallerAKSEngine, Doc: d, File: d.File.Outer(), ModeKey: "kubernetesConfig.kubeProxyMode",
		Modes: aksEngineModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: "aks-engine's default kubeProxyMode is iptables",
	}
	docAnchor(ins, d, kc)
	ins.Mode = modeSetting(ins, d, kc.Append("kubeProxyMode"))
	if m := ins.Mode; m != nil && armExpression(m.Value) {
		m.Placeholder = true
	}
	for i := 0; d.Has(kc.Append("addons", i)); i++ {
		if d.Str(kc.Append("addons", i, "name")) != "kube-proxy" {
			continue
		}
		if s, b, ok := boolSetting(d, kc.Append("addons", i, "enabled")); ok && !b {
			ins.Disabled = s
		}
	}
	return []*checker.Instance{newInstallerInstance(ins, "aks-engine apimodel "+d.File.Outer().Path)}
}
