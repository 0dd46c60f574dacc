package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/cluster"
)

// The output of `kube-proxy-lint clusters`: the cluster model as text for people and as JSON
// (docs/clusters.schema.json). File names and cluster names come from the repository and the
// configuration: every line of text is escaped for the terminal.

// ClustersJSON writes the cluster model as indented JSON.
func ClustersJSON(w io.Writer, v *cluster.View) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ClustersText writes the cluster model for people: one block per cluster, then the shared
// files.
func ClustersText(w io.Writer, v *cluster.View) error {
	var b strings.Builder
	line := func(format string, args ...any) {
		b.WriteString(TerminalLine(fmt.Sprintf(format, args...)))
		b.WriteByte('\n')
	}
	for i, c := range v.Clusters {
		if i > 0 {
			b.WriteByte('\n')
		}
		line("cluster %s", c.Name)
		line("  root:       %s", c.Root)
		line("  found:      %s", c.How)
		for _, g := range c.Paths {
			line("              paths: %s", g)
		}
		for _, a := range c.Anchors {
			line("              %s at %s", a.What, a.At)
		}
		line("  target:     %s (%s)", c.Target.Version, c.Target.Source)
		if len(c.KubeProxy) == 0 {
			line("  kube-proxy: none")
		}
		for _, k := range c.KubeProxy {
			line("  kube-proxy: %s", kubeProxyName(k))
			mode := k.Mode
			if mode == "" {
				mode = "unknown"
			}
			where := ""
			if k.ModeAt != nil {
				where = " at " + k.ModeAt.String()
			}
			line("              mode %s (%s)%s", mode, k.Origin, where)
		}
		switch {
		case len(c.Replacements) == 0:
			line("  replaced:   no")
		default:
			for _, r := range c.Replacements {
				state := ""
				if r.Conflicting {
					state = " (a kube-proxy remains beside it)"
				}
				line("  replaced:   %s at %s%s", r.Message, r.At, state)
			}
		}
		line("  files:      %d", len(c.Files))
		for _, f := range c.Files {
			line("              %s", f)
		}
	}
	if len(v.Clusters) > 0 {
		b.WriteByte('\n')
	}
	line("shared files: %d, each judged on its own at %s (%s)", len(v.Shared.Files), v.Shared.Target.Version, v.Shared.Target.Source)
	for _, f := range v.Shared.Files {
		line("  %s", f)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// kubeProxyName is the label of a kube-proxy with where it is written.
func kubeProxyName(k cluster.KubeProxyOut) string {
	s := k.Label
	if k.At != nil {
		s += " at " + k.At.String()
	}
	if k.Disabled {
		s += " (not installed)"
	}
	return s
}
