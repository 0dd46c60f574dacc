package load

import (
	"regexp"
	"strings"
	"testing"
)

// templateMarkerRe is the definition hasTemplateMarker implements by hand.
var templateMarkerRe = regexp.MustCompile(`\{\{|\{%|\{#|<%|%\{|\$\{[A-Za-z_]|@@[A-Za-z_]|%[A-Z_][A-Z0-9_]*%|@[A-Z_][A-Z0-9_]*@|(?:^|[^A-Za-z0-9_])__[A-Z0-9](?:[A-Z0-9_]*[A-Z0-9])?__(?:[^A-Za-z0-9_]|$)|(?m)^[ \t]*<[A-Za-z_][^<>="'/\n]*>[ \t\r]*$`)

var templateMarkerCases = []string{
	"", "plain: yaml\n", "a: {{ .Values.x }}", "{% if x %}", "{# c #}", "<%= x %>", "%{ if x }", "${VAR}", "${1}", "$VAR",
	"@@VAR@@", "@@1", "@VAR@", "@var@", "a@B@", "@@A@", "@A", "__VAR__", "x: __A_B__\n", "__a__", "x__A__", "__A__x",
	"__A___", "___A__", "__1__", "____", "__A__B__", "@_@", "%PATH%", "%path%", "100%", "50% and 60%", "%A", "%_B1%", "<tag>", "  <tag>  \n", "x <tag>",
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

// TestReadSized: the whole content whatever the size given (smaller, exact, larger), never
// more than the limit, and a buffer no larger than needed when the size is right.
func TestReadSized(t *testing.T) {
	src := strings.Repeat("kube-proxy ", 1000)
	for _, size := range []int64{0, 10, int64(len(src)), int64(len(src)) * 3} {
		b, err := readSized(strings.NewReader(src), size, 1<<20)
		if err != nil || string(b) != src {
			t.Fatalf("size %d: %d bytes, %v", size, len(b), err)
		}
		if size == int64(len(src)) && cap(b) != len(src)+1 {
			t.Errorf("exact size: capacity %d for %d bytes", cap(b), len(b))
		}
	}
	b, err := readSized(strings.NewReader(src), int64(len(src)), 100)
	if err != nil || len(b) != 100 {
		t.Errorf("limit 100: %d bytes, %v", len(b), err)
	}
}
