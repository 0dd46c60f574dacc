package load

import (
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// sealos: a Clusterfile holds a Cluster (apps.sealos.io/v1beta1) whose spec.image lists the
// cluster images (labring/kubernetes:v1.25.0, ...) and, as further documents, the kubeadm
// configuration sealos merges over its own defaults: ClusterConfiguration, InitConfiguration,
// KubeProxyConfiguration. sealos's default KubeProxyConfiguration sets mode "ipvs", so a
// Clusterfile without a mode runs ipvs. The kubeadm documents of a Clusterfile are read here,
// not as a kubeadm config of their own.

func init() {
	docInstallers = append(docInstallers, sealosInstances)
}

// sealosK8sImageRe matches sealos's Kubernetes cluster images and captures the version.
var sealosK8sImageRe = regexp.MustCompile(`(?:^|/)kubernetes(?:-[a-z]+)?:v?(\d+\.\d+(?:\.\d+)?)`)

func isSealosCluster(d *checker.Document) bool {
	return d.Kind == "Cluster" && strings.HasPrefix(d.APIVersion, "apps.sealos.io/")
}

// sealosClusterfile returns the sealos Cluster document of f, or nil.
func sealosClusterfile(f *checker.File) *checker.Document {
	for _, d := range f.Docs {
		if isSealosCluster(d) {
			return d
		}
	}
	return nil
}

// sealosK8sImage returns the path and version of the Kubernetes image of a sealos Cluster.
func sealosK8sImage(d *checker.Document) (checker.Path, string) {
	for i := 0; d.Has(checker.Path{"spec", "image"}.Append(i)); i++ {
		p := checker.Path{"spec", "image"}.Append(i)
		if m := sealosK8sImageRe.FindStringSubmatch(d.Str(p)); m != nil {
			return p, m[1]
		}
	}
	return nil, ""
}

func sealosInstances(ws *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil || !isSealosCluster(d) {
		return nil
	}
	var kpc, cc *checker.Document
	var disabled *checker.InstallerSetting
	for _, o := range d.File.Docs {
		switch {
		case o.Kind == "KubeProxyConfiguration" && kpc == nil:
			kpc = o
		case o.Kind == "ClusterConfiguration" && isKubeadm(o):
			cc = o
		case (o.Kind == "InitConfiguration" || o.Kind == "JoinConfiguration") && isKubeadm(o) && disabled == nil:
			disabled = skipPhasesSetting(o)
		}
	}
	if img, _ := sealosK8sImage(d); img == nil && cc == nil && kpc == nil {
		return nil // an application Clusterfile: no Kubernetes here
	}
	ins := &checker.Installer{
		Name: checker.InstallerSealos, Doc: d, File: d.File.Outer(), ModeKey: "KubeProxyConfiguration mode",
		Modes: lowerModes, Defaults: fixedDefault(checker.ModeIPVS),
		DefaultWhy: "sealos's default KubeProxyConfiguration sets mode ipvs",
		Disabled:   disabled,
	}
	ins.Anchor, ins.AnchorEnd = d.KindPos()
	if img, _ := sealosK8sImage(d); img != nil {
		ins.Anchor, ins.AnchorEnd, _ = d.ValuePos(img)
	}
	label := "sealos Cluster in " + d.File.Outer().Path
	if d.Name != "" {
		label = "sealos Cluster " + d.Name
	}
	in := newInstallerInstance(ins, label)
	if kpc == nil {
		ins.SetMode = func(spelled string) (checker.TextEdit, bool) {
			// The Clusterfile gets the KubeProxyConfiguration document it lacks.
			f := d.File.Outer()
			text := "---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: " + spelled + "\n"
			if n := len(f.Content); n > 0 && f.Content[n-1] != '\n' {
				text = "\n" + text
			}
			end := f.PositionAt(len(f.Content))
			return checker.TextEdit{Pos: end, End: end, NewText: text}, true
		}
	}
	if kpc != nil {
		ins.Patches = []*checker.Document{kpc}
		if s := yamlSetting(kpc, checker.Path{"mode"}); s != nil && (s.Value != "" || s.Placeholder) && kpc.Object != nil {
			in.Config = kpc
		} else {
			// sealos merges the document over its defaults: the mode stays ipvs.
			ins.IPVS = ipvsSection(kpc, checker.Path{"ipvs"})
			ins.SetMode = insertKey(kpc, nil, "mode")
		}
	}
	return []*checker.Instance{in}
}
