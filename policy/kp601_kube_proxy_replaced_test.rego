package kube_proxy_lint.rules.kp601_test

import data.kube_proxy_lint.rules.kp601

cilium := {
	"by": "cilium", "message": "cilium replaces kube-proxy (kubeProxyReplacement: true)",
	"doc": {"id": "values.yaml#0", "scope": "."}, "scope": ".", "unit": "", "path": ["kubeProxyReplacement"],
	"location": {"file": "values.yaml", "line": 2, "column": 1},
}

daemonset := {
	"label": "DaemonSet kube-system/kube-proxy, container kube-proxy", "kind": "workload", "scope": ".", "unit": "",
	"workload": {"id": "ds.yaml#0"}, "container": ["spec", "template", "spec", "containers", 0],
}

test_workload_with_replacement if {
	some f in kp601.findings with input as {"id": "ds.yaml#0", "object": {}, "instances": [daemonset]}
		with data.kube_proxy_lint.replacements as [cilium]
	f.path == daemonset.container
	f.msg == "DaemonSet kube-system/kube-proxy, container kube-proxy still runs kube-proxy although cilium replaces kube-proxy (kubeProxyReplacement: true) (values.yaml:2)"
	f.related == [{"msg": cilium.message, "location": cilium.location}]
}

test_info_when_nothing_runs_kube_proxy if {
	some f in kp601.findings with input as {"id": "values.yaml#0", "object": {}, "instances": []}
		with data.kube_proxy_lint.instances as []
		with data.kube_proxy_lint.replacements as [cilium]
	f.severity == "info"
	f.path == ["kubeProxyReplacement"]
}

test_no_info_when_kube_proxy_runs if {
	count(kp601.findings) == 0 with input as {"id": "values.yaml#0", "object": {}, "instances": []}
		with data.kube_proxy_lint.instances as [daemonset]
		with data.kube_proxy_lint.replacements as [object.union(cilium, {"conflicting": true})]
}

test_other_scope if {
	other := object.union(daemonset, {"scope": "clusters/b"})
	elsewhere := object.union(cilium, {"doc": {"id": "values.yaml#0", "scope": "clusters/a"}, "scope": "clusters/a"})
	count(kp601.findings) == 0 with input as {"id": "ds.yaml#0", "object": {}, "instances": [other]}
		with data.kube_proxy_lint.replacements as [elsewhere]
}

test_other_unit if {
	# A kind config in test data does not see a replacement of the manifests elsewhere.
	test_kind := object.union(daemonset, {"scope": "hack/test/kind", "unit": "hack/test/kind"})
	count(kp601.findings) == 0 with input as {"id": "ds.yaml#0", "object": {}, "instances": [test_kind]}
		with data.kube_proxy_lint.replacements as [object.union(cilium, {"conflicting": true})]
}

test_managed_replacement_expects_kube_proxy if {
	# Calico's operator with kubeProxyManagement: Enabled disables kube-proxy itself.
	calico := object.union(cilium, {"by": "calico-ebpf", "managed": true, "conflicting": false})
	count([f | some f in kp601.findings; f.path == daemonset.container]) == 0 with input as {"id": "ds.yaml#0", "object": {}, "instances": [daemonset]}
		with data.kube_proxy_lint.replacements as [calico]
}

test_other_installer_is_another_cluster if {
	# A second kind config next to one with kubeProxyMode: none is another cluster.
	other := {
		"label": "kind Cluster in b.yaml", "kind": "installer", "scope": ".", "unit": "", "config": null, "flags": [],
		"installer": {"name": "kind", "file": "b.yaml", "doc": "b.yaml#0", "mode": null, "disabled": null, "ipvs": [], "anchor": {"file": "b.yaml", "line": 3, "column": 1}},
	}
	none := object.union(kind_none, {"file": "kind.yaml", "conflicting": false})
	count(kp601.findings) == 0 with input as {"id": "b.yaml#0", "object": {}, "instances": [other]}
		with data.kube_proxy_lint.instances as [other]
		with data.kube_proxy_lint.replacements as [none]
}

test_pinned_daemonset_is_expected if {
	pin := {
		"by": "non-calico-nodeselector", "message": "kube-proxy runs only on nodes labelled non-calico=true",
		"doc": {"id": "ds.yaml#0", "scope": "."}, "scope": ".", "unit": "", "path": ["spec"], "workload": "ds.yaml#0",
		"location": {"file": "ds.yaml", "line": 9, "column": 9},
	}
	f := kp601.findings with input as {"id": "ds.yaml#0", "object": {}, "instances": [daemonset]}
		with data.kube_proxy_lint.replacements as [pin, cilium]
	count(f) == 1
	some x in f
	x.severity == "info"
}

test_same_scope if {
	# Clusters are equal or not: a cluster below another is another cluster, and a shared
	# file ("") belongs to none.
	kp601.same_scope("a", "a")
	not kp601.same_scope("", "a")
	not kp601.same_scope("", "")
	not kp601.same_scope("a/b", "a")
	not kp601.same_scope("a", "b")
}

test_shared_replacement_quiets_nothing if {
	shared := object.union(cilium, {"doc": {"id": "values.yaml#0", "scope": ""}, "scope": ""})
	count(kp601.findings) == 0 with input as {"id": "ds.yaml#0", "object": {}, "instances": [daemonset]}
		with data.kube_proxy_lint.replacements as [shared]
	some f in kp601.findings with input as {"id": "values.yaml#0", "object": {}, "instances": []}
		with data.kube_proxy_lint.replacements as [shared]
	f.severity == "info"
	contains(f.msg, "belongs to no cluster")
}

kind_none := {
	"by": "kind", "message": "kind Cluster dev does not run kube-proxy (kubeProxyMode: none)",
	"doc": {"id": "kind.yaml#0", "scope": "."}, "scope": ".", "unit": "", "path": ["networking", "kubeProxyMode"],
	"location": {"file": "kind.yaml", "line": 7, "column": 3}, "installer": "kind Cluster dev", "conflicting": false,
}

test_installer_disabled_info if {
	f := kp601.findings with input as {"id": "kind.yaml#0", "object": {}, "instances": []}
		with data.kube_proxy_lint.instances as []
		with data.kube_proxy_lint.replacements as [kind_none]
	count(f) == 1
	some x in f
	x.severity == "info"
	x.path == ["networking", "kubeProxyMode"]
	endswith(x.msg, "kube-proxy rules are quiet here")
}

test_installer_disabled_with_daemonset if {
	some f in kp601.findings with input as {"id": "ds.yaml#0", "object": {}, "instances": [daemonset]}
		with data.kube_proxy_lint.replacements as [object.union(kind_none, {"conflicting": true})]
	contains(f.msg, "still runs kube-proxy although kind Cluster dev does not run kube-proxy")
}

test_text_source_replacement_counts if {
	# kubespray INI: no document, but the scope still sees the replacement.
	ini := {
		"by": "kubespray", "message": "kubespray inventory does not run kube-proxy (kube_proxy_remove=true)",
		"doc": null, "file": "inventory/hosts.ini", "scope": ".", "unit": "", "path": [],
		"location": {"file": "inventory/hosts.ini", "line": 4, "column": 1}, "conflicting": true,
	}
	some f in kp601.findings with input as {"id": "ds.yaml#0", "object": {}, "instances": [daemonset]}
		with data.kube_proxy_lint.replacements as [ini]
	f.path == daemonset.container
}

talos_mode := {
	"key": "mode", "value": "ipvs", "doc": "cp.yaml#0", "path": ["cluster", "proxy", "mode"],
	"location": {"file": "cp.yaml", "line": 11, "column": 5},
}

talos := {
	"label": "Talos machine config in cp.yaml", "kind": "installer", "scope": ".", "unit": "", "config": null, "flags": [],
	"installer": {
		"name": "talos", "doc": "cp.yaml#0", "mode": talos_mode, "ipvs": [],
		"disabled": {"key": "disabled", "value": "true", "location": {"file": "cp.yaml", "line": 10, "column": 5}},
		"anchor": {"file": "cp.yaml", "line": 9, "column": 3},
	},
}

talos_off := {
	"by": "talos", "message": "Talos machine config in cp.yaml does not run kube-proxy (disabled: true)",
	"doc": {"id": "cp.yaml#0", "scope": "."}, "scope": ".", "unit": "", "path": ["cluster", "proxy", "disabled"],
	"location": {"file": "cp.yaml", "line": 10, "column": 5}, "conflicting": true,
}

test_disabled_installer_leftover_mode if {
	f := kp601.findings with input as {"id": "cp.yaml#0", "object": {}, "instances": [talos]}
		with data.kube_proxy_lint.instances as [talos]
		with data.kube_proxy_lint.replacements as [talos_off]
	count(f) == 1
	some x in f
	x.path == ["cluster", "proxy", "mode"]
	x.location == talos_mode.location
	startswith(x.msg, "mode configures kube-proxy although talos machine config in cp.yaml does not run kube-proxy")
}

test_installer_installs_kube_proxy_where_replaced if {
	kind := {
		"label": "kind Cluster dev", "kind": "installer", "scope": ".", "unit": "", "config": null, "flags": [],
		"installer": {"name": "kind", "doc": "kind.yaml#0", "mode": null, "disabled": null, "ipvs": [], "anchor": {"file": "kind.yaml", "line": 3, "column": 1}},
	}
	some f in kp601.findings with input as {"id": "kind.yaml#0", "object": {}, "instances": [kind]}
		with data.kube_proxy_lint.instances as [kind]
		with data.kube_proxy_lint.replacements as [object.union(cilium, {"conflicting": true})]
	f.path == ["kind"]
	f.location == kind.installer.anchor
	startswith(f.msg, "kind Cluster dev installs kube-proxy although cilium replaces kube-proxy")
}
