package rules

import (
	"fmt"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP502 flags alerts on kube-proxy's mode-specific counters that have no absent() guard in
// their group.
var KP502 = &checker.Rule{
	ID:       "KP502",
	Name:     "alert-without-absent",
	Severity: checker.SeverityInfo,
	Kinds:    []string{"PrometheusRule", "Prometheus rule file", "ConfigMap"},
	Doc: withProse("kp502_alert_without_absent.md", checker.Doc{
		Title:  "an alert on a mode-specific kube-proxy counter has no absent() guard",
		Before: "groups:\n- name: kube-proxy\n  rules:\n  - alert: KubeProxyRestoreFailures\n    expr: rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m]) > 0\n",
		After: "groups:\n- name: kube-proxy\n  rules:\n  - alert: KubeProxyRestoreFailures\n    expr: rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m]) > 0\n" +
			"  - alert: KubeProxyRestoreFailuresMetricAbsent\n    expr: absent(kubeproxy_sync_proxy_rules_iptables_restore_failures_total)\n",
		Since: "0.1.0",
	}),
	Run: runKP502,
}

func runKP502(p *checker.Pass) error {
	for _, d := range p.Workspace.Docs {
		if !mayHoldProxyMetric(d) {
			continue
		}
		for _, g := range ruleGroups(d) {
			guarded := map[string]bool{}
			refs := make([][]promRef, len(g.Rules))
			for i, r := range g.Rules {
				refs[i] = promMetricRefs(r.Expr.Node.Value)
				for _, ref := range refs[i] {
					if ref.InAbsent {
						guarded[ref.Name] = true
					}
				}
			}
			for i, r := range g.Rules {
				if r.Alert == "" {
					continue
				}
				seen := map[string]bool{}
				for _, ref := range refs[i] {
					m, _, ok := lookupProxyMetric(ref.Name)
					if !ok || ref.InAbsent || !m.isCounter(ref.Name) || guarded[ref.Name] || seen[ref.Name] {
						continue
					}
					seen[ref.Name] = true
					group := ""
					if g.Name != "" {
						group = " " + g.Name
					}
					msg := fmt.Sprintf("alert %s uses %s, which only %s exports, and no rule in group%s checks absent(%s): if the metric disappears the alert stays silently green", r.Alert, ref.Name, m.modesText(), group, ref.Name)
					pos, end := r.Expr.Doc.SubPos(r.Expr.Node, ref.From, ref.To)
					p.Report(checker.Finding{Message: msg, Pos: pos, End: end, Object: r.Expr.Doc.Ref(), Path: r.Expr.Path})
				}
			}
		}
	}
	return nil
}
