package report

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// TargetText says where a target version comes from, as the text summary line does:
// "from --target-version", "default", "from kubeadm kubernetesVersion at a.yaml:3:20".
func TargetText(t checker.Target) string {
	if s := targetSource(t); s != "" {
		return s
	}
	return "default"
}
