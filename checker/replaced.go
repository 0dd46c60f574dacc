package checker

import (
	"path"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"

	"go.yaml.in/yaml/v3"
)

// Replacement is a sign that something else does kube-proxy's job, or that an installer does
// not run kube-proxy at all (RULES.md §1, "kube-proxy replaced").
type Replacement struct {
	// By is cilium, calico-ebpf, non-calico-nodeselector, or the installer's name (kubeadm,
	// kind, kops, k3s, rke2, talos, gardener, kubespray, aks, ...).
	By string
	// Message says what replaces kube-proxy, for findings: "cilium replaces kube-proxy (...)".
	Message string
	// Doc and Path locate the setting in a YAML document; Doc is nil for text sources
	// (INI inventories, Terraform, install command lines).
	Doc  *Document
	Path Path
	// File is the real file holding the setting; Pos and End span it.
	File     string
	Pos, End Position
	// Workload is set when the signal is on a kube-proxy workload itself (a DaemonSet pinned
	// to non-Calico nodes): kube-proxy then still serves the other nodes.
	Workload *Document
	// Instance is the installer instance whose Disabled setting this is.
	Instance *Instance
	// Managed is true when the replacement also manages kube-proxy itself (Calico's operator
	// with kubeProxyManagement: Enabled disables the kube-proxy DaemonSet on the nodes it
	// takes over): a kube-proxy left in its scope is expected, not a conflict.
	Managed bool
}

// calicoPaths are where a Calico Installation spec sits: the operator's Installation object
// and the values of the tigera-operator Helm chart.
var calicoPaths = map[bool]Path{true: {"spec"}, false: {"installation"}}

// ciliumValuePaths are where Helm values of Cilium hold kubeProxyReplacement: a values file,
// an umbrella chart's cilium section, a Flux HelmRelease and an Argo CD Application.
var ciliumValuePaths = []Path{
	{"kubeProxyReplacement"},
	{"cilium", "kubeProxyReplacement"},
	{"spec", "values", "kubeProxyReplacement"},
	{"spec", "source", "helm", "valuesObject", "kubeProxyReplacement"},
}

// Replacements finds every sign in ws that kube-proxy is replaced or not installed, in
// document order, then the installer forms in instance order. kubeadm's proxy.disabled and
// skipPhases are read from the documents (also inside the kubeadm-config ConfigMap), so the
// kubeadm installer instance carrying the same setting is not counted twice.
func (ws *Workspace) Replacements() []Replacement {
	var out []Replacement
	add := func(d *Document, by, msg string, p Path) *Replacement {
		r := Replacement{By: by, Message: msg, Doc: d, Path: p, File: d.File.Outer().Path}
		var ok bool
		if r.Pos, r.End, ok = d.KeyPos(p); !ok {
			r.Pos, r.End = d.AbsentPos(p)
		}
		if ok && InTemplateConditional(d.File, r.Pos.Offset) {
			// Only some renderings of the template hold the setting: not a fact.
			return &Replacement{}
		}
		out = append(out, r)
		return &out[len(out)-1]
	}
	workloads := map[*Document]bool{}
	for _, in := range ws.Instances {
		if in.Workload != nil {
			workloads[in.Workload] = true
		}
	}
	for _, d := range ws.Docs {
		switch {
		case d.Kind == "ConfigMap" && d.Name == "cilium-config":
			p := P("data", "kube-proxy-replacement")
			if _, v := d.Lookup(p); replacing(v) {
				add(d, "cilium", "cilium replaces kube-proxy (cilium-config kube-proxy-replacement: "+v.Value+")", p)
			}
		case d.Kind == "Installation" && strings.HasPrefix(d.APIVersion, "operator.tigera.io/"):
			calicoBPF(d, calicoPaths[true], add)
		case d.Kind == "ClusterConfiguration" && strings.HasPrefix(d.APIVersion, "kubeadm.k8s.io/"):
			p := P("proxy", "disabled")
			if _, v := d.Lookup(p); v != nil {
				if b, ok := YAML11Bool(v); ok && b {
					add(d, InstallerKubeadm, "kubeadm does not install kube-proxy (proxy.disabled: true)", p)
				}
			}
		case d.Kind == "InitConfiguration" && strings.HasPrefix(d.APIVersion, "kubeadm.k8s.io/"):
			_, v := d.Lookup(P("skipPhases"))
			if v != nil && v.Kind == yaml.SequenceNode {
				for i, e := range v.Content {
					if e.Kind == yaml.ScalarNode && e.Value == "addon/kube-proxy" {
						add(d, InstallerKubeadm, "kubeadm does not install kube-proxy (skipPhases: addon/kube-proxy)", P("skipPhases", i))
					}
				}
			}
		case workloads[d]:
			spec := podSpecPath(d.Kind)
			if spec == nil {
				continue
			}
			p := spec.Append("nodeSelector", "non-calico")
			if d.Str(p) == "true" {
				add(d, "non-calico-nodeselector", "kube-proxy runs only on nodes labelled non-calico=true: Calico's eBPF data plane replaces it on the others", p).Workload = d
			}
		case d.Kind == "" || d.Kind == "HelmRelease" || d.Kind == "Application":
			if d.Kind == "" {
				calicoBPF(d, calicoPaths[false], add)
			}
			for _, p := range ciliumValuePaths {
				if _, v := d.Lookup(p); replacing(v) {
					add(d, "cilium", "cilium replaces kube-proxy (kubeProxyReplacement: "+v.Value+")", p)
				}
			}
		}
	}
	// A switch shared by layers of one configuration (a Talos KubeProxyConfig disabling the
	// machine config's kube-proxy, see cluster.mergeLayers) counts once, as the instance of
	// the document that writes it.
	byOwner := make([]*Instance, 0, len(ws.Instances))
	for _, own := range []bool{true, false} {
		for _, in := range ws.Instances {
			if in.IsDisabled() && (in.Installer.Disabled.Doc == nil || in.Installer.Disabled.Doc == in.Installer.Doc) == own {
				byOwner = append(byOwner, in)
			}
		}
	}
	seen := map[*InstallerSetting]bool{}
	for _, in := range byOwner {
		ins := in.Installer
		if ins.Name == InstallerKubeadm || seen[ins.Disabled] {
			continue
		}
		s := ins.Disabled
		seen[s] = true
		if ins.File != nil && s.Pos.IsValid() && InTemplateConditional(ins.File, s.Pos.Offset) {
			continue
		}
		if s.Doc != nil && strings.HasPrefix(s.Doc.APIVersion, "kubeadm.k8s.io/") {
			continue // a kubeadm document's switch (sealos Clusterfiles), counted above
		}
		r := Replacement{
			By: ins.Name, Message: in.Label + " does not run kube-proxy (" + settingText(s) + ")",
			Doc: s.Doc, Path: s.Path, File: s.Pos.Filename, Pos: s.Pos, End: s.End, Instance: in,
		}
		if in.Source != nil {
			r.File = in.Source.Path
		}
		out = append(out, r)
	}
	return out
}

// calicoBPF adds the sign of a Calico Installation spec (at spec, the Installation object's,
// or installation, the tigera-operator chart values') that selects the eBPF data plane.
// With kubeProxyManagement: Enabled the operator disables kube-proxy itself.
func calicoBPF(d *Document, spec Path, add func(d *Document, by, msg string, p Path) *Replacement) {
	p := spec.Append("calicoNetwork", "linuxDataplane")
	if d.Str(p) != "BPF" {
		return
	}
	mp := spec.Append("calicoNetwork", "kubeProxyManagement")
	if d.Str(mp) == "Enabled" {
		add(d, "calico-ebpf", "calico's eBPF data plane replaces kube-proxy and its operator manages kube-proxy (linuxDataplane: BPF, kubeProxyManagement: Enabled)", p).Managed = true
		return
	}
	add(d, "calico-ebpf", "calico's eBPF data plane replaces kube-proxy (linuxDataplane: BPF)", p)
}

// settingText shows an installer setting as its user wrote it: "key: value" in YAML, the
// text itself when the value holds its key (a command-line flag), else key=value.
func settingText(s *InstallerSetting) string {
	switch {
	case s.Doc != nil:
		return s.Key + ": " + s.Value
	case s.Key == "" || strings.Contains(s.Value, s.Key):
		return s.Value
	}
	return s.Key + "=" + s.Value
}

// replacing reports whether a kubeProxyReplacement value turns the replacement on: true
// (any YAML 1.1 spelling) or "strict" in charts before Cilium 1.14.
func replacing(v *yaml.Node) bool {
	if v == nil || v.Kind != yaml.ScalarNode || text.HasPlaceholder(v.Value) {
		return false
	}
	if b, ok := YAML11Bool(v); ok {
		return b
	}
	switch strings.ToLower(v.Value) {
	case "true", "strict":
		return true
	}
	return false
}

// podSpecPath returns the path of the pod spec in a workload kind.
func podSpecPath(kind string) Path {
	switch kind {
	case "Pod":
		return P("spec")
	case "DaemonSet", "Deployment", "StatefulSet", "ReplicaSet", "Job":
		return P("spec", "template", "spec")
	case "CronJob":
		return P("spec", "jobTemplate", "spec", "template", "spec")
	}
	return nil
}

// KubeProxyRemains reports whether the instance runs kube-proxy or still configures it: every
// workload, configuration and command line, and every installer that does not disable
// kube-proxy. A disabling installer remains when it still carries kube-proxy settings (an
// embedded KubeProxyConfiguration, extra args, a mode, ipvs knobs): they are dead, and
// KP601 says so.
func (in *Instance) KubeProxyRemains() bool {
	if !in.IsDisabled() {
		return true
	}
	ins := in.Installer
	return in.Config != nil || len(in.Flags) > 0 || len(ins.IPVS) > 0 ||
		(ins.Mode != nil && ins.Mode != ins.Disabled)
}

// Runs reports whether the instance runs kube-proxy: a workload or command line, or an
// installer that installs it. A standalone configuration only configures one.
func (in *Instance) Runs() bool {
	switch {
	case in.Workload != nil || in.Kind == InstanceCommand:
		return true
	case in.Installer != nil:
		return !in.IsDisabled()
	}
	return false
}

// ScopeOfInstance returns the name of the cluster of an instance (InstanceCluster), "" when
// it is in no cluster.
func (ws *Workspace) ScopeOfInstance(in *Instance) string {
	if c := ws.InstanceCluster(in); c != nil {
		return c.Name
	}
	return ""
}

// OtherCluster reports whether a replacement says nothing about instance in although they
// share a scope: an installer that does not run kube-proxy speaks for its own cluster, and
// another installer configuration (a second kind config, another kubespray vars file) in the
// same directory defines another cluster. It still speaks for the workloads, configurations
// and command lines of its scope, which are the kube-proxy it leaves behind.
// Layers of one configuration (Workspace.Layers) are one installer: a layer's switch speaks
// for the others.
func OtherCluster(ws *Workspace, r *Replacement, in *Instance) bool {
	return r.Instance != nil && in.Installer != nil && r.Instance != in && !ws.Layers(r.Instance, in)
}

// LayeringInstaller reports whether installer merges several configuration files of one
// cluster into one configuration: Talos machine configs, their patches and KubeProxyConfig
// documents; k3s and RKE2 config.yaml with its config.yaml.d drop-ins.
func LayeringInstaller(name string) bool {
	return name == InstallerTalos || name == InstallerK3s || name == InstallerRKE2
}

// Layers reports whether installer instances a and b are layers of one configuration: the
// same layering installer (LayeringInstaller) in one cluster.
func (ws *Workspace) Layers(a, b *Instance) bool {
	if a == nil || b == nil || a.Installer == nil || b.Installer == nil || a.Installer.Name != b.Installer.Name || !LayeringInstaller(a.Installer.Name) {
		return false
	}
	c := ws.InstanceCluster(a)
	return c != nil && c == ws.InstanceCluster(b)
}

// Replaced is the replacement view of a workspace, computed once per run: the signs that
// kube-proxy is replaced and the scopes where it is replaced and nothing runs or configures
// kube-proxy any more. The kube-proxy rules are quiet in those scopes (see Quiet).
type Replaced struct {
	// All lists the signs, as Workspace.Replacements returns them.
	All []Replacement
	// Conflicting[i] is true when kube-proxy remains in the cluster of All[i], running or
	// only configured (always for a kube-proxy pinned to non-Calico nodes, which still serves
	// the other nodes). The kube-proxy rules are quiet in the cluster unless a kube-proxy
	// runs there.
	Conflicting []bool
	// Clusters[i] is the cluster of All[i], nil for a sign in a shared file: it speaks for no
	// cluster, so it neither conflicts with nor quiets anything.
	Clusters []*Cluster
	ws       *Workspace
	quiet    []int // indices into All
	// installers maps the real file of each installer configuration to its instances.
	installers map[string][]*Instance
}

// Replaced computes the replacement view of ws.
func (ws *Workspace) Replaced() *Replaced {
	r := &Replaced{All: ws.Replacements(), ws: ws, installers: map[string][]*Instance{}}
	if len(r.All) == 0 {
		return r
	}
	for _, in := range ws.Instances {
		if in.Installer != nil && in.Source != nil {
			r.installers[in.Source.Path] = append(r.installers[in.Source.Path], in)
		}
	}
	type place struct {
		c    *Cluster
		in   *Instance
		runs bool
	}
	remain := make([]place, 0, len(ws.Instances))
	for _, in := range ws.Instances {
		if in.KubeProxyRemains() {
			if c := ws.InstanceCluster(in); c != nil {
				remain = append(remain, place{c, in, in.Runs()})
			}
		}
	}
	r.Conflicting = make([]bool, len(r.All))
	r.Clusters = make([]*Cluster, len(r.All))
	for i := range r.All {
		rep := &r.All[i]
		rc := ws.ClusterOf(rep.File)
		r.Clusters[i] = rc
		conflict, running := rep.Workload != nil, rep.Workload != nil
		for _, is := range remain {
			if running || rep.Managed || rc == nil {
				break
			}
			if is.c == rc && !OtherCluster(ws, rep, is.in) {
				conflict = true
				running = is.runs
			}
		}
		r.Conflicting[i] = conflict
		// Only a kube-proxy that runs keeps the rules speaking: a configuration left behind
		// (a kube-proxy ConfigMap no workload mounts, settings under a disabled installer)
		// is dead, KP601 says so, and the other rules are quiet about it rather than
		// fixing it.
		if !running && rc != nil {
			r.quiet = append(r.quiet, i)
		}
	}
	return r
}

// Quiet returns the replacement that silences the kube-proxy rules for file: one in the
// file's cluster in which nothing runs or configures kube-proxy. Shared files are never quiet:
// they take no cluster's evidence.
func (r *Replaced) Quiet(file string) (*Replacement, bool) {
	if len(r.quiet) == 0 {
		return nil, false
	}
	file = path.Clean(file)
	fc := r.ws.ClusterOf(file)
	if fc == nil {
		return nil, false
	}
	for _, i := range r.quiet {
		if r.Clusters[i] == fc && !r.otherCluster(&r.All[i], file) {
			return &r.All[i], true
		}
	}
	return nil, false
}

// QuietIn returns the replacement that silences the kube-proxy rules in cluster c, if any.
func (r *Replaced) QuietIn(c *Cluster) (*Replacement, bool) {
	if c == nil {
		return nil, false
	}
	for _, i := range r.quiet {
		if r.Clusters[i] == c {
			return &r.All[i], true
		}
	}
	return nil, false
}

// otherCluster reports whether file configures installers of which none is the one whose
// setting rep is: another cluster, which an installer's own switch does not quiet.
func (r *Replaced) otherCluster(rep *Replacement, file string) bool {
	ins := r.installers[file]
	if rep.Instance == nil || len(ins) == 0 {
		return false
	}
	for _, in := range ins {
		if in == rep.Instance || r.ws.Layers(in, rep.Instance) {
			return false
		}
	}
	return true
}

// KubeProxyRule reports whether a rule ID is one of the kube-proxy rules that are quiet in a
// scope where kube-proxy is replaced: KP101-KP106 and KP2xx-KP5xx. KP0xx (parse errors,
// unknown fields), KP6xx and KP9xx speak regardless, and so do user policies.
func KubeProxyRule(id string) bool {
	if len(id) != 5 || !strings.HasPrefix(id, "KP") {
		return false
	}
	switch id[2] {
	case '1':
		return id[3] == '0' && id[4] >= '1' && id[4] <= '6'
	case '2', '3', '4', '5':
		return true
	}
	return false
}
