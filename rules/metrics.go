package rules

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// kube-proxy's metrics, for KP501 (mode-specific-metric) and KP502 (alert-without-absent): the
// metrics that only some modes export (RULES.md §1), and the PromQL expressions
// of Prometheus rule groups and Grafana dashboards.

// proxyMetric is a kube-proxy metric that only some modes export.
type proxyMetric struct {
	// name is without the kubeproxy_ prefix; prefix marks a family matched by prefix.
	name   string
	prefix bool
	modes  []string
	// histogram metrics are also selected with _bucket, _sum and _count.
	histogram bool
	// gate is set when the metric also needs the nftables localhost NodePorts gate.
	gate bool
	// gauge marks a gauge whose name ends in _total anyway (a count of rules, not events);
	// KP502 looks at counters only.
	gauge bool
	// equivalent maps a mode to the metric (without prefix) that replaces this one there.
	equivalent map[string]string
}

const kubeProxyMetricPrefix = "kubeproxy_"

var proxyMetrics = []proxyMetric{
	{name: "sync_proxy_rules_iptables_restore_failures_total", modes: []string{checker.ModeIPTables, checker.ModeIPVS},
		equivalent: map[string]string{checker.ModeNFTables: "sync_proxy_rules_nftables_sync_failures_total"}},
	{name: "sync_proxy_rules_iptables_partial_restore_failures_total", modes: []string{checker.ModeIPTables},
		equivalent: map[string]string{checker.ModeNFTables: "sync_proxy_rules_nftables_sync_failures_total", checker.ModeIPVS: "sync_proxy_rules_iptables_restore_failures_total"}},
	{name: "sync_proxy_rules_iptables_total", gauge: true, modes: []string{checker.ModeIPTables}},
	{name: "sync_proxy_rules_iptables_last", modes: []string{checker.ModeIPTables}},
	{name: "iptables_ct_state_invalid_dropped_packets_total", modes: []string{checker.ModeIPTables}},
	{name: "iptables_localhost_nodeports_accepted_packets_total", modes: []string{checker.ModeIPTables}},
	{name: "sync_proxy_rules_nftables_sync_failures_total", modes: []string{checker.ModeNFTables},
		equivalent: map[string]string{checker.ModeIPTables: "sync_proxy_rules_iptables_restore_failures_total", checker.ModeIPVS: "sync_proxy_rules_iptables_restore_failures_total"}},
	{name: "sync_proxy_rules_nftables_cleanup_failures_total", modes: []string{checker.ModeNFTables}},
	{name: "nftables_localhost_nodeport", prefix: true, gate: true, modes: []string{checker.ModeNFTables}},
	{name: "sync_full_proxy_rules_duration_seconds", histogram: true, modes: []string{checker.ModeIPTables, checker.ModeNFTables},
		equivalent: map[string]string{checker.ModeIPVS: "sync_proxy_rules_duration_seconds"}},
	{name: "sync_partial_proxy_rules_duration_seconds", histogram: true, modes: []string{checker.ModeIPTables, checker.ModeNFTables},
		equivalent: map[string]string{checker.ModeIPVS: "sync_proxy_rules_duration_seconds"}},
}

// lookupProxyMetric returns the mode-specific metric a selected name refers to, and the
// histogram suffix ("_bucket", ...) written after it.
func lookupProxyMetric(name string) (*proxyMetric, string, bool) {
	rest, ok := strings.CutPrefix(name, kubeProxyMetricPrefix)
	if !ok {
		return nil, "", false
	}
	for i := range proxyMetrics {
		m := &proxyMetrics[i]
		switch {
		case m.prefix:
			if strings.HasPrefix(rest, m.name) {
				return m, "", true
			}
		case rest == m.name:
			return m, "", true
		case m.histogram:
			for _, sfx := range []string{"_bucket", "_sum", "_count"} {
				if rest == m.name+sfx {
					return m, sfx, true
				}
			}
		}
	}
	return nil, "", false
}

// exportedIn reports whether kube-proxy instance in (mode at target) exports m.
func (m *proxyMetric) exportedIn(mode string, in *checker.Instance, target checker.Version) bool {
	for _, md := range m.modes {
		if md == mode {
			if m.gate {
				on, _ := gateOn(in, target)
				return on
			}
			return true
		}
	}
	return false
}

// modesText lists the modes that export m, for messages.
func (m *proxyMetric) modesText() string {
	s := strings.Join(m.modes, " and ") + " mode"
	if m.gate {
		s += " with the " + gateNFTablesLocalhostNodePorts + " gate"
	}
	return s
}

// promExpr is one PromQL expression in a document.
type promExpr struct {
	doc  *checker.Document
	node *yaml.Node
	path checker.Path
}

// ruleGroup is a Prometheus rule group.
type ruleGroup struct {
	doc   *checker.Document
	name  string
	rules []promRule
}

// promRule is an alerting or recording rule.
type promRule struct {
	alert string
	expr  promExpr
}

// maxWalkDepth bounds the recursive searches through documents.
const maxWalkDepth = 64

// ruleGroups finds the Prometheus rule groups of a document wherever they sit: a rule file's
// top-level groups, a PrometheusRule's spec.groups, a chart's values. A group is a mapping
// with a rules list whose entries have expr and alert or record. KP501 and KP502 share one
// walk per document.
func ruleGroups(d *checker.Document) []ruleGroup {
	return d.File.Memo(ruleGroupsKey{d}, func() any { return findRuleGroups(d) }).([]ruleGroup)
}

// ruleGroupsKey memoizes ruleGroups of a document (File.Memo).
type ruleGroupsKey struct{ d *checker.Document }

func findRuleGroups(d *checker.Document) []ruleGroup {
	var out []ruleGroup
	checker.WalkNodes(d.Node, nil, maxWalkDepth, func(path checker.Path, n *yaml.Node) bool {
		if path.Last() == "groups" && n.Kind == yaml.SequenceNode {
			if gs := groupsOf(d, n, path); len(gs) > 0 {
				out = append(out, gs...)
				return false
			}
		}
		return true
	})
	return out
}

func groupsOf(d *checker.Document, seq *yaml.Node, path checker.Path) []ruleGroup {
	var out []ruleGroup
	for i, g := range seq.Content {
		_, rs := checker.LookupNode(g, checker.Path{"rules"})
		if rs == nil || rs.Kind != yaml.SequenceNode {
			continue
		}
		_, name := checker.LookupNode(g, checker.Path{"name"})
		grp := ruleGroup{doc: d}
		if name != nil {
			grp.name = name.Value
		}
		for j, r := range rs.Content {
			_, expr := checker.LookupNode(r, checker.Path{"expr"})
			_, alert := checker.LookupNode(r, checker.Path{"alert"})
			_, record := checker.LookupNode(r, checker.Path{"record"})
			if expr == nil || expr.Kind != yaml.ScalarNode || (alert == nil && record == nil) {
				continue
			}
			pr := promRule{expr: promExpr{doc: d, node: expr, path: path.Append(i, "rules", j, "expr")}}
			if alert != nil {
				pr.alert = alert.Value
			}
			grp.rules = append(grp.rules, pr)
		}
		if len(grp.rules) > 0 {
			out = append(out, grp)
		}
	}
	return out
}

// dashboardExprs finds the queries of a Grafana dashboard: the expr of every panel target
// (targets[].expr, at any depth: rows, nested panels, library panels) and the query of
// templating variables.
func dashboardExprs(d *checker.Document) []promExpr {
	var out []promExpr
	checker.WalkNodes(d.Node, nil, maxWalkDepth, func(path checker.Path, n *yaml.Node) bool {
		switch {
		case path.Last() == "targets" && n.Kind == yaml.SequenceNode:
			for j, t := range n.Content {
				if _, e := checker.LookupNode(t, checker.Path{"expr"}); e != nil && e.Kind == yaml.ScalarNode {
					out = append(out, promExpr{doc: d, node: e, path: path.Append(j, "expr")})
				}
			}
			return false
		case path.Last() == "templating" && n.Kind == yaml.MappingNode:
			_, list := checker.LookupNode(n, checker.Path{"list"})
			if list != nil && list.Kind == yaml.SequenceNode {
				for j, t := range list.Content {
					q := path.Append("list", j, "query")
					_, e := checker.LookupNode(t, checker.Path{"query"})
					if e != nil && e.Kind == yaml.MappingNode {
						_, e = checker.LookupNode(e, checker.Path{"query"})
						q = q.Append("query")
					}
					if e != nil && e.Kind == yaml.ScalarNode {
						out = append(out, promExpr{doc: d, node: e, path: q})
					}
				}
			}
			return false
		}
		return true
	})
	return out
}

// mayHoldProxyMetric is a cheap pre-check: documents that never mention kubeproxy_ are
// skipped without a walk. It searches each file once, not once per document.
func mayHoldProxyMetric(d *checker.Document) bool {
	return d.Contains(kubeProxyMetricPrefix)
}

// isCounter reports whether selected name is a counter of m.
func (m *proxyMetric) isCounter(name string) bool {
	return !m.gauge && !m.histogram && strings.HasSuffix(name, "_total")
}
