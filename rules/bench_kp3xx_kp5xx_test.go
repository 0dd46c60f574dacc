package rules

import (
	"fmt"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// benchTree generates an in-memory repository of clusters clusters, each with a kube-proxy
// configuration, NodePort Services, a hostNetwork agent, scripts, systemd units,
// containerd hosts.toml, a PrometheusRule and a dashboard ConfigMap: the inputs of the
// NodePort and metrics rules, most of them look-alikes.
func benchTree(clusters, scripts int) map[string][]byte {
	files := map[string][]byte{}
	for c := range clusters {
		dir := fmt.Sprintf("clusters/c%03d/", c)
		files[dir+"kustomization.yaml"] = []byte("resources: []\n")
		files[dir+"kube-proxy.yaml"] = fmt.Appendf(nil, "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: %s\n", []string{"ipvs", "iptables", "nftables"}[c%3])
		files[dir+"service.yaml"] = fmt.Appendf(nil, "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: NodePort\n  ports:\n  - port: 80\n    nodePort: %d\n", 30000+c)
		files[dir+"agent.yaml"] = fmt.Appendf(nil, "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: agent\nspec:\n  template:\n    spec:\n      hostNetwork: true\n      containers:\n      - name: a\n        image: localhost:32000/agent:1\n        args: [\"--server=http://127.0.0.1:%d\", \"--metrics-bind-address=127.0.0.1:9090\"]\n", 30000+c)
		files[dir+"node/hosts.toml"] = []byte("server = \"http://localhost:32000\"\n[host.\"http://localhost:32000\"]\n  capabilities = [\"pull\"]\n")
		files[dir+"monitoring/rules.yaml"] = []byte("apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: kp\nspec:\n  groups:\n  - name: kp\n    rules:\n    - alert: A\n      expr: rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m]) > 0\n    - alert: B\n      expr: histogram_quantile(0.99, sum by (le) (rate(kubeproxy_sync_proxy_rules_duration_seconds_bucket[5m]))) > 1\n")
		files[dir+"monitoring/dash.yaml"] = []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: d\ndata:\n  kp.json: |\n    {\"panels\": [{\"targets\": [{\"expr\": \"sum(rate(kubeproxy_sync_full_proxy_rules_duration_seconds_count[5m]))\"}]}]}\n")
		for s := range scripts {
			files[fmt.Sprintf("%sscripts/s%03d.sh", dir, s)] = fmt.Appendf(nil, "#!/bin/bash\nset -euo pipefail\n# check http://127.0.0.1:%d\nfor i in $(seq 1 10); do\n  curl -sf http://127.0.0.1:10256/healthz && break\n  sleep 1\ndone\nkubectl port-forward svc/web 31%03d:80 &\ncurl -s http://localhost:31%03d/\ncurl -s http://127.0.0.1:%d/api\n", 30000+s, s, s, 30000+s)
			files[fmt.Sprintf("%snode/u%03d.service", dir, s)] = fmt.Appendf(nil, "[Unit]\nDescription=u\n[Service]\nExecStart=/usr/bin/agent \\\n  --listen=127.0.0.1:%d \\\n  --upstream=http://localhost:%d\nRestart=always\n", 30000+s, 31000+s)
		}
	}
	return files
}

func benchRules(b *testing.B, clusters, scripts int) {
	v := checker.Version{Major: 1, Minor: 40}
	files := benchTree(clusters, scripts)
	ws := load.Files(files, &v)
	rules := []*checker.Rule{KP301, KP302, KP303, KP501, KP502}
	b.ReportMetric(float64(len(files)), "files")
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		for _, r := range rules {
			if err := r.Run(checker.NewPass(r, ws, func(checker.Finding) { n++ })); err != nil {
				b.Fatal(err)
			}
		}
		if n == 0 {
			b.Fatal("no findings")
		}
	}
}

// BenchmarkNodePortMetricRules runs KP301-KP303 and KP501-KP502 over generated trees with
// many scripts and units (go test -bench NodePortMetric ./rules).
func BenchmarkNodePortMetricRules(b *testing.B) {
	for _, size := range []struct{ clusters, scripts int }{{10, 20}, {40, 50}} {
		b.Run(fmt.Sprintf("clusters=%d,scripts=%d", size.clusters, size.scripts), func(b *testing.B) {
			benchRules(b, size.clusters, size.scripts)
		})
	}
}
