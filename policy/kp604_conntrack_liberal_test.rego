package kube_proxy_lint.rules.kp604_test

import data.kube_proxy_lint.rules.kp604

kpc := {"id": "c.yaml#0", "kind": "KubeProxyConfiguration", "object": {"mode": "nftables"}}

inst := {"config": {"id": "c.yaml#0"}, "mode": {"value": "nftables", "origin": "config", "doc": "c.yaml#0", "path": ["mode"]}}

test_unset_in_nftables if {
	some f in kp604.findings with input as kpc with input.instances as [inst]
	f.path == ["mode"]
}

test_default_mode_reports_at_kind if {
	default_mode := {"config": {"id": "c.yaml#0"}, "mode": {"value": "nftables", "origin": "default"}}
	some f in kp604.findings with input as kpc with input.instances as [default_mode]
	f.path == ["kind"]
}

test_set_false_is_a_decision if {
	cfg := {"id": "c.yaml#0", "kind": "KubeProxyConfiguration", "object": {"mode": "nftables", "conntrack": {"tcpBeLiberal": false}}}
	count(kp604.findings) == 0 with input as cfg with input.instances as [inst]
}

test_iptables_mode if {
	ipt := object.union(inst, {"mode": {"value": "iptables"}})
	count(kp604.findings) == 0 with input as kpc with input.instances as [ipt]
}

test_flag_only if {
	loc := {"file": "ds.yaml", "line": 12, "column": 30}
	flags_inst := {"workload": {"id": "ds.yaml#0"}, "configFlag": false, "container": ["spec", "containers", 0], "mode": {"value": "nftables", "location": loc}, "flags": []}
	some f in kp604.findings with input as {"id": "ds.yaml#0", "kind": "Pod", "object": {}} with input.instances as [flags_inst]
	f.location == loc
	startswith(f.msg, "--conntrack-tcp-be-liberal is unset")
}
