package load

import (
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

var talosKubeletRe = regexp.MustCompile(`/kubelet:(v?\d+\.\d+(?:\.\d+)?)`)

// detectInstallerTarget offers the Kubernetes versions that installer configurations name
// to target detection: Gardener spec.kubernetes.version, eksctl metadata.version, Talos
// machine.kubelet.image and KubeProxyConfig image tags.
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
