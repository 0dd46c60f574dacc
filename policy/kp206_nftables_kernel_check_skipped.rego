# METADATA
# title: nftables kernel version check skipped
# description: |
#   kube-proxy's nftables mode needs Linux 5.13 or newer and refuses to start on older kernels.
#   The environment variable `KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK` turns that check
#   off without making the old kernel any more capable: kube-proxy starts, and then fails to
#   program rules or programs them wrongly on nodes whose kernel lacks the nftables features
#   it uses. The variable is meant for kernels that backport those features, after testing.
# custom:
#   id: KP206
#   name: nftables-kernel-check-skipped
#   severity: warning
#   since: 0.1.0
#   kinds: [DaemonSet, Pod, Deployment, StatefulSet, ReplicaSet, Job, CronJob]
#   workloads: kube-proxy
#   remediation: |
#     Remove the variable and upgrade the nodes to a kernel of 5.13 or newer (RHEL 9, Debian 12,
#     Ubuntu 22.04, Amazon Linux 2023). Until then run kube-proxy in iptables mode, not ipvs.
#     Keep the variable only for a kernel you know backports the features, and say so in a
#     comment.
#   before: |
#     env:
#     - name: KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK
#       value: "1"
#   after: |
#     env: []
package kube_proxy_lint.rules.kp206

variable := "KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK"

findings contains {
	"msg": sprintf("%s is set on kube-proxy container %q: kube-proxy skips its check for Linux >= 5.13 and runs nftables mode on kernels that may lack the features it needs", [variable, object.get(container, "name", "")]),
	"path": array.concat(inst.container, ["env", i, "name"]),
} if {
	some inst in input.instances
	inst.workload.id == input.id
	[path, container] := walk(input.object)
	path == inst.container
	some i, env in container.env
	env.name == variable
	set(env)
}

# kube-proxy checks for a non-empty value; valueFrom is unknown until run time, so it counts.
# A template placeholder ({{ .Values.skip }}, ${SKIP}) is unknown until the template is
# rendered, and may render empty: like every placeholder, never a finding.
set(env) if env.valueFrom
set(env) if {
	is_string(env.value)
	env.value != ""
	not kpl.placeholder(env.value)
}
