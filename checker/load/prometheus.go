package load

import (
	"regexp"
	"strings"
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
