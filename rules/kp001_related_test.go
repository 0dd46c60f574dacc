package rules

import (
	"regexp"
	"testing"
)

// kp001RelatedRe is the definition kp001Related implements with substring searches.
var kp001RelatedRe = regexp.MustCompile(`(?i)kube-?proxy|kube_proxy|proxy-mode|proxyMode|kubeadm\.k8s\.io|kind\.x-k8s\.io|kops\.k8s\.io|talos\.dev|eksctl\.io|k3s|rke2|kubespray|KubeProxyConfiguration`)

func TestKP001RelatedMatchesRegexp(t *testing.T) {
	for _, c := range []string{"", "kind: ConfigMap\n", "image: registry.k8s.io/KUBE-PROXY:v1.33", "KubeProxy", "kube_Proxy", "PROXY-MODE",
		"proxyMode: ipvs", "apiVersion: kubeadm.k8s.io/v1beta4", "kind.x-k8s.io", "KOPS.k8s.io", "talos.dev", "eksctl.io", "K3S", "rke2",
		"Kubespray", "KubeProxyConfiguration", "kube proxy", "kubeadm-k8s-io", "proxy_mode", "k3", "rke",
		"\u212Aube-proxy (Kelvin sign)", "kube-prox", "y"} {
		if got, want := kp001Related([]byte(c)), kp001RelatedRe.MatchString(c); got != want {
			t.Errorf("kp001Related(%q) = %v, the expression says %v", c, got, want)
		}
	}
	// With one buffer for every file, as KP001 reads them: a file never sees the last one's text.
	var buf []byte
	for _, c := range []string{"some kube-proxy here", "kube", "KUBE-PROXY", "k", "\u212Aube-proxy", "rke", "RKE2"} {
		if got, want := kp001RelatedIn([]byte(c), &buf), kp001RelatedRe.MatchString(c); got != want {
			t.Errorf("kp001RelatedIn(%q) = %v, the expression says %v", c, got, want)
		}
	}
}
