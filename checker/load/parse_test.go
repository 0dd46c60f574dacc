package load

import (
	"regexp"
	"testing"
)

// templateMarkerRe is the definition hasTemplateMarker implements by hand.
var templateMarkerRe = regexp.MustCompile(`\{\{|\{%|\{#|<%|%\{|\$\{[A-Za-z_]|@@[A-Za-z_]|%[A-Z_][A-Z0-9_]*%|(?m)^[ \t]*<[A-Za-z_][^<>="'/\n]*>[ \t\r]*$`)

var templateMarkerCases = []string{
	"", "plain: yaml\n", "a: {{ .Values.x }}", "{% if x %}", "{# c #}", "<%= x %>", "%{ if x }", "${VAR}", "${1}", "$VAR",
	"@@VAR@@", "@@1", "%PATH%", "%path%", "100%", "50% and 60%", "%A", "%_B1%", "<tag>", "  <tag>  \n", "x <tag>",
	"<tag attr=1>", "<a/>", "<1>", "<tag>x", "<tag>\r\n", "line\n\t<Name of thing>\nnext", "<", "{", "%", "$", "@",
	"a<b>", "<%", "{", "<tag", "<ta\ng>", "key: '<VALUE>'\n", "  <VALUE>\n", "\n<X>", "<X>\n<Y", "@@", "${",
}

func TestHasTemplateMarkerMatchesRegexp(t *testing.T) {
	for _, c := range templateMarkerCases {
		if got, want := hasTemplateMarker([]byte(c)), templateMarkerRe.MatchString(c); got != want {
			t.Errorf("hasTemplateMarker(%q) = %v, the expression says %v", c, got, want)
		}
	}
}

func FuzzHasTemplateMarker(f *testing.F) {
	for _, c := range templateMarkerCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		if got, want := hasTemplateMarker([]byte(c)), templateMarkerRe.MatchString(c); got != want {
			t.Errorf("hasTemplateMarker(%q) = %v, the expression says %v", c, got, want)
		}
	})
}
