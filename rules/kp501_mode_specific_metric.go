package rules

import (
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP501 flags alerts, recording rules and dashboards that use a kube-proxy metric the
// effective mode at the target does not export.
var KP501 = &checker.Rule{
	ID:       "KP501",
	Name:     "mode-specific-metric",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"PrometheusRule", "Prometheus rule file", "Grafana dashboard", "ConfigMap", "GrafanaDashboard", "jsonnet"},
	Doc: withProse("kp501_mode_specific_metric.md", checker.Doc{
		Title:  "a query uses a kube-proxy metric that the proxy mode does not export",
		Before: "- alert: KubeProxyRestoreFailures\n  expr: rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m]) > 0\n",
		After:  "- alert: KubeProxySyncFailures\n  expr: rate(kubeproxy_sync_proxy_rules_nftables_sync_failures_total[5m]) > 0\n",
		Since:  "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Replace the metric with the equivalent that the mode exports, when every kube-proxy in scope runs that mode. Alerts and dashboards then show other numbers.`, Safety: checker.Unsafe, Preferred: true},
		},
		SeverityText: "warning",
	}),
	Run:     runKP501,
	Queries: namesModeMetric,
}

// namesModeMetric reports whether expr may use a metric that only some modes export: whether
// it names one (a metric promMetricRefs finds is written in the expression). The loader keeps
// of a dashboard only such queries (checker.Rule.Queries).
func namesModeMetric(expr string) bool {
	if !strings.Contains(expr, kubeProxyMetricPrefix) {
		return false
	}
	for i := range proxyMetrics {
		if strings.Contains(expr, kubeProxyMetricPrefix+proxyMetrics[i].name) {
			return true
		}
	}
	return false
}

// kp501Query is an expression with what it is for messages.
type kp501Query struct {
	promExpr
	// effect says what happens when the metric is missing.
	effect string
	// at, when set, maps a byte range of the expression to the source for queries that have
	// no YAML node (jsonnet strings); exact says a byte edit there is safe.
	at func(from, to int) (pos, end checker.Position, exact bool)
}

func runKP501(p *checker.Pass) error {
	if len(p.Workspace.Instances) == 0 {
		return nil
	}
	modes := newModesAt(p)
	idx := p.Workspace.NewScopeIndex()
	for _, d := range p.Workspace.Docs {
		if !mayHoldProxyMetric(d) {
			continue
		}
		p := p.At(d.File.Outer().Path)
		var queries []kp501Query
		for _, g := range ruleGroups(d) {
			for _, r := range g.Rules {
				effect := "the recording rule records nothing"
				if r.Alert != "" {
					effect = "alert " + r.Alert + " never fires"
				}
				queries = append(queries, kp501Query{promExpr: r.Expr, effect: effect})
			}
		}
		for _, e := range dashboardExprs(d) {
			queries = append(queries, kp501Query{promExpr: e, effect: "the dashboard query shows no data"})
		}
		if len(queries) == 0 {
			continue
		}
		scoped := modes.inScope(p, idx, d.File.Outer().Path)
		if len(scoped) == 0 {
			continue
		}
		for _, q := range queries {
			refs := promMetricRefs(q.Node.Value)
			for _, ref := range refs {
				if ref.InAbsent {
					// absent(x) of a missing metric fires: the guard KP502 asks for.
					continue
				}
				kp501Ref(p, q, ref, refs, scoped)
			}
		}
	}
	kp501Jsonnet(p, idx, modes)
	return nil
}

func kp501Ref(p *checker.Pass, q kp501Query, ref promRef, all []promRef, scoped []proxyInstance) {
	m, sfx, ok := lookupProxyMetric(ref.Name)
	if !ok {
		return
	}
	for _, in := range scoped {
		// "old or new" during a migration: the query already has the mode's equivalent.
		if eq, ok := m.equivalent[in.mode.Value]; ok {
			for _, o := range all {
				if o.Name == kubeProxyMetricPrefix+eq+sfx {
					return
				}
			}
		}
	}
	var missing []proxyInstance
	exported := false
	for _, in := range scoped {
		if m.exportedIn(in.mode.Value, in.Instance, p.Target()) {
			exported = true
		} else {
			missing = append(missing, in)
		}
	}
	if len(missing) == 0 {
		return
	}
	in := missing[0]
	how := fmt.Sprintf("kube-proxy runs in %s mode at target %s", in.mode.Value, p.Target())
	if in.mode.Origin == checker.OriginDefault || in.mode.Origin == checker.OriginInstallerDefault {
		how = fmt.Sprintf("kube-proxy runs in %s mode at target %s (the default)", in.mode.Value, p.Target())
	}
	if m.gate && in.mode.Value == checker.ModeNFTables {
		how = fmt.Sprintf("the %s gate is off at target %s", gateNFTablesLocalhostNodePorts, p.Target())
	}
	msg := fmt.Sprintf("%s is exported only in %s, but %s, so %s", ref.Name, m.modesText(), how, q.effect)
	var f checker.Finding
	var pos, end checker.Position
	exact := false
	if q.at != nil {
		pos, end, exact = q.at(ref.From, ref.To)
		f = checker.Finding{Message: msg, Pos: pos, End: end, Related: modeRelated(in, p.Target())}
	} else {
		pos, end = q.Doc.SubPos(q.Node, ref.From, ref.To)
		exact = end.Offset-pos.Offset == len(ref.Name)
		f = checker.Finding{Message: msg, Pos: pos, End: end, Object: q.Doc.Ref(), Path: q.Path, Related: modeRelated(in, p.Target())}
	}
	// A replacement is safe only when no kube-proxy in scope still exports the metric and
	// every one that does not runs in the same mode.
	sameMode := true
	for _, o := range missing {
		sameMode = sameMode && o.mode.Value == in.mode.Value
	}
	if eq, ok := m.equivalent[in.mode.Value]; ok && !exported && sameMode && exact {
		name := kubeProxyMetricPrefix + eq + sfx
		f.Fixes = []checker.Fix{{
			Message: fmt.Sprintf("Use %s, the %s mode equivalent", name, in.mode.Value),
			Edits:   []checker.TextEdit{{Pos: pos, End: end, NewText: name}},
		}}
	}
	p.Report(f)
}
