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

kops_scheduler := {
	"key": "ipvsScheduler", "value": "sh", "doc": "cluster.yaml#0", "path": ["spec", "kubeProxy", "ipvsScheduler"],
	"location": {"file": "cluster.yaml", "line": 9, "column": 5},
	"valueLocation": {"file": "cluster.yaml", "line": 9, "column": 20},
}

kops := {
	"kind": "installer", "mode": {"value": "ipvs"}, "configFlag": false, "flags": [],
	"installer": {"name": "kops", "doc": "cluster.yaml#0", "disabled": null, "ipvs": [kops_scheduler]},
}

test_installer_scheduler_in_ipvs_mode if {
	some f in kp204.findings with input as {"id": "cluster.yaml#0", "kind": "Cluster", "object": {}, "instances": [kops]}
	f.path == kops_scheduler.path
	f.location == kops_scheduler.valueLocation
	startswith(f.msg, `ipvsScheduler "sh" balances`)
}

test_installer_scheduler_in_other_document if {
	# kubespray spreads its variables: the finding belongs to the file holding the scheduler.
	count(kp204.findings) == 0 with input as {"id": "other.yaml#0", "kind": "", "object": {}, "instances": [kops]}
}

test_installer_scheduler_not_ipvs if {
	iptables := object.union(kops, {"mode": {"value": "iptables"}})
	count(kp204.findings) == 0 with input as {"id": "cluster.yaml#0", "kind": "Cluster", "object": {}, "instances": [iptables]}
}

test_installer_disabled if {
	off := object.union(kops, {"installer": {"disabled": {"key": "enabled", "value": "false"}}})
	count(kp204.findings) == 0 with input as {"id": "cluster.yaml#0", "kind": "Cluster", "object": {}, "instances": [off]}
}

test_installer_extra_args_scheduler if {
	flag := {"name": "ipvs-scheduler", "value": "wrr", "doc": "config.yaml#0", "path": ["kube-proxy-arg", 1], "location": {"file": "config.yaml", "line": 3, "column": 5}}
	k3s := {
		"kind": "installer", "mode": {"value": "ipvs"}, "configFlag": false, "flags": [flag],
		"installer": {"name": "k3s", "doc": "config.yaml#0", "disabled": null, "ipvs": []},
	}
	some f in kp204.findings with input as {"id": "config.yaml#0", "kind": "", "object": {}, "instances": [k3s]}
	f.path == ["kube-proxy-arg", 1]
	f.location == flag.location
}

# A placeholder is unknown until the template is rendered or the variable expanded: never a
# finding, whichever template family (Helm, envsubst, a computed Terraform value).
placeholders := ["{{ .Values.scheduler }}", "${SCHED}", "$SCHED", "$(SCHED)", "${var.ipvs_scheduler}", "{{ ipvs_scheduler }}"]

test_config_placeholder_scheduler if {
	every p in placeholders {
		cfg := {"id": "a.yaml#0", "kind": "KubeProxyConfiguration", "object": {"mode": "ipvs", "ipvs": {"scheduler": p}}}
		count(kp204.findings) == 0 with input as cfg with input.instances as ipvs_instances
	}
}

test_flag_placeholder_scheduler if {
	every p in placeholders {
		flag := {"name": "ipvs-scheduler", "value": p, "doc": "ds.yaml#0", "path": ["x"], "location": {}}
		view := [{"mode": {"value": "ipvs"}, "workload": {"id": "ds.yaml#0"}, "configFlag": false, "flags": [flag]}]
		count(kp204.findings) == 0 with input as {"id": "ds.yaml#0", "kind": "DaemonSet", "object": {}} with input.instances as view
	}
}

test_command_line_placeholder_scheduler if {
	every p in placeholders {
		flag := {"name": "ipvs-scheduler", "value": p, "location": {"file": "node.sh", "line": 3, "column": 50}}
		view := [{"kind": "command", "mode": {"value": "ipvs"}, "configFlag": false, "flags": [flag]}]
		count(kp204.findings) == 0 with input as {"id": "node.sh", "file": "node.sh", "kind": "command line", "object": {}} with input.instances as view
	}
}

test_command_line_literal_scheduler if {
	flag := {"name": "ipvs-scheduler", "value": "sh", "location": {"file": "node.sh", "line": 3, "column": 50}}
	view := [{"kind": "command", "mode": {"value": "ipvs"}, "configFlag": false, "flags": [flag]}]
	some f in kp204.findings with input as {"id": "node.sh", "file": "node.sh", "kind": "command line", "object": {}} with input.instances as view
	f.location == flag.location
}

test_installer_placeholder_scheduler if {
	every p in placeholders {
		s := object.union(kops_scheduler, {"value": p})
		inst := object.union(kops, {"installer": {"ipvs": [s]}})
		count(kp204.findings) == 0 with input as {"id": "cluster.yaml#0", "kind": "Cluster", "object": {}, "instances": [inst]}
	}
}

test_installer_setting_marked_placeholder if {
	# The loader knows the value comes from a variable even when its text does not show it.
	s := object.union(kops_scheduler, {"placeholder": true})
	inst := object.union(kops, {"installer": {"ipvs": [s]}})
	count(kp204.findings) == 0 with input as {"id": "cluster.yaml#0", "kind": "Cluster", "object": {}, "instances": [inst]}
}

test_installer_extra_args_placeholder_scheduler if {
	every p in placeholders {
		flag := {"name": "ipvs-scheduler", "value": p, "doc": "config.yaml#0", "path": ["kube-proxy-arg", 1], "location": {}}
		k3s := {
			"kind": "installer", "mode": {"value": "ipvs"}, "configFlag": false, "flags": [flag],
			"installer": {"name": "k3s", "doc": "config.yaml#0", "disabled": null, "ipvs": []},
		}
		count(kp204.findings) == 0 with input as {"id": "config.yaml#0", "kind": "", "object": {}, "instances": [k3s]}
	}
}
