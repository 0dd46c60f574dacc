package load

import (
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Monitoring content embedded in ConfigMaps: Prometheus rule files (kube-prometheus and
// most charts ship alerts as a ConfigMap key "*.rules.yaml") and Grafana dashboards (the
// Grafana sidecar loads every ConfigMap key ending in .json). decodeEmbedded parses them as
// documents of their own, with positions mapped back to the ConfigMap's file, so KP501 and
// KP502 can point at the metric inside the expression.

// ruleGroupsRe matches a Prometheus rule file's top-level "groups:" key.
var ruleGroupsRe = regexp.MustCompile(`(?m)^groups[ \t]*:[ \t]*(?:#.*)?$`)

// embedsMonitoring reports whether ConfigMap data key holds a Prometheus rule file or a JSON
// document (a Grafana dashboard) worth decoding as an embedded document.
func embedsMonitoring(key, value string) bool {
	k := strings.ToLower(key)
	switch {
	case strings.HasSuffix(k, ".json"):
		v := strings.TrimSpace(value)
		return strings.HasPrefix(v, "{") && strings.HasSuffix(v, "}")
	case strings.HasSuffix(k, ".yaml") || strings.HasSuffix(k, ".yml") || strings.HasSuffix(k, ".rules"):
		return ruleGroupsRe.MatchString(value)
	}
	return false
}

// decodeGrafanaDashboard decodes the dashboard JSON of a grafana-operator GrafanaDashboard
// (spec.json) as an embedded document, like a dashboard in a ConfigMap.
func decodeGrafanaDashboard(d *checker.Document) []checker.LoadProblem {
	path := checker.Path{"spec", "json"}
	_, v := d.Lookup(path)
	if v == nil || v.Kind != yaml.ScalarNode || !embedsMonitoring("dashboard.json", v.Value) {
		return nil
	}
	inner := &checker.File{
		Path:      d.File.Path,
		Content:   []byte(v.Value),
		Parent:    d.File,
		ParentMap: checker.ScalarOffsetMap(d.File, v),
	}
	inner.Lines = text.NewLineIndex(inner.Content)
	probs := parseFile(inner)
	for _, e := range inner.Docs {
		e.Parent = d
		e.ParentPath = path
		probs = append(probs, decodeDoc(e)...)
		d.Embedded = append(d.Embedded, e)
	}
	return probs
}
