package rules_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestKP501QueryFacts: with the run's rules, the loader keeps of a dashboard only the queries
// KP501 reads (those naming a metric only some modes export), not every kube-proxy query,
// and KP501 finds what it finds on the whole tree.
func TestKP501QueryFacts(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"kube-proxy.yaml": "# target: 1.40\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n",
		"dashboard.json": `{"title": "proxy rules", "panels": [
  {"title": "restore", "targets": [{"expr": "rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m])"}]},
  {"title": "sync", "targets": [{"expr": "histogram_quantile(0.99, rate(kubeproxy_sync_proxy_rules_duration_seconds_bucket[5m]))"}]},
  {"title": "nodeports", "targets": [{"expr": "sum(kubeproxy_iptables_localhost_nodeports_accepted_packets_total)"}]},
  {"title": "up", "targets": [{"expr": "up{job=\"proxy\"}"}]}
]}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	run := func(opts load.Options) (int, string) {
		opts.Paths, opts.Root = []string{dir}, dir
		ws, err := load.Load(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		f := ws.File("dashboard.json")
		if f == nil || len(f.Docs) != 1 {
			t.Fatalf("dashboard.json: %v", f)
		}
		kept := len(checker.DashboardQueries(f.Docs[0]))
		out, err := engine.Run(context.Background(), ws, []*checker.Rule{rules.KP501})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(out.Findings)
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Findings) != 2 {
			t.Errorf("%d findings, want 2", len(out.Findings))
		}
		return kept, string(b)
	}
	kept, facts := run(load.Options{Facts: rules.All()})
	all, unknown := run(load.Options{})
	whole, tree := run(load.Options{KeepTrees: true})
	if kept != 2 || all != 3 || whole != 4 {
		t.Errorf("queries kept: %d with the run's rules (want 2), %d without (want 3), %d of the whole tree (want 4)", kept, all, whole)
	}
	if facts != tree || unknown != tree {
		t.Errorf("findings differ from those on the whole tree:\nrules' facts: %s\nno rules:     %s\nwhole:        %s", facts, unknown, tree)
	}
}
