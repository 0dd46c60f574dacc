package load

import (
	"path"
	"strings"
)

// Jsonnet inputs: grafonnet dashboards and monitoring mixins (kube-prometheus) write their
// PromQL in jsonnet string literals. They are kept as text, whatever they hold: KP501 scans
// their string literals for kube-proxy metrics. Reading them as text before the content
// check matters, because a mixin may spell kind: 'KubeProxyConfiguration', which is jsonnet,
// not YAML, and must not become a parse error.

func init() {
	nameFilters = append(nameFilters, isJsonnetName)
	textFirst = append(textFirst, isJsonnetFile)
}

// isJsonnetName: .jsonnet and .libsonnet files.
func isJsonnetName(name string) bool {
	switch strings.ToLower(path.Ext(strings.ReplaceAll(name, `\`, "/"))) {
	case ".jsonnet", ".libsonnet":
		return true
	}
	return false
}

// isJsonnetFile classifies jsonnet sources as text by name.
func isJsonnetFile(name string, _ []byte) bool { return isJsonnetName(name) }
