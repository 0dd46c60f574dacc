package load

import "testing"

// TestKubeadmStringsAnchor checks that a kubeadm InitConfiguration in a string names its cluster
// as the same file would, and that a join config in a string names none.
func TestKubeadmStringsAnchor(t *testing.T) {
	str := func(kind string) []byte {
		return []byte("#cloud-config\nwrite_files:\n- path: /etc/kubernetes/kubeadm.yaml\n  content: |\n    apiVersion: kubeadm.k8s.io/v1beta4\n    kind: " + kind + "\n    nodeRegistration:\n      name: cp\n")
	}
	kpc := []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n")
	ws := Files(map[string][]byte{
		"init/user-data.yaml": str("InitConfiguration"),
		"join/user-data.yaml": str("JoinConfiguration"),
		"kube-proxy.yaml":     kpc,
	}, nil)
	got := map[string]string{}
	for _, c := range ws.Clusters {
		for _, a := range c.Anchors {
			got[a.Pos.Filename] = c.Name
		}
	}
	if _, ok := got["init/user-data.yaml"]; !ok {
		t.Errorf("init string anchors no cluster: %v", got)
	}
	if _, ok := got["join/user-data.yaml"]; ok {
		t.Errorf("join string anchors a cluster: %v", got)
	}
}
