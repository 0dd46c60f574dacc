package kube_proxy_lint.rules.kp601_test

import data.kube_proxy_lint.rules.kp601

cilium := {
	"by": "cilium", "message": "cilium replaces kube-proxy (kubeProxyReplacement: true)",
	"doc": {"id": "values.yaml#0", "scope": ""}, "path": ["kubeProxyReplacement"],
	"location": {"file": "values.yaml", "line": 2, "column": 1},
}

daemonset := {
	"label": "DaemonSet kube-system/kube-proxy, container kube-proxy", "kind": "workload", "scope": "",
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
		with data.kube_proxy_lint.replacements as [cilium]
}

test_other_scope if {
	other := object.union(daemonset, {"scope": "clusters/b"})
	elsewhere := object.union(cilium, {"doc": {"id": "values.yaml#0", "scope": "clusters/a"}})
	count(kp601.findings) == 0 with input as {"id": "ds.yaml#0", "object": {}, "instances": [other]}
		with data.kube_proxy_lint.replacements as [elsewhere]
}

test_pinned_daemonset_is_expected if {
	pin := {
		"by": "non-calico-nodeselector", "message": "kube-proxy runs only on nodes labelled non-calico=true",
		"doc": {"id": "ds.yaml#0", "scope": ""}, "path": ["spec"], "workload": "ds.yaml#0",
		"location": {"file": "ds.yaml", "line": 9, "column": 9},
	}
	f := kp601.findings with input as {"id": "ds.yaml#0", "object": {}, "instances": [daemonset]}
		with data.kube_proxy_lint.replacements as [pin, cilium]
	count(f) == 1
	some x in f
	x.severity == "info"
}

test_same_scope if {
	kp601.same_scope("a", "a")
	kp601.same_scope("", "a")
	kp601.same_scope("a/b", "a")
	not kp601.same_scope("a", "b")
	not kp601.same_scope("ab", "a")
}
