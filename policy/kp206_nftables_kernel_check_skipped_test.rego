package kube_proxy_lint.rules.kp206_test

import data.kube_proxy_lint.rules.kp206

instances := [{"workload": {"id": "ds.yaml#0"}, "container": ["spec", "containers", 0]}]

pod(env) := {"id": "ds.yaml#0", "kind": "Pod", "object": {"spec": {"containers": [{"name": "kube-proxy", "env": env}]}}}

test_variable_set if {
	f := kp206.findings with input as pod([{"name": "X", "value": "1"}, {"name": kp206.variable, "value": "1"}])
		with input.instances as instances
	f == {{
		"msg": "KUBE_PROXY_NFTABLES_SKIP_KERNEL_VERSION_CHECK is set on kube-proxy container \"kube-proxy\": kube-proxy skips its check for Linux >= 5.13 and runs nftables mode on kernels that may lack the features it needs",
		"path": ["spec", "containers", 0, "env", 1, "name"],
	}}
}

test_value_from_counts if {
	count(kp206.findings) == 1 with input as pod([{"name": kp206.variable, "valueFrom": {"configMapKeyRef": {"name": "x", "key": "y"}}}])
		with input.instances as instances
}

test_empty_value_is_unset if {
	count(kp206.findings) == 0 with input as pod([{"name": kp206.variable, "value": ""}])
		with input.instances as instances
}

test_other_container if {
	count(kp206.findings) == 0 with input as pod([{"name": kp206.variable, "value": "1"}])
		with input.instances as [{"workload": {"id": "other.yaml#0"}, "container": ["spec", "containers", 0]}]
}

test_placeholder_value_is_unknown if {
	every v in ["{{ .Values.skipKernelCheck }}", "${SKIP_CHECK}", "$(SKIP_CHECK)"] {
		count(kp206.findings) == 0 with input as pod([{"name": kp206.variable, "value": v}])
			with input.instances as instances
	}
}
