package load

import (
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// FuzzEmbedded checks embedded decoding (issue 11): whatever a ConfigMap's config.conf block
// scalar, a quoted data value or a script's heredoc holds, decoding it never panics, and every
// position of an embedded document, problem and flag lands inside the outer file, on a line
// the scalar or heredoc covers.
func FuzzEmbedded(f *testing.F) {
	f.Add("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n", uint8(0))
	f.Add("kind: ConfigMap\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: \"ipvs\"\n", uint8(0))
	f.Add("kind: KubeProxyConfiguration\r\nmode: ipvs\r\n\tbad: [\n", uint8(1))
	f.Add("kind: KubeProxyConfiguration\nmode: {{ .m }}\n", uint8(2))
	f.Fuzz(func(t *testing.T, inner string, shape uint8) {
		if strings.Contains(inner, "\x00") {
			return
		}
		var outer, name string
		switch shape % 3 {
		case 0: // a literal block scalar
			var b strings.Builder
			b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\ndata:\n  config.conf: |\n")
			for _, l := range strings.Split(inner, "\n") {
				b.WriteString("    " + l + "\n")
			}
			outer, name = b.String(), "cm.yaml"
		case 1: // a double-quoted scalar
			q := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", `\r`, "\t", `\t`).Replace(inner)
			outer, name = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\ndata:\n  config.conf: \""+q+"\"\n", "cm.yaml"
		default: // a heredoc in a script
			outer, name = "#!/bin/sh\ncat > /var/lib/kube-proxy/config.conf <<EOF\n"+inner+"\nEOF\nkube-proxy --config=/var/lib/kube-proxy/config.conf\n", "setup.sh"
		}
		b := []byte(outer)
		ws := Bytes(name, b, nil)
		lines := text.NewLineIndex(b).Lines()
		check := func(what string, p checker.Position) {
			if !p.IsValid() {
				return
			}
			if p.Offset < 0 || p.Offset > len(b) || p.Line > lines || p.Filename != name {
				t.Fatalf("%s at %+v outside %s (%d bytes, %d lines)", what, p, name, len(b), lines)
			}
		}
		for _, p := range ws.Problems {
			check("problem", p.Pos)
		}
		for _, d := range ws.Docs {
			pos, end := d.KindPos()
			check("document", pos)
			check("document end", end)
			for _, e := range d.Embedded {
				pos, end := e.KindPos()
				check("embedded document", pos)
				check("embedded document end", end)
			}
		}
		for _, in := range ws.Instances {
			for _, fl := range in.Flags {
				check("flag", fl.Pos)
				check("flag end", fl.End)
			}
		}
	})
}
