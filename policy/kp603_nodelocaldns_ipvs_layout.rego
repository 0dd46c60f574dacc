# METADATA
# title: NodeLocal DNSCache in the ipvs layout
# description: |
#   NodeLocal DNSCache has two layouts. With iptables (and nftables) kube-proxy it binds both
#   the link-local address (169.254.20.10) and the kube-dns ClusterIP (`-localip
#   169.254.20.10,10.96.0.10`), so pods keep using the ClusterIP. With ipvs kube-proxy it
#   cannot bind the ClusterIP (ipvs already owns it on `kube-ipvs0`), so it binds only the
#   link-local address and kubelet's `clusterDNS` points there.
#
#   The ipvs layout keeps working after the move to nftables: pods still ask 169.254.20.10.
#   Switching to the other layout changes every node's DNS path and is a separate change with
#   its own rollout; do not fold it into the kube-proxy migration.
# custom:
#   id: KP603
#   name: nodelocaldns-ipvs-layout
#   severity: info
#   default: off
#   since: 0.1.0
#   kinds: [DaemonSet, KubeletConfiguration]
#   remediation: |
#     Keep NodeLocal DNSCache and kubelet `clusterDNS` as they are through the migration. Later,
#     if you want the iptables layout, add the kube-dns ClusterIP to `-localip` and point
#     `clusterDNS` back to it, node pool by node pool.
#   before: |
#     args: ["-localip", "169.254.20.10", "-conf", "/etc/Corefile"]
#   after: |
#     # unchanged during the kube-proxy migration
#     args: ["-localip", "169.254.20.10", "-conf", "/etc/Corefile"]
package kube_proxy_lint.rules.kp603

msg := "node-local-dns binds only %s (the ipvs layout, kubelet clusterDNS points to it): it keeps working in nftables mode; keep it as it is through the migration and change the layout separately"

containers contains [path, c] if {
	input.kind == "DaemonSet"
	some i, c in input.object.spec.template.spec.containers
	node_cache(c)
	path := ["spec", "template", "spec", "containers", i]
}

node_cache(c) if contains(c.image, "dns-node-cache")

node_cache(c) if contains(c.image, "node-cache")

node_cache(c) if input.object.metadata.name == "node-local-dns"

# "-localip", "169.254.20.10" as two arguments.
findings contains {"msg": sprintf(msg, [value]), "path": array.concat(path, [field, j + 1])} if {
	some [path, c] in containers
	some field in ["args", "command"]
	some j, arg in c[field]
	arg in {"-localip", "--localip"}
	value := c[field][j + 1]
	ipvs_layout(value)
}

# "-localip=169.254.20.10" as one argument.
findings contains {"msg": sprintf(msg, [value]), "path": array.concat(path, [field, j])} if {
	some [path, c] in containers
	some field in ["args", "command"]
	some j, arg in c[field]
	some prefix in ["-localip=", "--localip="]
	startswith(arg, prefix)
	value := substring(arg, count(prefix), -1)
	ipvs_layout(value)
}

# kubelet's clusterDNS pointing at a link-local NodeLocal DNSCache address.
findings contains {
	"msg": sprintf("kubelet clusterDNS %s is NodeLocal DNSCache's link-local address (the ipvs layout): it keeps working in nftables mode; keep it as it is through the migration and change the layout separately", [ip]),
	"path": ["clusterDNS", i],
} if {
	input.kind == "KubeletConfiguration"
	some i, ip in input.object.clusterDNS
	is_string(ip)
	startswith(ip, "169.254.")
	not kpl.placeholder(ip)
}

# One address, no kube-dns ClusterIP beside it. A placeholder ({{ .Values.localIP }},
# ${LOCAL_DNS_IP}) is unknown until rendered or expanded: never a finding.
ipvs_layout(value) if {
	is_string(value)
	value != ""
	not contains(value, ",")
	not kpl.placeholder(value)
}
