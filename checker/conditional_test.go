package checker_test

import (
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

func TestInTemplateConditional(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		// in and out are texts whose first byte must (not) be inside a conditional.
		in, out []string
	}{
		{
			name: "helm",
			src:  "a: 1\n{{- if .Values.x }}\nb: \"true\"\n{{- else if .Values.y }}\nc: 2\n{{- else }}\nd: 3\n{{- end }}\ne: 4\n{{ define \"x\" }}f: 5{{ end }}\n",
			in:   []string{"b:", "c:", "d:"},
			out:  []string{"a:", "e:", "f:"},
		},
		{
			name: "nested and loops",
			src:  "{{ range .Items }}{{ with .X }}g: 1{{ end }}h: 2{{ end }}i: 3\n",
			in:   []string{"g:", "h:"},
			out:  []string{"i:"},
		},
		{
			name: "jinja",
			src:  "{% set x = 1 %}j: 1\n{% if kpr %}\nk: true\n{% elif other %}\nl: 1\n{% endif %}\n{% for n in nodes %}m: {{ n }}{% endfor %}\no: 1\n",
			in:   []string{"k:", "l:", "m:"},
			out:  []string{"j:", "o:"},
		},
		{
			name: "erb",
			src:  "<% if @kpr %>\np: true\n<% end %>\n<% @nodes.each do |n| %>q: 1<% end %>\nr: <%= @x %>\n",
			in:   []string{"p:", "q:"},
			out:  []string{"r:"},
		},
		{
			name: "unclosed",
			src:  "s: 1\n{{ if .x }}\nt: 2\n",
			in:   []string{"t:"},
			out:  []string{"s:"},
		},
		{name: "plain", src: "u: 1\n", out: []string{"u:"}},
	} {
		f := &checker.File{Path: "x.yaml", Content: []byte(tc.src)}
		for _, s := range tc.in {
			if !checker.InTemplateConditional(f, strings.Index(tc.src, s)) {
				t.Errorf("%s: %q should be inside a conditional", tc.name, s)
			}
		}
		for _, s := range tc.out {
			if checker.InTemplateConditional(f, strings.Index(tc.src, s)) {
				t.Errorf("%s: %q should not be inside a conditional", tc.name, s)
			}
		}
	}
}
