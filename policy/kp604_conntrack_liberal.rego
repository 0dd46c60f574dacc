# METADATA
# title: conntrack.tcpBeLiberal unset in nftables mode
# description: |
#   In iptables mode kube-proxy drops packets that conntrack marks INVALID. That rule works
#   around a bug of kernels before 6.1 that resets long-lived TCP connections after an
#   out-of-window packet. nftables mode never installs the rule, so on those kernels
#   long-lived connections through Services can start to reset after the migration.
#   `conntrack.tcpBeLiberal: true` (`--conntrack-tcp-be-liberal`) makes conntrack accept such
#   packets instead, which fixes the same problem at its source.
#
#   The rule is advice and off by default: on kernels 6.1 and newer nothing needs to change.
# custom:
#   id: KP604
#   name: conntrack-liberal
#   severity: info
#   default: off
#   since: 0.1.0
#   kinds: [KubeProxyConfiguration, DaemonSet, Pod, Deployment, StatefulSet, ReplicaSet, Job, CronJob]
#   modes: [nftables]
#   workloads: kube-proxy
#   remediation: |
#     If nodes run kernels older than 6.1 and carry long-lived connections through Services,
#     set `conntrack.tcpBeLiberal: true`. Otherwise leave it unset, or set it to false to
#     record the decision (the rule then stays quiet).
#   before: |
#     mode: nftables
#   after: |
#     mode: nftables
#     conntrack:
#       tcpBeLiberal: true
package kube_proxy_lint.rules.kp604

msg := "conntrack.tcpBeLiberal is unset and the effective mode is nftables, which has no INVALID-drop workaround: if long-lived connections reset on kernels before 6.1, set it to true"

nftables contains inst if {
	some inst in input.instances
	inst.mode.value == "nftables"
}

# A KubeProxyConfiguration in nftables mode: at mode when it is set here, else at kind.
findings contains {"msg": msg, "path": path, "at": "key"} if {
	input.kind == "KubeProxyConfiguration"
	some inst in nftables
	inst.config.id == input.id
	not has_liberal(input.object)
	path := mode_path(inst)
}

mode_path(inst) := inst.mode.path if inst.mode.doc == input.id
else := ["kind"]

has_liberal(obj) if obj.conntrack.tcpBeLiberal != null

# Flags only (no --config): at the --proxy-mode flag or the container.
findings contains {
	"msg": replace(msg, "conntrack.tcpBeLiberal", "--conntrack-tcp-be-liberal"),
	"path": inst.container,
	"at": "key",
	"location": inst.mode.location,
} if {
	some inst in nftables
	inst.workload.id == input.id
	not inst.configFlag
	inst.mode.location
	not liberal_flag(inst)
}

findings contains {
	"msg": replace(msg, "conntrack.tcpBeLiberal", "--conntrack-tcp-be-liberal"),
	"path": inst.container,
	"at": "key",
} if {
	some inst in nftables
	inst.workload.id == input.id
	not inst.configFlag
	not inst.mode.location
	not liberal_flag(inst)
}

liberal_flag(inst) if {
	some f in inst.flags
	f.name == "conntrack-tcp-be-liberal"
}
