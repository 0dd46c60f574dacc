package kube_proxy_lint.rules.kp603_test

import data.kube_proxy_lint.rules.kp603

ds(args) := {"kind": "DaemonSet", "object": {"metadata": {"name": "node-local-dns"}, "spec": {"template": {"spec": {"containers": [{"name": "node-cache", "image": "registry.k8s.io/dns/k8s-dns-node-cache:1.23.1", "args": args}]}}}}}

test_separate_arguments if {
	some f in kp603.findings with input as ds(["-localip", "169.254.20.10", "-conf", "/etc/Corefile"])
	f.path == ["spec", "template", "spec", "containers", 0, "args", 1]
	startswith(f.msg, "node-local-dns binds only 169.254.20.10")
}

test_joined_argument if {
	some f in kp603.findings with input as ds(["-localip=169.254.20.10"])
	f.path == ["spec", "template", "spec", "containers", 0, "args", 0]
}

test_iptables_layout if {
	count(kp603.findings) == 0 with input as ds(["-localip", "169.254.20.10,10.96.0.10"])
}

test_kubelet_cluster_dns if {
	some f in kp603.findings with input as {"kind": "KubeletConfiguration", "object": {"clusterDNS": ["169.254.20.10"]}}
	f.path == ["clusterDNS", 0]
}

test_kubelet_cluster_ip if {
	count(kp603.findings) == 0 with input as {"kind": "KubeletConfiguration", "object": {"clusterDNS": ["10.96.0.10"]}}
}

test_placeholder_localip_and_cluster_dns if {
	count(kp603.findings) == 0 with input as ds(["-localip", "{{ .Values.localIP }}", "-localip=${LOCAL_DNS_IP}"])
	count(kp603.findings) == 0 with input as {"kind": "KubeletConfiguration", "object": {"clusterDNS": ["169.254.{{ .Values.suffix }}"]}}
}
