# METADATA
# title: kube-proxy replaced, yet kube-proxy configured
# description: |
#   Cilium (`kubeProxyReplacement: true`), Calico's eBPF data plane (`linuxDataplane: BPF`)
#   and kubeadm's `proxy.disabled` take kube-proxy's job. When the same cluster scope still
#   holds a kube-proxy DaemonSet or KubeProxyConfiguration, either two data planes program the
#   same Services (and fight over them), or the kube-proxy files are dead and every finding on
#   them is noise. A kube-proxy DaemonSet pinned to nodes labelled `non-calico: "true"` is the
#   documented Calico eBPF setup: kube-proxy runs only where Calico does not replace it.
#
#   When kube-proxy is replaced and nothing in the scope runs it, the rule reports one info at
#   the setting that replaces it, so the absence of kube-proxy findings is explained.
# custom:
#   id: KP601
#   name: kube-proxy-replaced
#   severity: warning
#   severity_text: warning; info when nothing in the scope runs kube-proxy
#   since: 0.1.0
#   kinds: ["", DaemonSet, Pod, Deployment, StatefulSet, ReplicaSet, Job, CronJob, KubeProxyConfiguration, ConfigMap, Installation, ClusterConfiguration, InitConfiguration, HelmRelease, Application]
#   remediation: |
#     Decide which data plane serves Services. If Cilium or Calico replaces kube-proxy, delete
#     the kube-proxy DaemonSet and its ConfigMap (kubeadm: `proxy.disabled: true` or
#     `--skip-phases=addon/kube-proxy`). If kube-proxy stays, turn the replacement off. With
#     Calico eBPF, pin kube-proxy to `non-calico: "true"` nodes.
#   before: |
#     # values.yaml of the cilium chart
#     kubeProxyReplacement: true
#     ---
#     # kube-system/kube-proxy DaemonSet still deployed
#   after: |
#     # values.yaml of the cilium chart
#     kubeProxyReplacement: true
#     # and no kube-proxy DaemonSet or ConfigMap
package kube_proxy_lint.rules.kp601

import data.kube_proxy_lint

same_scope(a, b) if a == b
same_scope(a, _) if a == ""
same_scope(_, b) if b == ""
same_scope(a, b) if startswith(a, concat("", [b, "/"]))
same_scope(a, b) if startswith(b, concat("", [a, "/"]))

# pinned are the workloads that carry their own replacement signal (the non-calico pin).
pinned contains r.workload if {
	some r in kube_proxy_lint.replacements
	r.workload
}

# active are this document's kube-proxies, except those pinned to non-Calico nodes.
active contains inst if {
	some inst in input.instances
	not is_pinned(inst)
}

is_pinned(inst) if pinned[inst.workload.id]

replaced_by(scope) := [r |
	some r in kube_proxy_lint.replacements
	not r.workload
	same_scope(r.doc.scope, scope)
]

where(r) := sprintf("%s:%d", [r.location.file, r.location.line])

# A workload still running kube-proxy.
findings contains {
	"msg": sprintf("%s still runs kube-proxy although %s (%s)", [inst.label, lower_first(rs[0].message), where(rs[0])]),
	"path": inst.container,
	"at": "key",
	"related": [{"msg": r.message, "location": r.location} | some r in rs],
} if {
	some inst in active
	inst.workload.id == input.id
	rs := replaced_by(inst.scope)
	count(rs) > 0
}

# A KubeProxyConfiguration that no workload in the repository runs, or an installer's.
findings contains {
	"msg": sprintf("kube-proxy is configured here although %s (%s)", [lower_first(rs[0].message), where(rs[0])]),
	"path": ["kind"],
	"at": "key",
	"related": [{"msg": r.message, "location": r.location} | some r in rs],
} if {
	some inst in active
	inst.kind in {"config", "installer"}
	inst.config.id == input.id
	rs := replaced_by(inst.scope)
	count(rs) > 0
}

# The replacement itself, when nothing in its scope runs kube-proxy.
findings contains {
	"msg": sprintf("%s: kube-proxy settings in this scope have no effect", [r.message]),
	"path": r.path,
	"at": "key",
	"severity": "info",
} if {
	some r in kube_proxy_lint.replacements
	r.doc.id == input.id
	not conflicting(r)
}

# Any kube-proxy in the scope, pinned or not, means kube-proxy still serves some nodes.
conflicting(r) if {
	not r.workload
	some inst in kube_proxy_lint.instances
	same_scope(inst.scope, r.doc.scope)
}

lower_first(s) := concat("", [lower(substring(s, 0, 1)), substring(s, 1, -1)])
