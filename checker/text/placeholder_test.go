package text

import (
	"regexp"
	"strings"
	"testing"
)

func TestHasPlaceholder(t *testing.T) {
	for s, want := range map[string]bool{
		"{{ .Values.podCIDR }}": true, "{%- if x -%}": true, "{# note #}": true, "<%= @cidr %>": true,
		"%{ if x }": true, "${var.cidr}": true, "$(HOST_IP)": true, "$pod_cidr": true, "`hostname -i`": true,
		"%CLUSTERCIDR%": true, "<CPU_REQUESTS>": true, "<your pod CIDR>": true, "@@CIDR@@": true,
		"10.244.0.0/16": false, "ipvs": false, "100%": false, "a<b": false, "$": false, "<br/>": false,
		"0.0.0.0:10249": false, "5%10%": false, "$1": true, "$@": true, "US$ 5": false,
	} {
		if got := HasPlaceholder(s); got != want {
			t.Errorf("HasPlaceholder(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestMaskTemplate: standalone template lines are emptied (never spaces that would break a
// block scalar), inline placeholders keep their length, offsets map back, and output
// placeholders alone on a line are reported as open with their indentation.
func TestMaskTemplate(t *testing.T) {
	src := "a: >-\n  {%- if x -%}\n  b\n  {%- endif -%}\nmode: {{ .Values.mode }}\ndata: |\n{{ toYaml .Values.c | nindent 2 }}\nk: %VAR%\n"
	m := MaskTemplate([]byte(src))
	if m == nil {
		t.Fatal("nil")
	}
	offsets := m.Map.Table()
	got := string(m.Content)
	want := "a: >-\n  #___________\n  b\n  #____________\nmode: $_________________\ndata: |\n\nk: $____\n"
	if got != want {
		t.Errorf("masked:\n%q\nwant\n%q", got, want)
	}
	if len(offsets) != len(m.Content)+1 {
		t.Fatalf("offsets %d for %d bytes", len(offsets), len(m.Content))
	}
	for i := range m.Content {
		o := offsets[i]
		if m.Content[i] != '$' && m.Content[i] != '#' && m.Content[i] != '_' && src[o] != m.Content[i] {
			t.Errorf("byte %d %q maps to %q", i, m.Content[i], src[o])
		}
	}
	if i := strings.Index(got, "$_"); src[offsets[i]:offsets[i]+2] != "{{" {
		t.Errorf("inline placeholder does not map to its source")
	}
	if len(m.Open) != 1 || m.Open[0].Line != 7 || m.Open[0].Indent != 2 {
		t.Errorf("open = %+v", m.Open)
	}
	if MaskTemplate([]byte("a: b\nc: 10.0.0.0/8\n")) != nil {
		t.Error("no placeholder: want nil")
	}
}

// TestMaskTemplateBlockValue: "key: {{ ... | nindent N }}" followed by literal keys keeps the
// literal keys nested under key, and the block is open.
func TestMaskTemplateBlockValue(t *testing.T) {
	src := "metadata:\n  labels: {{ include \"labels\" . | nindent 4 }}\n    app: kube-proxy\n"
	m := MaskTemplate([]byte(src))
	want := "metadata:\n  labels: " + strings.Repeat(" ", len(`{{ include "labels" . | nindent 4 }}`)) + "\n    app: kube-proxy\n"
	if string(m.Content) != want {
		t.Errorf("masked %q, want %q", m.Content, want)
	}
	if len(m.Open) != 1 || m.Open[0].Line != 2 || m.Open[0].Indent != 4 {
		t.Errorf("open = %+v", m.Open)
	}
}

// TestMaskTemplateBlockIndent: template lines inside a block scalar keep fixing its
// indentation, so a more indented literal line does not become the scalar's indentation and
// end it at the next less indented line; a template line at column 0 inside an indented block
// (Helm) is emptied rather than ending the block.
func TestMaskTemplateBlockIndent(t *testing.T) {
	src := "endpoint: |-\n  {% if lb -%}\n      https://{{ a }}:{{ b }}\n  {%- else -%}\n  https://{{ c }}\n  {%- endif %}\nnext: 1\n" +
		"data:\n  config.conf: |\n{{- if .Values.x }}\n    mode: ipvs\n{{- end }}\n"
	m := MaskTemplate([]byte(src))
	lines := strings.Split(string(m.Content), "\n")
	tag := func(s string) string { return "  #" + strings.Repeat("_", len(s)-1) }
	for i, want := range map[int]string{1: tag("{% if lb -%}"), 3: tag("{%- else -%}"), 9: "", 11: ""} {
		if lines[i] != want {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], want)
		}
	}
}

// blockHeaderRe is the definition isBlockHeader implements by hand.
var blockHeaderRe = regexp.MustCompile(`(^|[:\-])[ \t]+[|>][-+0-9]*[ \t]*(#.*)?\r?$`)

var blockHeaderCases = []string{"", "key: |", "key: |-", "key: >+2", "- >-", "  |", "|", "k: |2 # c", "k: | #", "k:|", "k: |x", "a: b | c",
	"a: | b", "k: |\r", "k: |\r\r", "k: | # c\r", "k: |-\t", "x- |", "x | y: |", "k: >\n", "k: | #\n", "k: |\t#c", "k: a|", ":  >  ", "- - |"}

func TestIsBlockHeaderMatchesRegexp(t *testing.T) {
	for _, c := range blockHeaderCases {
		if got, want := isBlockHeader([]byte(c)), blockHeaderRe.MatchString(c); got != want {
			t.Errorf("isBlockHeader(%q) = %v, the expression says %v", c, got, want)
		}
	}
}

func FuzzIsBlockHeader(f *testing.F) {
	for _, c := range blockHeaderCases {
		f.Add(c)
	}
	f.Fuzz(func(t *testing.T, c string) {
		if got, want := isBlockHeader([]byte(c)), blockHeaderRe.MatchString(c); got != want {
			t.Errorf("isBlockHeader(%q) = %v, the expression says %v", c, got, want)
		}
	})
}
