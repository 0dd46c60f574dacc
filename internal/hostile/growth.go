package hostile

import (
	"fmt"
	"strings"
)

// Growth is a family of inputs that grow in one direction (flags on one line, continued lines,
// documents in one file): the shapes where a per-item scan of the whole line, command or file
// makes the work quadratic. Gen(n) returns the files of the input with n items; the benchmarks
// and tests compare n against 10n.
type Growth struct {
	Name string
	Gen  func(n int) map[string][]byte
}

// growthFlags are kube-proxy flags the rules read, cycled through by the flag shapes so that
// every flag rule sees many flags (and reports some).
var growthFlags = []string{
	"--proxy-mode=ipvs", "--v=2", "--feature-gates=NFTablesProxyMode=true,Foo=false", "--nodeport-addresses=127.0.0.0/8,10.0.0.0/8",
	"--ipvs-scheduler=rr", "--metrics-bind-address=0.0.0.0:10249", "--hostname-override=node", "--cluster-cidr=10.244.0.0/16",
	"--masquerade-all", "--conntrack-max-per-core=0", "--iptables-sync-period=30s", "--unknown-flag=x",
}

func growthFlag(i int) string { return growthFlags[i%len(growthFlags)] }

// kubeProxyDaemonSet is the head of a kube-proxy DaemonSet, up to its container's args.
const kubeProxyDaemonSet = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\n" +
	"spec:\n  template:\n    spec:\n      hostNetwork: true\n      containers:\n      - name: kube-proxy\n        image: registry.k8s.io/kube-proxy:v1.31.0\n"

// GrowthShapes are the growing inputs of the loader and the rules.
var GrowthShapes = []Growth{
	{"flags on one shell line", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("#!/bin/sh\nexec /usr/local/bin/kube-proxy")
		for i := range n {
			b.WriteString(" " + growthFlag(i))
		}
		b.WriteString("\n")
		return map[string][]byte{"start-kube-proxy.sh": []byte(b.String())}
	}},
	{"flags on one unit line", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("[Service]\nExecStart=/usr/local/bin/kube-proxy")
		for i := range n {
			b.WriteString(" " + growthFlag(i))
		}
		b.WriteString("\nRestart=always\n")
		return map[string][]byte{"kube-proxy.service": []byte(b.String())}
	}},
	{"continued shell lines", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("#!/bin/sh\nexec /usr/local/bin/kube-proxy \\\n")
		for i := range n {
			b.WriteString("  " + growthFlag(i) + " \\\n")
		}
		b.WriteString("  --v=2\n")
		return map[string][]byte{"start-kube-proxy.sh": []byte(b.String())}
	}},
	{"continued unit lines", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("[Service]\nExecStart=/usr/local/bin/kube-proxy \\\n")
		for i := range n {
			b.WriteString("  " + growthFlag(i) + " \\\n")
		}
		b.WriteString("  --v=2\nRestart=always\n")
		return map[string][]byte{"kube-proxy.service": []byte(b.String())}
	}},
	{"commands in one script", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("#!/bin/sh\n")
		for i := range n {
			fmt.Fprintf(&b, "if [ \"$NODE\" = n%d ]; then\n  /usr/local/bin/kube-proxy --proxy-mode=ipvs \\\n    --hostname-override=n%d\nfi\n", i, i)
		}
		return map[string][]byte{"start-kube-proxy.sh": []byte(b.String())}
	}},
	{"commands joined by &&", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("#!/bin/sh\n")
		for i := range n {
			fmt.Fprintf(&b, "iptables -t nat -N KUBE-SVC-%d && ", i)
		}
		b.WriteString("kube-proxy --proxy-mode=ipvs\n")
		return map[string][]byte{"chain.sh": []byte(b.String())}
	}},
	{"nested if blocks", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("#!/bin/sh\n")
		for i := range n {
			fmt.Fprintf(&b, "if [ \"$L%d\" = on ]; then\n", i)
		}
		b.WriteString("/usr/local/bin/kube-proxy --proxy-mode=ipvs\n")
		for range n {
			b.WriteString("fi\n")
		}
		return map[string][]byte{"start-kube-proxy.sh": []byte(b.String())}
	}},
	{"commands with --config and configurations", func(n int) map[string][]byte {
		var script, docs strings.Builder
		script.WriteString("#!/bin/sh\n")
		for i := range n {
			fmt.Fprintf(&script, "[ \"$NODE\" = n%d ] && kube-proxy --config=/etc/kubernetes/kube-proxy.yaml\n", i)
			fmt.Fprintf(&docs, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\nclusterCIDR: 10.%d.0.0/16\n---\n", i%250)
		}
		return map[string][]byte{"start.sh": []byte(script.String()), "kube-proxy.yaml": []byte(docs.String())}
	}},
	{"flag file lines", func(n int) map[string][]byte {
		var b strings.Builder
		for i := range n {
			b.WriteString(growthFlag(i) + "\n")
		}
		return map[string][]byte{"kube-proxy.flags": []byte(b.String())}
	}},
	{"DaemonSet args", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString(kubeProxyDaemonSet + "        args:\n")
		for i := range n {
			b.WriteString("        - " + growthFlag(i) + "\n")
		}
		return map[string][]byte{"kube-proxy.yaml": []byte(b.String())}
	}},
	{"DaemonSet sh -c command line", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString(kubeProxyDaemonSet + "        command:\n        - /bin/sh\n        - -c\n        - |\n          exec kube-proxy \\\n")
		for i := range n {
			b.WriteString("            " + growthFlag(i) + " \\\n")
		}
		b.WriteString("            --v=2\n")
		return map[string][]byte{"kube-proxy.yaml": []byte(b.String())}
	}},
	// The documents shapes put what the per-document pre-checks look for in the last document
	// only, so that a search of the whole file from every document reads it all n times.
	{"documents with a metric in the last", func(n int) map[string][]byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: r%d\nspec:\n  groups:\n  - name: g\n    rules:\n    - alert: A%d\n      expr: up == 0\n---\n", i, i)
		}
		b.WriteString("apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: last\nspec:\n  groups:\n  - name: g\n    rules:\n" +
			"    - alert: Restore\n      expr: rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m]) > 0\n")
		return map[string][]byte{"rules.yaml": []byte(b.String()), "kube-proxy.yaml": []byte(KubeProxyNFTables)}
	}},
	{"documents with a metric in each", func(n int) map[string][]byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: r%d\nspec:\n  groups:\n  - name: g\n    rules:\n"+
				"    - alert: Restore%d\n      expr: rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m]) > 0\n---\n", i, i)
		}
		return map[string][]byte{"rules.yaml": []byte(b.String()), "kube-proxy.yaml": []byte(KubeProxyNFTables)}
	}},
	{"documents with a KubeProxyConfiguration in the last", func(n int) map[string][]byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "write_files:\n- path: /etc/x%d.conf\n  content: |\n    a: b\n    c: d\n---\n", i)
		}
		b.WriteString("write_files:\n- path: /etc/kubernetes/kube-proxy.yaml\n  content: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: ipvs\n")
		return map[string][]byte{"cloud-init.yaml": []byte(b.String())}
	}},
	{"documents with an AKS kubeProxyConfig in the last", func(n int) map[string][]byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "type: Microsoft.ContainerService/managedClusters\nname: c%d\nproperties:\n  networkProfile:\n    networkPlugin: azure\n---\n", i)
		}
		b.WriteString("type: Microsoft.ContainerService/managedClusters\nname: last\nproperties:\n  networkProfile:\n    kubeProxyConfig:\n      enabled: true\n      mode: IPVS\n")
		return map[string][]byte{"aks.yaml": []byte(b.String())}
	}},
	{"documents with a containerd host in the last", func(n int) map[string][]byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "files:\n- path: /etc/x%d\n  content: |\n    a = 1\n---\n", i)
		}
		b.WriteString("files:\n- path: /etc/containerd/certs.d/localhost:32000/hosts.toml\n  content: |\n    [host.\"http://localhost:32000\"]\n      capabilities = [\"pull\"]\n")
		return map[string][]byte{"node.yaml": []byte(b.String()), "kube-proxy.yaml": []byte(KubeProxyIPVS)}
	}},
	{"kube-proxy ConfigMaps in one file", func(n int) map[string][]byte {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy-%d\n  namespace: kube-system\ndata:\n  config.conf: |\n"+
				"    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: ipvs\n    nodePortAddresses: [127.0.0.0/8]\n---\n", i)
		}
		return map[string][]byte{"kube-proxy.yaml": []byte(b.String())}
	}},
	// Issue 22 items 13 to 17: nesting that a parser recursed on or copied per level, and
	// per-item scans of a whole line, command or mapping.
	{"nested parentheses in a Terraform file", func(n int) map[string][]byte {
		// Past maxHCLNesting (1,000) the file is not parsed: KP001 instead of the add-on's
		// findings, and no stack overflow.
		return map[string][]byte{"eks.tf": []byte(tfKubeProxyAddon + "locals {\n  x = " + strings.Repeat("(", n) + "1" + strings.Repeat(")", n) + "\n}\n")}
	}},
	{"nested substitutions in a script", func(n int) map[string][]byte {
		return map[string][]byte{"start-kube-proxy.sh": []byte("#!/bin/sh\nexec /usr/local/bin/kube-proxy --proxy-mode=ipvs --hostname-override=" +
			strings.Repeat("$(echo ", n) + "node" + strings.Repeat(")", n) + "\n")}
	}},
	{"nested template tags in a manifest", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n")
		for _, open := range [][2]string{{"{{", "}}"}, {"{%", "%}"}, {"<%=", "%>"}} {
			b.WriteString("clusterCIDR: x" + strings.Repeat(open[0], n) + "y" + strings.Repeat(open[1], n) + "\n")
		}
		return map[string][]byte{"kube-proxy.yaml.j2": []byte(b.String())}
	}},
	{"flags of one command with --config", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("#!/bin/sh\nexec /usr/local/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf")
		for i := range n {
			b.WriteString(" " + growthFlag(i))
		}
		b.WriteString("\n")
		return map[string][]byte{"start-kube-proxy.sh": []byte(b.String())}
	}},
	{"unknown keys in a KubeProxyConfiguration", func(n int) map[string][]byte {
		var b strings.Builder
		b.WriteString("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nipvs:\n")
		for i := range n {
			fmt.Fprintf(&b, "  unknownIPVS%d: %d\n", i, i)
		}
		for i := range n {
			fmt.Fprintf(&b, "modee%d: ipvs\n", i)
		}
		return map[string][]byte{"kube-proxy.yaml": []byte(b.String())}
	}},
}

// tfKubeProxyAddon is the EKS kube-proxy add-on in Terraform, in ipvs mode.
const tfKubeProxyAddon = "resource \"aws_eks_addon\" \"kube_proxy\" {\n  cluster_name = \"c\"\n  addon_name   = \"kube-proxy\"\n" +
	"  configuration_values = jsonencode({ mode = \"ipvs\" })\n}\n"

// KubeProxyNFTables is a KubeProxyConfiguration in nftables mode.
const KubeProxyNFTables = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n"
