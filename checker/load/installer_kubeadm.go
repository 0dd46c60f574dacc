package load

import (
	"path"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// kubeadm: a ClusterConfiguration (kubeadm.k8s.io/v1beta3, v1beta4, v1), in a multi-document
// file next to an optional KubeProxyConfiguration document, or inside the kubeadm-config
// ConfigMap (key ClusterConfiguration). kubeadm writes the kube-proxy ConfigMap from that
// document; without one it writes its own default: mode iptables (written explicitly since
// 1.37) through 1.39, nftables from 1.40.

func init() {
	docInstallers = append(docInstallers, kubeadmInstances)
}

func isKubeadm(d *checker.Document) bool {
	return strings.HasPrefix(d.APIVersion, "kubeadm.k8s.io/")
}

func kubeadmInstances(ws *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Kind != "ClusterConfiguration" || !isKubeadm(d) || imagesOnlyConfig(d) || d.Parent == nil && sealosClusterfile(d.File) != nil {
		return nil
	}
	ins := &checker.Installer{
		Name: checker.InstallerKubeadm, Doc: d, File: d.File.Outer(), ModeKey: "KubeProxyConfiguration mode",
		Modes: lowerModes, Defaults: upstreamDefaults,
		DefaultWhy: "kubeadm writes mode iptables when unset through 1.39 and defaults to nftables from 1.40",
	}
	ins.Anchor, ins.AnchorEnd = d.KindPos()
	if s, b, ok := boolSetting(d, checker.Path{"proxy", "disabled"}); ok && b {
		ins.Disabled = s
	}
	// A configuration in another document's string (cloud-init write_files, a custom
	// resource's field, a CI step's heredoc) is a kubeadm config file like any other; only the
	// kubeadm-config ConfigMap's copy is a record.
	inString := d.Parent != nil && !kubeadmRecord(d) && !isKindCluster(d.Parent)
	if d.Parent != nil && !inString && ins.Disabled == nil {
		// The kubeadm-config ConfigMap records the cluster's ClusterConfiguration, but kubeadm
		// keeps kube-proxy's settings in the kube-proxy ConfigMap: on its own it says nothing
		// about the mode, only whether kube-proxy is disabled.
		return nil
	}
	var kpc *checker.Document
	if d.Parent == nil || inString {
		for _, o := range d.File.Docs {
			switch {
			case o.Kind == "KubeProxyConfiguration" && kpc == nil:
				kpc = o
			case (o.Kind == "InitConfiguration" || o.Kind == "JoinConfiguration") && isKubeadm(o) && ins.Disabled == nil:
				ins.Disabled = skipPhasesSetting(o)
			}
		}
	}
	if inString && kpc == nil {
		// cloud-init and Cluster API write the KubeProxyConfiguration as another file of the
		// same document and append it to the kubeadm config before kubeadm init; Ansible
		// variables hold both as mappings that one template renders (vars_documents.go).
		for _, o := range d.Parent.Embedded {
			if o.Kind == "KubeProxyConfiguration" {
				kpc = o
				break
			}
		}
	}
	if inString && kpc == nil && chartValuesFile(ws, d.File.Outer().Path) {
		// A string of a Helm chart's values file is one input of a template, which may
		// append the KubeProxyConfiguration itself: the chart's rendering is the kubeadm
		// config (and a cluster of its own), judged with what the template adds.
		return nil
	}
	label := "kubeadm ClusterConfiguration in " + d.File.Outer().Path
	if d.Parent != nil {
		ref := d.Parent.Ref().String()
		switch {
		case d.File == d.Parent.File:
			// A mapping of an Ansible variables file (vars_documents.go).
			ref = d.File.Outer().Path + " key " + d.ParentPath[len(d.ParentPath)-1]
		case ref == "":
			ref = "a string of " + d.File.Outer().Path
		}
		label = "kubeadm ClusterConfiguration in " + ref
	}
	if kpc != nil {
		// The loader already made the document a standalone configuration instance: it
		// becomes the kubeadm instance, so that rules see one kube-proxy, not two.
		for _, in := range ws.Instances {
			if in.Config == kpc && in.Kind == checker.InstanceConfig {
				in.Kind, in.Installer, in.Source, in.Label = checker.InstanceInstaller, ins, ins.File, label
				return nil
			}
		}
	}
	in := newInstallerInstance(ins, label)
	in.Config = kpc
	return []*checker.Instance{in}
}

// imagesOnlyConfig reports whether a ClusterConfiguration only serves `kubeadm config images
// list/pull` (kubespray's kubeadm-images.yaml): a file named after images whose
// configuration says nothing about the cluster's control plane, network or proxy.
func imagesOnlyConfig(d *checker.Document) bool {
	if !strings.Contains(strings.ToLower(path.Base(d.File.Outer().Path)), "image") {
		return false
	}
	for _, k := range []string{"networking", "apiServer", "controlPlaneEndpoint", "proxy", "controllerManager", "scheduler", "certificatesDir"} {
		if _, v := d.Lookup(checker.Path{k}); v != nil {
			return false
		}
	}
	return true
}

// skipPhasesSetting returns the skipPhases entry that skips the kube-proxy addon.
func skipPhasesSetting(d *checker.Document) *checker.InstallerSetting {
	_, n := d.Lookup(checker.Path{"skipPhases"})
	if n == nil {
		return nil
	}
	for i, c := range n.Content {
		if c.Value == "addon/kube-proxy" || c.Value == "addon" {
			return yamlSetting(d, checker.Path{"skipPhases"}.Append(i))
		}
	}
	return nil
}

// chartValuesFile reports whether file is a values file (values.yaml, values-ENV.yaml) beside
// a Chart.yaml that the run reads.
func chartValuesFile(ws *checker.Workspace, file string) bool {
	base := path.Base(file)
	if base != "values.yaml" && base != "values.yml" && !valuesVariantRe.MatchString(base) {
		return false
	}
	return ws.File(path.Join(path.Dir(file), "Chart.yaml")) != nil
}

// kubeadmRecord reports whether d is kubeadm's own record of the cluster configuration: the
// ClusterConfiguration key of the kubeadm-config ConfigMap. Another ConfigMap that holds a
// kubeadm config (mounted into a bootstrap job or a node image builder) holds a config file
// like any other string.
func kubeadmRecord(d *checker.Document) bool {
	p := d.Parent
	if p == nil || p.Kind != "ConfigMap" {
		return false
	}
	return p.Name == "kubeadm-config" || len(d.ParentPath) > 0 && d.ParentPath[len(d.ParentPath)-1] == "ClusterConfiguration"
}
