package text

import (
	"bytes"
	"strings"
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
		checkMaskByte(t, b)
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

// maskByteByScan is maskByte as it was before issue 22 item 15: it found the span holding x
// from the first one of the line and read the span's line back and forth from x, so that a
// placeholder of n bytes on one line cost n². The reference the constant-time one must
// agree with.
func maskByteByScan(content []byte, spans []TemplateSpan, si, x int) byte {
	for k := si; k < len(spans); k++ {
		sp := spans[k]
		if x < sp.From || x >= sp.To {
			continue
		}
		from, to := sp.From, sp.To
		for y := x; y > sp.From; y-- {
			if content[y-1] == '\n' {
				from = y
				break
			}
		}
		for y := x; y < sp.To; y++ {
			if content[y] == '\n' || content[y] == '\r' {
				to = y
				break
			}
		}
		if x == from && to-from >= 2 {
			return '$'
		}
		return '_'
	}
	return '_'
}

// checkMaskByte compares maskByte with maskByteByScan on every byte of b that a placeholder
// covers.
func checkMaskByte(t *testing.T, b []byte) {
	t.Helper()
	spans := append(TemplateSpans(b), docPlaceholderLines(b)...)
	sortSpans(spans)
	k, ls := 0, 0
	for x := range b {
		if x > 0 && b[x-1] == '\n' {
			ls = x
		}
		for k < len(spans) && spans[k].To <= x {
			k++
		}
		if got, want := maskByte(b, spans, k, ls, x), maskByteByScan(b, spans, 0, x); got != want {
			t.Fatalf("%q: byte %d masked %q, want %q", b, x, got, want)
		}
	}
}

// TestMaskByteMatchesScan: masking a byte looks at a constant number of bytes and gives what
// reading the span's line gave (issue 22 item 15).
func TestMaskByteMatchesScan(t *testing.T) {
	for _, s := range []string{
		"mode: {{ .Values.mode }}\n",
		"a: {{ x }}{{ y }} {{z}}\r\nb: {{ multi\nline }} c\n",
		"x: {{\r}}\n{{\n}}\n{{a}}\n",
		"<VALUE>\nx: <%= @v %> <%- y %>\n%VAR% and %OTHER%\n",
		"k: " + strings.Repeat("{{", 50) + "x" + strings.Repeat("}}", 50) + "\n",
		"k: " + strings.Repeat("{%", 50) + "x" + strings.Repeat("%}", 50) + "\n",
		"k: " + strings.Repeat("<%=", 50) + "x" + strings.Repeat("%>", 50) + "\n",
		"{{/*\n<a placeholder>\n<another one>\n*/}} x: {{ y }}\n",
	} {
		checkMaskByte(t, []byte(s))
	}
}
