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
#   Installers say the same in their own vocabulary: kind `networking.kubeProxyMode: none`,
#   kops and Gardener `kubeProxy.enabled: false`, k3s/RKE2 `disable-kube-proxy`, Talos
#   `cluster.proxy.disabled` (or `KubeProxyConfig` `enabled: false`), kubespray
#   `kube_proxy_remove`, AKS `kubeProxyConfig.enabled: false`. An installer that still carries
#   kube-proxy settings next to such a switch (a mode, extra args, ipvs knobs) holds dead
#   configuration; an installer that installs kube-proxy in a scope where something replaces
#   it runs two data planes.
#
#   When kube-proxy is replaced and nothing in the scope runs it, the rule reports one info at
#   the setting that replaces it, and the other kube-proxy rules (KP101-KP106, KP2xx-KP5xx)
#   are quiet in that scope: their findings are listed as suppressed, not reported.
#
#   Evidence stays in its scope: test data, examples, `hack/` and Ansible roles are trees of
#   their own, so the eBPF `Installation` of `manifests/` says nothing about the kind configs of
#   `hack/test/`; an installer that does not run kube-proxy speaks for its own cluster, not for
#   a second installer config next to it. Calico with `kubeProxyManagement: Enabled` disables
#   kube-proxy itself, so a kube-proxy DaemonSet in its scope is expected. A setting inside a
#   template conditional (`{{ if .Values.kpr }}kube-proxy-replacement: "true"{{ else }}`) holds
#   only for some renderings and is not a sign.
# custom:
#   id: KP601
#   name: kube-proxy-replaced
#   severity: warning
#   severity_text: warning; info when nothing in the scope runs kube-proxy
#   since: 0.1.0
#   kinds: ["", DaemonSet, Pod, Deployment, StatefulSet, ReplicaSet, Job, CronJob, KubeProxyConfiguration, ConfigMap, Installation, ClusterConfiguration, InitConfiguration, HelmRelease, Application, Cluster, Shoot, KubeProxyConfig, ClusterConfig, KubeOneCluster, Config]
#   replacements: required
#   workloads: kube-proxy
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

# A replacement speaks for its own cluster only; a shared file ("" scope) belongs to none.
same_scope(a, b) if {
	a != ""
	a == b
}

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

# replaced_by lists the replacements in the cluster scope of an instance: in an overlapping
# scope of the same self-contained tree (test data, examples and Ansible roles never see the
# rest of the repository), other than one that manages kube-proxy itself (Calico's operator
# with kubeProxyManagement: Enabled), for which a remaining kube-proxy is expected.
replaced_by(inst) := [r |
	some r in kube_proxy_lint.replacements
	not r.workload
	not r.managed
	same_scope(r.scope, inst.scope)
	not other_cluster(r, inst)
]

# other_cluster: an installer that does not run kube-proxy speaks for its own cluster only
# among installers; another installer configuration in the same directory (a second kind
# config, another kubespray vars file) defines another cluster.
other_cluster(r, inst) if {
	r.installer
	inst.installer != null
	not same_installer(r, inst)
}

same_installer(r, inst) if {
	r.installer == inst.label
	r.file == inst.installer.file
}

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
	rs := replaced_by(inst)
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
	rs := replaced_by(inst)
	count(rs) > 0
}

# An installer that installs kube-proxy (it does not disable it) where something replaces
# it: at its mode setting when it has one in this document, else at its anchor. An installer
# with an embedded KubeProxyConfiguration (kubeadm) is reported at that document above.
findings contains {
	"msg": sprintf("%s installs kube-proxy although %s (%s)", [inst.label, lower_first(rs[0].message), where(rs[0])]),
	"path": installer_path(inst),
	"at": "key",
	"location": installer_location(inst),
	"related": [{"msg": r.message, "location": r.location} | some r in rs],
} if {
	some inst in input.instances
	inst.installer.doc == input.id
	inst.installer.disabled == null
	inst.config == null
	rs := replaced_by(inst)
	count(rs) > 0
}

installer_path(inst) := inst.installer.mode.path if inst.installer.mode.doc == input.id
else := ["kind"]

installer_location(inst) := inst.installer.mode.location if inst.installer.mode.doc == input.id
else := inst.installer.anchor

# An installer that disables kube-proxy yet still sets kube-proxy options: each is dead.
findings contains {
	"msg": sprintf("%s configures kube-proxy although %s (%s)", [s.key, lower_first(rs[0].message), where(rs[0])]),
	"path": s.path,
	"at": "key",
	"location": s.location,
	"related": [{"msg": r.message, "location": r.location} | some r in rs],
} if {
	some inst in input.instances
	inst.installer.disabled != null
	some s in leftovers(inst)
	s.doc == input.id
	rs := replaced_by(inst)
	count(rs) > 0
}

# leftovers are the kube-proxy settings of a disabling installer: its mode (unless the mode
# is the switch itself, kind's none), ipvs knobs and extra args.
leftovers(inst) := array.concat(
	array.concat(
		[m | m := inst.installer.mode; m != null; m.location != inst.installer.disabled.location],
		inst.installer.ipvs,
	),
	[{"key": f.name, "path": f.path, "doc": f.doc, "location": f.location} | some f in inst.flags; f.doc],
)

# The replacement itself, when nothing in its scope runs or configures kube-proxy: the
# kube-proxy rules are quiet there (the engine computes the same from the same signs).
findings contains {
	"msg": sprintf("%s: kube-proxy settings in this cluster have no effect; kube-proxy rules are quiet here", [r.message]),
	"path": r.path,
	"at": "key",
	"severity": "info",
} if {
	some r in kube_proxy_lint.replacements
	r.doc.id == input.id
	not r.workload
	not r.conflicting
	r.scope != ""
}

# A replacement in a shared file (no cluster's root above it: add-on values, an optional
# overlay) speaks for no cluster: said once, so that the user can declare its cluster.
findings contains {
	"msg": sprintf("%s, but this file belongs to no cluster, so it quiets none; if it is part of a cluster, declare that cluster in .kube-proxy-lint.yaml (clusters:)", [r.message]),
	"path": r.path,
	"at": "key",
	"severity": "info",
} if {
	some r in kube_proxy_lint.replacements
	r.doc.id == input.id
	not r.workload
	r.scope == ""
}

# A kube-proxy pinned to non-Calico nodes: expected, noted once; kube-proxy rules still
# speak, since it serves those nodes.
findings contains {
	"msg": r.message,
	"path": r.path,
	"at": "key",
	"severity": "info",
} if {
	some r in kube_proxy_lint.replacements
	r.doc.id == input.id
	r.workload
}

lower_first(s) := concat("", [lower(substring(s, 0, 1)), substring(s, 1, -1)])
