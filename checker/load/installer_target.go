package load

import (
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

var talosKubeletRe = regexp.MustCompile(`/kubelet:(v?\d+\.\d+(?:\.\d+)?)`)

// detectInstallerTarget offers the Kubernetes versions that installer configurations name
// to target detection: Gardener spec.kubernetes.version, eksctl metadata.version, Talos
// machine.kubelet.image and KubeProxyConfig image tags, KubeKey v4 spec.kubernetes.kube_version,
// aks-engine orchestratorVersion (or orchestratorRelease) and a Cluster API topology's
// version. (KubeKey v1alpha2, k0sctl, KubeOne and sealos versions are read in target.go.)
func detectInstallerTarget(d *checker.Document, consider func(s, what string, d *checker.Document, p checker.Path)) {
	switch {
	case d.Kind == "Shoot" && strings.HasPrefix(d.APIVersion, "core.gardener.cloud/"):
		consider(d.Str(checker.Path{"spec", "kubernetes", "version"}), "Gardener spec.kubernetes.version", d, checker.Path{"spec", "kubernetes", "version"})
	case d.Kind == "ClusterConfig" && strings.HasPrefix(d.APIVersion, "eksctl.io/"):
		consider(d.Str(checker.Path{"metadata", "version"}), "eksctl metadata.version", d, checker.Path{"metadata", "version"})
		for i := 0; d.Has(checker.Path{"addons"}.Append(i)); i++ {
			if d.Str(checker.Path{"addons"}.Append(i, "name")) == "kube-proxy" {
				p := checker.Path{"addons"}.Append(i, "version")
				consider(d.Str(p), "EKS kube-proxy add-on version", d, p)
			}
		}
	case d.Kind == "Config" && isKubeKey(d):
		p := checker.Path{"spec", "kubernetes", "kube_version"}
		consider(d.Str(p), "KubeKey spec.kubernetes.kube_version", d, p)
	case d.Kind == "Cluster" && strings.HasPrefix(d.APIVersion, "cluster.x-k8s.io/"):
		p := checker.Path{"spec", "topology", "version"}
		consider(d.Str(p), "Cluster API spec.topology.version", d, p)
	case isAKSEngineModel(d):
		for _, f := range []string{"orchestratorVersion", "orchestratorRelease"} {
			p := checker.Path{"properties", "orchestratorProfile", f}
			consider(d.Str(p), "aks-engine "+f, d, p)
		}
	case d.Kind == "" && d.Parent == nil && d.Has(checker.Path{"machine"}):
		p := checker.Path{"machine", "kubelet", "image"}
		if m := talosKubeletRe.FindStringSubmatch(d.Str(p)); m != nil {
			consider(m[1], "Talos kubelet image", d, p)
		}
		p = checker.Path{"cluster", "proxy", "image"}
		if img := d.Str(p); imageName(img) == "kube-proxy" {
			consider(imageTag(img), "Talos kube-proxy image", d, p)
		}
	}
}
