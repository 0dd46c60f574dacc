package rules

import (
	"strings"

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

const kubeProxyMetricPrefix = checker.ProxyMetricPrefix

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

// The metric facts of a document (checker/metricfacts.go).
type (
	promExpr  = checker.PromExpr
	ruleGroup = checker.RuleGroup
)

// ruleGroups returns the Prometheus rule groups of a document (checker.FindRuleGroups),
// found once per document: KP501 and KP502 share one walk.
func ruleGroups(d *checker.Document) []ruleGroup {
	return d.File.Memo(ruleGroupsKey{d}, func() any { return checker.FindRuleGroups(d) }).([]ruleGroup)
}

// ruleGroupsKey memoizes ruleGroups of a document (File.Memo).
type ruleGroupsKey struct{ d *checker.Document }

// dashboardExprs returns the queries of a Grafana dashboard (checker.DashboardQueries).
func dashboardExprs(d *checker.Document) []promExpr { return checker.DashboardQueries(d) }

// mayHoldProxyMetric is a cheap pre-check: documents that never mention kubeproxy_ are
// skipped without a walk. It searches each file once, not once per document; a document
// reduced to its metric facts is asked through them (its masked text may be gone).
//
// A header or a reduced document (Pruned, Reduced) names none: the loader prunes and reduces
// only documents whose text names no word of its own list, which holds the prefix (checker/load
// TestPruneKeepsMetricPrefix). Asking them would search, and remember the answer for, every
// file of the repository while the rules run (issue 24: 20 MB at 100,000 files).
func mayHoldProxyMetric(d *checker.Document) bool {
	switch {
	case d.Metrics != nil:
		return d.Metrics.Mentions(kubeProxyMetricPrefix)
	case d.Pruned || d.Reduced:
		return false
	}
	return d.Contains(kubeProxyMetricPrefix)
}

// isCounter reports whether selected name is a counter of m.
func (m *proxyMetric) isCounter(name string) bool {
	return !m.gauge && !m.histogram && strings.HasSuffix(name, "_total")
}
