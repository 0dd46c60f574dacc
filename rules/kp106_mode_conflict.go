package rules

import (
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// KP106 flags sources for the same kube-proxy that disagree on the proxy mode.
var KP106 = &checker.Rule{
	ID:       "KP106",
	Name:     "mode-conflict",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"DaemonSet", "Pod", "KubeProxyConfiguration", "ConfigMap", "ClusterConfiguration"},
	Doc: withProse("kp106_mode_conflict.md", checker.Doc{
		Title: "sources for the same kube-proxy set different proxy modes",
		Before: `containers:
- name: kube-proxy
  command: [kube-proxy, --config=/var/lib/kube-proxy/config.conf, --proxy-mode=ipvs]
---
# config.conf in the kube-proxy ConfigMap
mode: iptables
`,
		After: `containers:
- name: kube-proxy
  command: [kube-proxy, --config=/var/lib/kube-proxy/config.conf]
---
# config.conf in the kube-proxy ConfigMap
mode: iptables
`,
		Since: "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `On a ` + "`--proxy-mode`" + ` next to ` + "`--config`" + `: remove the flag, which kube-proxy ignores whatever its value.`, Safety: checker.Safe, Preferred: true},
			{Text: `On a ` + "`--proxy-mode`" + ` next to ` + "`--config`" + `: write its mode into the configuration file and remove the flag. The mode then changes.`, Safety: checker.Unsafe},
		},
	}),
	Run: runKP106,
}

func runKP106(p *checker.Pass) error {
	for _, in := range p.Workspace.Instances {
		kp106Flag(p.ForInstance(in), in)
	}
	kp106Kubeadm(p)
	kp106Installers(p)
	return nil
}

// kp106Flag reports a --proxy-mode that differs from the mode of the --config file.
func kp106Flag(p *checker.Pass, in *checker.Instance) {
	fl, ok := proxyModeConflict(in, p.Target())
	if !ok {
		return
	}
	m := in.Mode(p.Target())
	var msg string
	var rel checker.Related
	if m.Origin == checker.OriginConfig {
		msg = fmt.Sprintf("--proxy-mode=%s conflicts with mode %s in the config file: kube-proxy ignores the flag because --config is set and runs in mode %s", fl.Value, m.Value, m.Value)
		pos, end, _ := in.Config.ValuePos(checker.Path{"mode"})
		rel = checker.Related{Pos: pos, End: end, Message: "the config file sets mode " + m.Value}
	} else {
		msg = fmt.Sprintf("--proxy-mode=%s conflicts with the config file, which does not set mode: kube-proxy ignores the flag because --config is set and runs in the default mode %s at target %s", fl.Value, m.Value, p.Target())
		pos, end := in.Config.KindPos()
		rel = checker.Related{Pos: pos, End: end, Message: "the config file in use does not set mode"}
	}
	// The fixes KP201 offers on an ignored flag: remove it, or move its value into the file.
	p.Report(checker.Finding{Message: msg, Pos: fl.Pos, End: fl.End, Object: fl.Doc.Ref(), Path: fl.NodePath,
		Related: append(append([]checker.Related{rel}, fl.Via...), instanceRelated(in)...), Fixes: ignoredFlagFixes(in, fl, m, in.Flag("cleanup") == nil)})
}

// kp106Source is a KubeProxyConfiguration document and the mode it gives at the target.
type kp106Source struct {
	doc  *checker.Document
	mode string
	set  bool
	// unknown: the mode is a placeholder, or the document is open to a whole-body
	// placeholder that may set it; no comparison is made with it.
	unknown bool
}

func kp106SourceOf(d *checker.Document, t checker.Version) kp106Source {
	if m := strings.TrimSpace(d.Str(checker.Path{"mode"})); m != "" {
		return kp106Source{doc: d, mode: m, set: true, unknown: text.HasPlaceholder(m)}
	}
	return kp106Source{doc: d, mode: checker.DefaultMode(t, false), unknown: d.Open}
}

// where returns the position of the source's mode line, or of its kind line when mode is unset.
func (s kp106Source) where() (checker.Position, checker.Position) {
	if pos, end, ok := s.doc.ValuePos(checker.Path{"mode"}); ok && s.set {
		return pos, end
	}
	return s.doc.KindPos()
}

func (s kp106Source) describe(t checker.Version) string {
	if s.set {
		return "sets mode " + s.mode
	}
	return fmt.Sprintf("does not set mode (default %s at target %s)", s.mode, t)
}

// kp106Kubeadm compares kubeadm configurations with the kube-system/kube-proxy ConfigMap.
func kp106Kubeadm(p *checker.Pass) {
	// The sources' modes are read at the target of each comparison, below.
	var kubeadm, cms []kp106Source
	for _, f := range p.Workspace.Files {
		var cluster, kpc *checker.Document
		skip := false
		for _, d := range f.Docs {
			switch {
			case d.Kind == "ClusterConfiguration" && strings.HasPrefix(d.APIVersion, "kubeadm.k8s.io/"):
				cluster = d
			case d.Kind == "KubeProxyConfiguration" && kpc == nil:
				kpc = d
			case d.Kind == "InitConfiguration" && kp106SkipsProxy(d):
				skip = true
			}
			if isKubeProxyConfigMap(d) {
				for _, e := range d.Embedded {
					if isConfigMapConf(e) {
						cms = append(cms, kp106Source{doc: e})
					}
				}
			}
		}
		if !skip && cluster != nil && kpc != nil && !strings.EqualFold(cluster.Str(checker.Path{"proxy", "disabled"}), "true") {
			kubeadm = append(kubeadm, kp106Source{doc: kpc})
		}
	}
	for _, c := range cms {
		for _, k := range kp106Nearest(p.Workspace, c, kubeadm) {
			// The kubeadm config defines the cluster: both sides at its target.
			p := p.At(k.doc.File.Outer().Path)
			cm, ka := kp106SourceOf(c.doc, p.Target()), kp106SourceOf(k.doc, p.Target())
			if ka.mode == cm.mode || ka.unknown || cm.unknown {
				continue
			}
			pos, end := cm.where()
			kpos, kend := ka.where()
			kfile := ka.doc.File.Outer().Path
			msg := fmt.Sprintf("kube-proxy ConfigMap kube-system/kube-proxy %s, but the kubeadm config in %s %s: kubeadm init and upgrade rewrite the ConfigMap from the kubeadm config", cm.describe(p.Target()), kfile, ka.describe(p.Target()))
			p.Report(checker.Finding{Message: msg, Pos: pos, End: end, Object: cm.doc.Ref(), Path: checker.Path{"mode"},
				Related: []checker.Related{{Pos: kpos, End: kend, Message: "the kubeadm KubeProxyConfiguration " + ka.describe(p.Target())}}})
		}
	}
}

// kp106SkipsProxy reports whether a kubeadm InitConfiguration skips the kube-proxy addon.
func kp106SkipsProxy(d *checker.Document) bool {
	_, n := d.Lookup(checker.Path{"skipPhases"})
	if n == nil {
		return false
	}
	for _, c := range n.Content {
		if c.Value == "addon/kube-proxy" || c.Value == "addon" {
			return true
		}
	}
	return false
}

// kp106Nearest returns the kubeadm sources of the ConfigMap's own cluster: a kubeadm config
// of another cluster (or of test data, or a shared file) says nothing about this ConfigMap.
func kp106Nearest(ws *checker.Workspace, cm kp106Source, all []kp106Source) []kp106Source {
	file := cm.doc.File.Outer().Path
	if ws.ClusterOf(file) == nil {
		return nil
	}
	var out []kp106Source
	for _, ka := range all {
		if ws.SameCluster(file, ka.doc.File.Outer().Path) {
			out = append(out, ka)
		}
	}
	return out
}
