package kube_proxy_lint.rules.kp204_test

import data.kube_proxy_lint.rules.kp204

config_input := {
	"id": "a.yaml#0",
	"kind": "KubeProxyConfiguration",
	"object": {"mode": "ipvs", "ipvs": {"scheduler": "lc"}},
}

ipvs_instances := [{"mode": {"value": "ipvs"}, "config": {"id": "a.yaml#0"}, "flags": []}]

test_config_scheduler_in_ipvs_mode if {
	some f in kp204.findings with input as config_input with input.instances as ipvs_instances
	f.path == ["ipvs", "scheduler"]
	contains(f.msg, `"lc"`)
}

test_no_finding_when_mode_not_ipvs if {
	view := [{"mode": {"value": "nftables"}, "config": {"id": "a.yaml#0"}, "flags": []}]
	count(kp204.findings) == 0 with input as config_input with input.instances as view
}

test_no_finding_without_scheduler if {
	cfg := {"id": "a.yaml#0", "kind": "KubeProxyConfiguration", "object": {"mode": "ipvs", "ipvs": {"syncPeriod": "30s"}}}
	count(kp204.findings) == 0 with input as cfg with input.instances as ipvs_instances
}

test_flag_without_config if {
	flag := {"name": "ipvs-scheduler", "value": "rr", "doc": "ds.yaml#0", "path": ["spec", "template", "spec", "containers", 0, "command", 2], "location": {"file": "ds.yaml", "line": 9, "column": 11}}
	view := [{"mode": {"value": "ipvs"}, "workload": {"id": "ds.yaml#0"}, "configFlag": false, "flags": [flag]}]
	some f in kp204.findings with input as {"id": "ds.yaml#0", "kind": "DaemonSet", "object": {}} with input.instances as view
	f.path == flag.path
	f.location == flag.location
}

test_flag_ignored_with_config if {
	flag := {"name": "ipvs-scheduler", "value": "rr", "doc": "ds.yaml#0", "path": ["x"], "location": {}}
	view := [{"mode": {"value": "ipvs"}, "workload": {"id": "ds.yaml#0"}, "configFlag": true, "flags": [flag]}]
	count(kp204.findings) == 0 with input as {"id": "ds.yaml#0", "kind": "DaemonSet", "object": {}} with input.instances as view
}
