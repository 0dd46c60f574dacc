package policy

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// ciliumValuePaths are where Helm values of Cilium hold kubeProxyReplacement: a values file,
// an umbrella chart's cilium section, a Flux HelmRelease and an Argo CD Application.
var ciliumValuePaths = []checker.Path{
	{"kubeProxyReplacement"},
	{"cilium", "kubeProxyReplacement"},
	{"spec", "values", "kubeProxyReplacement"},
	{"spec", "source", "helm", "valuesObject", "kubeProxyReplacement"},
}

// replacements finds the signs that kube-proxy is replaced (RULES.md §1, "kube-proxy
// replaced"). Installer forms (kind, kops, k3s, Talos, ...) come with the installers.
func (c *viewCtx) replacements() []Replacement {
	ws := c.ws
	out := []Replacement{}
	add := func(d *checker.Document, by, msg string, p checker.Path) {
		r := Replacement{By: by, Message: msg, Doc: c.docRef(d), Path: p}
		pos, end, ok := d.KeyPos(p)
		if !ok {
			pos, end = d.AbsentPos(p)
		}
		r.Location = loc(pos, end)
		out = append(out, r)
	}
	workloads := map[*checker.Document]bool{}
	for _, in := range ws.Instances {
		if in.Workload != nil {
			workloads[in.Workload] = true
		}
	}
	for _, d := range ws.Docs {
		switch {
		case d.Kind == "ConfigMap" && d.Name == "cilium-config":
			p := checker.P("data", "kube-proxy-replacement")
			if _, v := d.Lookup(p); replacing(v) {
				add(d, "cilium", "cilium replaces kube-proxy (cilium-config kube-proxy-replacement: "+v.Value+")", p)
			}
		case d.Kind == "Installation" && strings.HasPrefix(d.APIVersion, "operator.tigera.io/"):
			p := checker.P("spec", "calicoNetwork", "linuxDataplane")
			if d.Str(p) == "BPF" {
				add(d, "calico-ebpf", "calico's eBPF data plane replaces kube-proxy (linuxDataplane: BPF)", p)
			}
		case d.Kind == "ClusterConfiguration" && strings.HasPrefix(d.APIVersion, "kubeadm.k8s.io/"):
			p := checker.P("proxy", "disabled")
			if _, v := d.Lookup(p); v != nil {
				if b, ok := checker.YAML11Bool(v); ok && b {
					add(d, "kubeadm", "kubeadm does not install kube-proxy (proxy.disabled: true)", p)
				}
			}
		case d.Kind == "InitConfiguration" && strings.HasPrefix(d.APIVersion, "kubeadm.k8s.io/"):
			_, v := d.Lookup(checker.P("skipPhases"))
			if v != nil && v.Kind == yaml.SequenceNode {
				for i, e := range v.Content {
					if e.Kind == yaml.ScalarNode && e.Value == "addon/kube-proxy" {
						add(d, "kubeadm", "kubeadm does not install kube-proxy (skipPhases: addon/kube-proxy)", checker.P("skipPhases", i))
					}
				}
			}
		case workloads[d]:
			spec := podSpec(d.Kind)
			if spec == nil {
				continue
			}
			p := spec.Append("nodeSelector", "non-calico")
			if d.Str(p) == "true" {
				r := len(out)
				add(d, "non-calico-nodeselector", "kube-proxy runs only on nodes labelled non-calico=true: Calico's eBPF data plane replaces it on the others", p)
				out[r].Workload = docID(d)
			}
		case d.Kind == "" || d.Kind == "HelmRelease" || d.Kind == "Application":
			for _, p := range ciliumValuePaths {
				if _, v := d.Lookup(p); replacing(v) {
					add(d, "cilium", "cilium replaces kube-proxy (kubeProxyReplacement: "+v.Value+")", p)
				}
			}
		}
	}
	return out
}

// replacing reports whether a kubeProxyReplacement value turns the replacement on: true
// (any YAML 1.1 spelling) or "strict" in charts before Cilium 1.14.
func replacing(v *yaml.Node) bool {
	if v == nil || v.Kind != yaml.ScalarNode || checker.HasPlaceholder(v.Value) {
		return false
	}
	if b, ok := checker.YAML11Bool(v); ok {
		return b
	}
	switch strings.ToLower(v.Value) {
	case "true", "strict":
		return true
	}
	return false
}

// podSpec returns the path of the pod spec in a workload kind.
func podSpec(kind string) checker.Path {
	switch kind {
	case "Pod":
		return checker.P("spec")
	case "DaemonSet", "Deployment", "StatefulSet", "ReplicaSet", "Job":
		return checker.P("spec", "template", "spec")
	case "CronJob":
		return checker.P("spec", "jobTemplate", "spec", "template", "spec")
	}
	return nil
}
