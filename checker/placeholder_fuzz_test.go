package checker

import (
	"bytes"
	"testing"
)

// FuzzMaskTemplate checks the masking contract (issue 11's fuzz target for masking): masking
// never panics, keeps every line (so positions stay on their lines), and maps every masked
// byte back to an offset of the original, in order.
func FuzzMaskTemplate(f *testing.F) {
	for _, s := range []string{
		"mode: {{ .Values.mode }}\n",
		"{{- if .x }}\nkind: KubeProxyConfiguration\nmode: {{ m }}\n{{ end }}\n",
		"a: |\n  {{- include \"x\" . | nindent 2 }}\n  b\n",
		"labels: {{ include \"labels\" . | nindent 4 }}\n  x: y\n",
		"{% if a %}\nk: <%= @v %>\n{% endif %}\nt: ${var.x} %{ if y }z%{ endif }\n",
		"x: <VALUE>\ny: %VAR%\n{{params}}\n",
		"{{ unterminated\n{{}}\r\n{{ a\rb }}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m := MaskTemplate(b)
		if m == nil {
			return
		}
		offsets := m.Map.Table()
		if len(offsets) != len(m.Content)+1 {
			t.Fatalf("%d offsets for %d bytes", len(offsets), len(m.Content))
		}
		prev := 0
		for i, o := range offsets {
			if o < prev || o > len(b) {
				t.Fatalf("offset %d of byte %d: previous %d, input %d bytes", o, i, prev, len(b))
			}
			prev = o
		}
		if got, want := bytes.Count(m.Content, []byte{'\n'}), bytes.Count(b, []byte{'\n'}); got != want {
			t.Fatalf("masking made %d lines of %d", got, want)
		}
		for _, p := range m.Open {
			if p.Offset < 0 || p.Offset > len(b) || p.Line < 1 {
				t.Fatalf("open placeholder %+v outside the input", p)
			}
		}
	})
}
