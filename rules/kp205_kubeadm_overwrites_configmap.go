package rules

import (
	"fmt"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP205 flags kube-proxy ConfigMap changes that a kubeadm configuration in the same repository
// would undo.
var KP205 = &checker.Rule{
	ID:       "KP205",
	Name:     "kubeadm-overwrites-configmap",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"ConfigMap", "ClusterConfiguration", "KubeProxyConfiguration"},
	Doc: withProse("kp205_kubeadm_overwrites_configmap.md", checker.Doc{
		Title: "kubeadm would regenerate the kube-proxy ConfigMap differently",
		Before: `# kubeadm.yaml
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
---
# kube-proxy ConfigMap, config.conf
mode: ipvs
`,
		After: `# kubeadm.yaml
apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: ipvs
`,
		Since: "0.1.0",
	}),
	Run: runKP205,
}

func runKP205(p *checker.Pass) error {
	var kubeadms []*checker.Instance
	for _, in := range p.Workspace.Instances {
		ins := in.Installer
		if ins != nil && ins.Name == checker.InstallerKubeadm && !in.IsDisabled() && ins.Doc != nil && ins.Doc.Parent == nil {
			kubeadms = append(kubeadms, in)
		}
	}
	if len(kubeadms) == 0 {
		return nil
	}
	for _, d := range p.Workspace.Docs {
		if d.Parent != nil || !isKubeProxyConfigMap(d) {
			continue
		}
		for _, e := range d.Embedded {
			if !isConfigMapConf(e) {
				continue
			}
			for _, ka := range kubeadms {
				if p.Workspace.SameScope(d.File.Path, ka.Source.Path) {
					// The kubeadm config defines the cluster: compare at its target.
					kp205Check(p.ForInstance(ka), d, e, ka)
				}
			}
		}
	}
	return nil
}

func kp205Check(p *checker.Pass, cm, conf *checker.Document, ka *checker.Instance) {
	kfile := ka.Source.Path
	cmMode := kp106SourceOf(conf, p.Target())
	if cmMode.unknown || ka.Installer.Doc.Open {
		return
	}
	kpos, kend := ka.Installer.Doc.KindPos()
	if ka.Config == nil {
		pos, end, _ := cm.KeyPos(checker.Path{"data", "config.conf"})
		msg := fmt.Sprintf("kubeadm regenerates ConfigMap kube-system/kube-proxy from the kubeadm config in %s, which has no KubeProxyConfiguration document: this config.conf (which %s) would be replaced by kubeadm's defaults (mode %s at target %s)",
			kfile, cmMode.describe(p.Target()), ka.Installer.DefaultMode(p.Target()), p.Target())
		p.Report(checker.Finding{Message: msg, Pos: pos, End: end, Object: cm.Ref(), Path: checker.Path{"data", "config.conf"},
			Related: []checker.Related{{Pos: kpos, End: kend, Message: "kubeadm ClusterConfiguration without a KubeProxyConfiguration document"}}})
		return
	}
	kaMode := kp106SourceOf(ka.Config, p.Target())
	if kaMode.mode == cmMode.mode || kaMode.unknown || cmMode.unknown {
		return
	}
	pos, end := cmMode.where()
	rp, re := kaMode.where()
	msg := fmt.Sprintf("kubeadm regenerates ConfigMap kube-system/kube-proxy from the kubeadm config in %s, which %s: the mode %s here would be replaced", kfile, kaMode.describe(p.Target()), cmMode.mode)
	p.Report(checker.Finding{Message: msg, Pos: pos, End: end, Object: conf.Ref(), Path: checker.Path{"mode"},
		Related: []checker.Related{{Pos: rp, End: re, Message: "the kubeadm KubeProxyConfiguration " + kaMode.describe(p.Target())}}})
}
