package checker

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// Metric facts: the PromQL queries of Prometheus rule groups and Grafana dashboards, the
// only parts of those documents that any rule reads past their metadata (KP501 and KP502).
// The loader extracts them while a file is decoded from the whole tree, keeps them on the
// document (Document.Metrics) with the query nodes they name, and drops the rest of the
// fields that lead to them (see checker/load/facts.go); FindRuleGroups and DashboardQueries
// return the kept facts.

// MetricFacts are the metric facts of a document, as FindRuleGroups and DashboardQueries
// find them in its whole tree.
type MetricFacts struct {
	Groups  []RuleGroup
	Queries []PromExpr
}

// Mentions reports whether a query of the facts holds s. A masked copy that holds only
// facts keeps no text (checker/load: releaseMasked), so Document.Contains cannot answer
// for its documents; what the metric rules look for is in the queries.
func (m *MetricFacts) Mentions(s string) bool {
	for _, g := range m.Groups {
		for _, r := range g.Rules {
			if strings.Contains(r.Expr.Node.Value, s) {
				return true
			}
		}
	}
	for _, q := range m.Queries {
		if strings.Contains(q.Node.Value, s) {
			return true
		}
	}
	return false
}

// ProxyMetricPrefix begins the name of every kube-proxy metric. The metric rules read only the
// queries that name one (the others can neither use such a metric nor guard one with
// absent()), so the loader keeps only those as a document's facts.
const ProxyMetricPrefix = "kubeproxy_"

// PromExpr is one PromQL expression of a document: its scalar node and its field path.
type PromExpr struct {
	Doc  *Document
	Node *yaml.Node
	Path Path
}

// RuleGroup is a Prometheus rule group.
type RuleGroup struct {
	Doc   *Document
	Name  string
	Rules []PromRule
}

// PromRule is an alerting or recording rule of a group.
type PromRule struct {
	// Alert is the alert's name; empty for a recording rule.
	Alert string
	Expr  PromExpr
}

// metricWalkDepth bounds the recursive searches for queries through a document.
const metricWalkDepth = 64

// FindRuleGroups finds the Prometheus rule groups of a document wherever they sit: a rule
// file's top-level groups, a PrometheusRule's spec.groups, a chart's values. A group is a
// mapping with a rules list whose entries have expr and alert or record.
func FindRuleGroups(d *Document) []RuleGroup {
	if d.Metrics != nil {
		return d.Metrics.Groups
	}
	var out []RuleGroup
	WalkNodes(d.Node, nil, metricWalkDepth, func(path Path, n *yaml.Node) bool {
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

func groupsOf(d *Document, seq *yaml.Node, path Path) []RuleGroup {
	var out []RuleGroup
	for i, g := range seq.Content {
		_, rs := LookupNode(g, Path{"rules"})
		if rs == nil || rs.Kind != yaml.SequenceNode {
			continue
		}
		_, name := LookupNode(g, Path{"name"})
		grp := RuleGroup{Doc: d}
		if name != nil {
			grp.Name = name.Value
		}
		for j, r := range rs.Content {
			_, expr := LookupNode(r, Path{"expr"})
			_, alert := LookupNode(r, Path{"alert"})
			_, record := LookupNode(r, Path{"record"})
			if expr == nil || expr.Kind != yaml.ScalarNode || (alert == nil && record == nil) {
				continue
			}
			pr := PromRule{Expr: PromExpr{Doc: d, Node: expr, Path: path.Append(i, "rules", j, "expr")}}
			if alert != nil {
				pr.Alert = alert.Value
			}
			grp.Rules = append(grp.Rules, pr)
		}
		if len(grp.Rules) > 0 {
			out = append(out, grp)
		}
	}
	return out
}

// DashboardQueries finds the queries of a Grafana dashboard: the expr of every panel target
// (targets[].expr, at any depth: rows, nested panels, library panels) and the query of
// templating variables.
func DashboardQueries(d *Document) []PromExpr {
	if d.Metrics != nil {
		return d.Metrics.Queries
	}
	var out []PromExpr
	WalkNodes(d.Node, nil, metricWalkDepth, func(path Path, n *yaml.Node) bool {
		switch {
		case path.Last() == "targets" && n.Kind == yaml.SequenceNode:
			for j, t := range n.Content {
				if _, e := LookupNode(t, Path{"expr"}); e != nil && e.Kind == yaml.ScalarNode {
					out = append(out, PromExpr{Doc: d, Node: e, Path: path.Append(j, "expr")})
				}
			}
			return false
		case path.Last() == "templating" && n.Kind == yaml.MappingNode:
			_, list := LookupNode(n, Path{"list"})
			if list != nil && list.Kind == yaml.SequenceNode {
				for j, t := range list.Content {
					q := path.Append("list", j, "query")
					_, e := LookupNode(t, Path{"query"})
					if e != nil && e.Kind == yaml.MappingNode {
						_, e = LookupNode(e, Path{"query"})
						q = q.Append("query")
					}
					if e != nil && e.Kind == yaml.ScalarNode {
						out = append(out, PromExpr{Doc: d, Node: e, Path: q})
					}
				}
			}
			return false
		}
		return true
	})
	return out
}
