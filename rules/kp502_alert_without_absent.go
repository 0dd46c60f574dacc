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
			refs := make([][]promRef, len(g.rules))
			for i, r := range g.rules {
				refs[i] = promMetricRefs(r.expr.node.Value)
				for _, ref := range refs[i] {
					if ref.InAbsent {
						guarded[ref.Name] = true
					}
				}
			}
			for i, r := range g.rules {
				if r.alert == "" {
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
					if g.name != "" {
						group = " " + g.name
					}
					msg := fmt.Sprintf("alert %s uses %s, which only %s exports, and no rule in group%s checks absent(%s): if the metric disappears the alert stays silently green", r.alert, ref.Name, m.modesText(), group, ref.Name)
					pos, end := r.expr.doc.SubPos(r.expr.node, ref.From, ref.To)
					p.Report(checker.Finding{Message: msg, Pos: pos, End: end, Object: r.expr.doc.Ref(), Path: r.expr.path})
				}
			}
		}
	}
	return nil
}
