package load

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// KubeKey (KubeSphere). Up to v3: a Cluster (kubekey.kubesphere.io/v1alpha2) with
// spec.kubernetes.proxyMode, disableKubeProxy and kubeProxyConfiguration (merged into the
// KubeProxyConfiguration KubeKey generates). v4: a Config (kubekey.kubesphere.io/v1) with
// spec.kubernetes.kube_proxy (mode, enabled, config), whose values override the role defaults
// (roles/defaults/defaults/main/*.yaml: kubernetes.kube_proxy.mode). KubeKey's default mode is
// ipvs in both.

func init() {
	docInstallers = append(docInstallers, kubekeyInstances)
}

func isKubeKey(d *checker.Document) bool {
	return strings.HasPrefix(d.APIVersion, "kubekey.kubesphere.io/")
}

func newKubeKeyInstaller(d *checker.Document, modeKey string) *checker.Installer {
	return &checker.Installer{
		Name: checker.InstallerKubeKey, Doc: d, File: d.File.Outer(), ModeKey: modeKey,
		Modes: lowerModes, Defaults: fixedDefault(checker.ModeIPVS),
		DefaultWhy: "KubeKey's default kube-proxy mode is ipvs",
	}
}

func kubekeyInstances(ws *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil {
		return nil
	}
	switch {
	case d.Kind == "Cluster" && isKubeKey(d):
		k := checker.Path{"spec", "kubernetes"}
		ins := newKubeKeyInstaller(d, "spec.kubernetes.proxyMode")
		docAnchor(ins, d, k)
		ins.Mode = modeSetting(ins, d, k.Append("proxyMode"))
		if ins.Mode == nil {
			ins.SetMode = insertKey(d, k, "proxyMode")
		}
		if s, b, ok := boolSetting(d, k.Append("disableKubeProxy")); ok && b {
			ins.Disabled = s
		}
		ins.IPVS = ipvsSection(d, k.Append("kubeProxyConfiguration", "ipvs"))
		ins.Gates = gatesSetting(d, k.Append("kubeProxyConfiguration", "featureGates"))
		return []*checker.Instance{newInstallerInstance(ins, kubekeyLabel(d))}
	case d.Kind == "Config" && isKubeKey(d):
		ins := kubekeyV4(d, checker.Path{"spec", "kubernetes", "kube_proxy"})
		if ins.Mode == nil {
			// The role default is Ansible-style lowest precedence: it applies unless the
			// Config sets the mode.
			if rd := kubekeyRoleDefault(ws); rd != nil {
				ins.Mode = rd.Mode
			} else {
				ins.SetMode = insertKey(d, checker.Path{"spec", "kubernetes", "kube_proxy"}, "mode")
			}
		}
		return []*checker.Instance{newInstallerInstance(ins, kubekeyLabel(d))}
	case d.Kind == "" && isRoleDefaultsFile(d.File.Path) && kubekeyDefaultsDoc(d):
		for _, o := range ws.Docs {
			if o.Kind == "Config" && isKubeKey(o) {
				return nil // read as the Configs' default
			}
		}
		ins := kubekeyV4(d, checker.Path{"kubernetes", "kube_proxy"})
		ins.DefaultWhy = "KubeKey's role default for kube_proxy.mode is ipvs"
		return []*checker.Instance{newInstallerInstance(ins, "kubekey role defaults "+d.File.Path)}
	}
	return nil
}

// kubekeyV4 reads a v4 kube_proxy section at kp.
func kubekeyV4(d *checker.Document, kp checker.Path) *checker.Installer {
	ins := newKubeKeyInstaller(d, strings.TrimPrefix(kp.Append("mode").String(), "spec."))
	docAnchor(ins, d, kp)
	ins.Mode = modeSetting(ins, d, kp.Append("mode"))
	if s, b, ok := boolSetting(d, kp.Append("enabled")); ok && !b {
		ins.Disabled = s
	}
	ins.IPVS = ipvsSection(d, kp.Append("config", "ipvs"))
	ins.Gates = gatesSetting(d, kp.Append("config", "featureGates"))
	return ins
}

// kubekeyDefaultsDoc reports whether d is a KubeKey v4 role defaults document: a top-level
// kubernetes.kube_proxy mapping.
func kubekeyDefaultsDoc(d *checker.Document) bool {
	_, kp := d.Lookup(checker.Path{"kubernetes", "kube_proxy"})
	return kp != nil && kp.Kind == yaml.MappingNode && d.Has(checker.Path{"kubernetes", "kube_proxy", "mode"})
}

// kubekeyRoleDefault returns the KubeKey role defaults in the workspace, first by path.
func kubekeyRoleDefault(ws *checker.Workspace) *checker.Installer {
	for _, o := range ws.Docs {
		if o.Kind == "" && o.Parent == nil && isRoleDefaultsFile(o.File.Path) && kubekeyDefaultsDoc(o) {
			ins := kubekeyV4(o, checker.Path{"kubernetes", "kube_proxy"})
			if ins.Mode != nil {
				return ins
			}
		}
	}
	return nil
}

// isRoleDefaultsFile reports whether file is an Ansible-style role defaults file
// (roles/NAME/defaults/...).
func isRoleDefaultsFile(file string) bool {
	p := "/" + file
	i := strings.Index(p, "/roles/")
	return i >= 0 && strings.Contains(p[i:], "/defaults/")
}

func kubekeyLabel(d *checker.Document) string {
	if d.Name != "" && !text.HasPlaceholder(d.Name) {
		return "kubekey " + d.Kind + " " + d.Name
	}
	return "kubekey " + d.Kind + " in " + d.File.Outer().Path
}
