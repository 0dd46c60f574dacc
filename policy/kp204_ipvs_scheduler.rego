# METADATA
# title: ipvs scheduler set
# description: |
#   `ipvs.scheduler` (or `--ipvs-scheduler`, or an installer's scheduler setting: kubespray
#   `kube_proxy_scheduler`, kops `ipvsScheduler`, AKS `ipvsConfig.scheduler`, EKS
#   `ipvs.scheduler`, `ipvs-scheduler` in k3s/RKE2 `kube-proxy-arg` or Talos `extraArgs`)
#   chooses how kube-proxy's ipvs mode picks a backend. It is one cluster-wide setting, but
#   each node's IPVS table only counts that node's own connections: `lc` (least connections)
#   balances per client node, not across the cluster, and conntrack pins established flows
#   anyway. The nftables mode has no schedulers: it picks
#   endpoints at random, so the setting disappears with the migration.
#
#   What people usually want from a scheduler is available on the Service instead:
#   `sessionAffinity: ClientIP` for stickiness (`sh`, source hashing) and
#   `internalTrafficPolicy: Local` or topology-aware routing for locality.
# custom:
#   id: KP204
#   name: ipvs-scheduler
#   severity: info
#   since: 0.1.0
#   kinds: ["", KubeProxyConfiguration, KubeProxyConfig, Cluster, ClusterConfig, KubeOneCluster, Config, DaemonSet, Pod, Deployment, StatefulSet, ReplicaSet, Job, CronJob, command line]
#   workloads: kube-proxy
#   modes: [ipvs]
#   remediation: |
#     Decide what the scheduler was for. For stickiness set `sessionAffinity: ClientIP` on the
#     Services that need it; for locality use `internalTrafficPolicy: Local` or topology-aware
#     routing. Then remove `ipvs.scheduler` together with the move off ipvs.
#   before: |
#     mode: ipvs
#     ipvs:
#       scheduler: lc
#   after: |
#     mode: nftables
package kube_proxy_lint.rules.kp204

# known is a scheduler as written: a non-empty string without a template placeholder. A
# placeholder ({{ .Values.scheduler }}, ${SCHED}, $(SCHED), a computed Terraform value) is
# unknown until the template is rendered or the variable expanded: never a finding.
known(v) if {
	is_string(v)
	v != ""
	not kpl.placeholder(v)
}

# ipvs_instances are the kube-proxies of this document whose effective mode is ipvs.
ipvs_instances contains inst if {
	some inst in input.instances
	inst.mode.value == "ipvs"
}

# The config field, in a KubeProxyConfiguration an ipvs-mode kube-proxy uses.
findings contains {
	"msg": sprintf("ipvs.scheduler %q balances each node's own connections, not the cluster's; nftables mode has no schedulers: use Service sessionAffinity or internalTrafficPolicy instead", [scheduler]),
	"path": ["ipvs", "scheduler"],
} if {
	input.kind == "KubeProxyConfiguration"
	scheduler := input.object.ipvs.scheduler
	known(scheduler)
	some inst in ipvs_instances
	inst.config.id == input.id
}

# The flag, where kube-proxy honours it (no --config) and runs in ipvs mode.
findings contains {
	"msg": sprintf("--ipvs-scheduler=%s balances each node's own connections, not the cluster's; nftables mode has no schedulers: use Service sessionAffinity or internalTrafficPolicy instead", [flag.value]),
	"path": flag.path,
	"location": flag.location,
} if {
	some inst in ipvs_instances
	inst.workload.id == input.id
	not inst.configFlag
	some flag in inst.flags
	flag.name == "ipvs-scheduler"
	known(flag.value)
	flag.doc == input.id
}

# The flag on a command line outside manifests (a script, a systemd unit, a Dockerfile), where
# kube-proxy honours it (no --config) and runs in ipvs mode: input is the file's command lines.
findings contains {
	"msg": sprintf("--ipvs-scheduler=%s balances each node's own connections, not the cluster's; nftables mode has no schedulers: use Service sessionAffinity or internalTrafficPolicy instead", [flag.value]),
	"path": [],
	"location": flag.location,
} if {
	input.kind == "command line"
	some inst in ipvs_instances
	inst.kind == "command"
	not inst.configFlag
	some flag in inst.flags
	flag.name == "ipvs-scheduler"
	known(flag.value)
	flag.location.file == input.file
}

# scheduler_keys are the installers' names for the scheduler (kubespray, kops, AKS and EKS).
scheduler_keys := {"kube_proxy_scheduler", "ipvsScheduler", "scheduler"}

# installers are the installer kube-proxies in ipvs mode that still run (not disabled) and
# have a setting in this document (input.instances joins them in advance).
installers contains inst if {
	some inst in input.instances
	inst.installer != null
	inst.mode.value == "ipvs"
	inst.installer.disabled == null
}

# An installer's scheduler setting, in the document that holds it (kubespray group_vars may
# spread the variables over several files).
findings contains {
	"msg": sprintf("%s %q balances each node's own connections, not the cluster's; nftables mode has no schedulers: use Service sessionAffinity or internalTrafficPolicy instead", [s.key, s.value]),
	"path": s.path,
	"location": s.valueLocation,
} if {
	some inst in installers
	some s in inst.installer.ipvs
	s.key in scheduler_keys
	s.doc == input.id
	not s.placeholder
	known(s.value)
}

# ipvs-scheduler in an installer's extra kube-proxy args (k3s/RKE2 kube-proxy-arg, Talos
# extraArgs, RKE1 extra_args).
findings contains {
	"msg": sprintf("ipvs-scheduler=%s balances each node's own connections, not the cluster's; nftables mode has no schedulers: use Service sessionAffinity or internalTrafficPolicy instead", [flag.value]),
	"path": flag.path,
	"location": flag.location,
} if {
	some inst in installers
	not inst.configFlag
	some flag in inst.flags
	flag.name == "ipvs-scheduler"
	known(flag.value)
	flag.doc == input.id
}
