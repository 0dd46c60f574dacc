package checker

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
	"unsafe"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"

	"go.yaml.in/yaml/v3"
)

func TestLineIndex(t *testing.T) {
	src := []byte("\ufeffab: ü\r\nx: 1\n\nlast")
	x := text.NewLineIndex(src)
	if x.Lines() != 4 {
		t.Fatalf("lines = %d", x.Lines())
	}
	if got := x.LineText(1); got != "ab: ü" {
		t.Errorf("line 1 = %q (BOM and CR must not be part of it)", got)
	}
	for _, tc := range []struct{ line, col, off int }{
		{1, 1, 3},  // after the BOM
		{1, 5, 7},  // ü
		{1, 6, 9},  // after ü (2 bytes)
		{2, 1, 11}, // after CRLF
		{4, 1, 17},
		{4, 99, 21}, // clamped to the end
	} {
		if got := x.Offset(tc.line, tc.col); got != tc.off {
			t.Errorf("Offset(%d,%d) = %d, want %d", tc.line, tc.col, got, tc.off)
		}
		if tc.col < 99 {
			p := x.Position("f", tc.off)
			if p.Line != tc.line || p.Column != tc.col {
				t.Errorf("Position(%d) = %d:%d, want %d:%d", tc.off, p.Line, p.Column, tc.line, tc.col)
			}
		}
	}
}

func TestApplyEdits(t *testing.T) {
	src := []byte("0123456789")
	e := func(a, b int, s string) TextEdit {
		return TextEdit{Pos: Position{Offset: a}, End: Position{Offset: b}, NewText: s}
	}
	got, err := ApplyEdits(src, []TextEdit{e(8, 9, "X"), e(0, 2, ""), e(5, 5, "+"), e(8, 9, "X")})
	if err != nil || string(got) != "234+567X9" {
		t.Errorf("got %q, %v", got, err)
	}
	if _, err := ApplyEdits(src, []TextEdit{e(1, 4, ""), e(3, 5, "")}); err == nil {
		t.Error("overlapping edits accepted")
	}
	if _, err := ApplyEdits(src, []TextEdit{e(9, 11, "")}); err == nil {
		t.Error("out-of-range edit accepted")
	}
}

func TestPath(t *testing.T) {
	p := P("spec", "containers", 0, "args", 2)
	if p.String() != "spec.containers[0].args[2]" {
		t.Errorf("String = %s", p)
	}
	b, _ := json.Marshal(p)
	if string(b) != `["spec","containers",0,"args",2]` {
		t.Errorf("JSON = %s", b)
	}
	q := p.Append("x")
	if len(p) != 5 || q.String() != "spec.containers[0].args[2].x" {
		t.Errorf("Append changed the receiver or failed: %s %s", p, q)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]Version{"1.40": {1, 40}, "v1.37.2": {1, 37}, "1.38.0-beta.0": {1, 38}} {
		if v, err := ParseVersion(in); err != nil || v != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, v, err)
		}
	}
	for _, in := range []string{"", "1", "2.0", "latest", "v1.x"} {
		if _, err := ParseVersion(in); err == nil {
			t.Errorf("ParseVersion(%q) accepted", in)
		}
	}
}

func TestScalarOffsets(t *testing.T) {
	for _, tc := range []struct{ name, src, word string }{
		{"plain", "k: abc --flag=x def\n", "--flag=x"},
		{"double quoted", "k: \"abc --flag=x\"\n", "--flag=x"},
		{"double quoted escape before", "k: \"a\\tb --flag=x\"\n", "--flag=x"},
		{"single quoted", "k: 'it''s --flag=x'\n", "--flag=x"},
		{"literal", "k: |\n  line one\n  exec kube-proxy --flag=x\n", "--flag=x"},
		{"folded", "k: >-\n  line one\n  exec --flag=x\n", "--flag=x"},
		{"crlf literal", "k: |\r\n  one\r\n  --flag=x\r\n", "--flag=x"},
		{"multi-line plain", "k: one\n  two --flag=x\n", "--flag=x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var doc yaml.Node
			if err := yaml.Unmarshal([]byte(tc.src), &doc); err != nil {
				t.Fatal(err)
			}
			f := &File{Path: "f", Content: []byte(tc.src), Lines: text.NewLineIndex([]byte(tc.src))}
			n := doc.Content[0].Content[1]
			m := ScalarOffsets(f, n)
			i := strings.Index(n.Value, tc.word)
			if i < 0 {
				t.Fatalf("value %q lacks %q", n.Value, tc.word)
			}
			got := tc.src[m[i]:m[i+len(tc.word)]]
			if got != tc.word {
				t.Errorf("mapped to %q, want %q", got, tc.word)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	ok := func(id, name string) *Rule {
		return &Rule{ID: id, Name: name, Severity: SeverityWarning, Run: func(*Pass) error { return nil },
			Doc: Doc{Title: "t", Why: "w", Remediation: "r", Since: "0.1.0"}}
	}
	if err := Validate([]*Rule{ok("KP001", "a"), ok("KP002", "b")}); err != nil {
		t.Errorf("valid rules rejected: %v", err)
	}
	bad := map[string][]*Rule{
		"duplicate ID":   {ok("KP001", "a"), ok("KP001", "b")},
		"duplicate name": {ok("KP001", "a"), ok("KP002", "a")},
		"malformed ID":   {ok("kp1", "a")},
		"malformed name": {ok("KP001", "Mode_IPVS")},
		"unsorted":       {ok("KP002", "a"), ok("KP001", "b")},
		"empty doc":      {{ID: "KP001", Name: "a", Severity: SeverityInfo, Run: func(*Pass) error { return nil }}},
	}
	for name, rs := range bad {
		if err := Validate(rs); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFingerprintIgnoresPosition(t *testing.T) {
	a := Finding{RuleID: "KP102", Pos: Position{Filename: "a.yaml", Line: 3}, Path: P("mode"), Object: &ObjectRef{Kind: "ConfigMap", Name: "kube-proxy"}}
	b := a
	b.Pos.Line = 30
	if a.Fingerprint() != b.Fingerprint() {
		t.Error("fingerprint depends on the line")
	}
	c := a
	c.Path = P("ipvs", "scheduler")
	if a.Fingerprint() == c.Fingerprint() {
		t.Error("fingerprint ignores the field path")
	}
}

func TestFeatureGatesYAML11AndFlags(t *testing.T) {
	src := "kind: KubeProxyConfiguration\nfeatureGates:\n  A: yes\n  B: \"true\"\n  C: off\n"
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(src), &doc); err != nil {
		t.Fatal(err)
	}
	f := &File{Path: "f", Content: []byte(src), Lines: text.NewLineIndex([]byte(src))}
	in := &Instance{Kind: InstanceConfig, Config: &Document{File: f, Node: doc.Content[0]}}
	got := map[string]string{}
	for _, g := range in.FeatureGates() {
		got[g.Name] = strconv.FormatBool(g.Value) + "/" + strconv.FormatBool(g.Invalid)
	}
	if got["A"] != "true/false" || got["B"] != "false/true" || got["C"] != "false/false" {
		t.Errorf("config gates: %v", got)
	}
	fl := &Instance{Workload: &Document{}, Flags: []Flag{
		{Name: "feature-gates", Value: "A=true,B"},
		{Name: "feature-gates", Value: "C=1,D=maybe"},
	}}
	got = map[string]string{}
	for _, g := range fl.FeatureGates() {
		got[g.Name] = strconv.FormatBool(g.Value) + "/" + strconv.FormatBool(g.Invalid)
	}
	if got["A"] != "true/false" || got["B"] != "false/true" || got["C"] != "true/false" || got["D"] != "false/true" {
		t.Errorf("flag gates: %v", got)
	}
}

// TestClusterOf checks the lookup of the cluster model: the deepest root above a file in the
// file's own self-contained tree, one-file clusters, declared globs; shared files see only
// the shared files of their own directory.
func TestClusterOf(t *testing.T) {
	ws := &Workspace{}
	a := &Cluster{Name: "clusters/a", Root: "clusters/a"}
	b := &Cluster{Name: "clusters/b", Root: "clusters/b"}
	prod := &Cluster{Name: "clusters/b/overlays/prod", Root: "clusters/b/overlays/prod", Unit: "clusters/b/overlays/prod"}
	kind := &Cluster{Name: "dev/kind.yaml", Root: "dev", File: "dev/kind.yaml"}
	decl := &Cluster{Name: "edge", Declared: true, Paths: []string{"edge/**/*.yaml", "nodes/edge-*"}}
	ws.SetClusters([]*Cluster{a, b, prod, kind, decl}, map[string]*Cluster{"dev/kind.yaml": kind})
	for file, want := range map[string]*Cluster{
		"clusters/a/kube-proxy.yaml":             a,
		"clusters/a/sub/dir/x.yaml":              a,
		"clusters/ab/x.yaml":                     nil,
		"clusters/b/overlays/prod/x.yaml":        prod,
		"clusters/b/overlays/staging/x.yaml":     nil, // another overlay: its own tree
		"clusters/b/base/x.yaml":                 b,
		"README.yaml":                            nil,
		"clusters/b/overlays/prod/deeper/y.yaml": prod,
		"dev/kind.yaml":                          kind,
		"dev/kind-bpf.yaml":                      nil,
		"edge/a/b.yaml":                          decl,
		"nodes/edge-1.json":                      decl,
		"nodes/prod-1.json":                      nil,
	} {
		if got := ws.ClusterOf(file); got != want {
			t.Errorf("ClusterOf(%s) = %v, want %v", file, got, want)
		}
	}
	if ws.SameScope("clusters/a/x.yaml", "clusters/b/y.yaml") || ws.SameScope("shared/x.yaml", "clusters/a/x.yaml") {
		t.Error("evidence crosses a cluster boundary")
	}
	if !ws.SameScope("shared/x.yaml", "shared/y.yaml") || ws.SameScope("shared/x.yaml", "monitoring/y.yaml") {
		t.Error("shared files of one directory must see each other, and only those")
	}
}

func TestGlobMatch(t *testing.T) {
	for _, c := range []struct {
		glob, file string
		want       bool
	}{
		{"clusters/prod", "clusters/prod/a/b.yaml", true},
		{"clusters/prod/", "clusters/prod/a.yaml", true},
		{"clusters/prod", "clusters/production/a.yaml", false},
		{"clusters/*/kubeadm.yaml", "clusters/x/kubeadm.yaml", true},
		{"**/kind.yaml", "a/b/kind.yaml", true},
		{"**/kind.yaml", "kind.yaml", true},
		{"a/**/c.yaml", "a/c.yaml", true},
		{"a/**/c.yaml", "a/x/y/c.yaml", true},
		{"a/*.yaml", "a/x/y.yaml", false},
		{"[", "x", false},
	} {
		if got := GlobMatch(c.glob, c.file); got != c.want {
			t.Errorf("GlobMatch(%q, %q) = %v, want %v", c.glob, c.file, got, c.want)
		}
	}
}

// TestReportDropsPlaceholderFixes checks the placeholder contract at Pass.Report: a fix that
// would edit, delete or copy a template placeholder is dropped; when the preferred fix goes,
// the alternatives go with it; the only fix left standing is marked preferred.
func TestReportDropsPlaceholderFixes(t *testing.T) {
	content := []byte("a: {{ .Values.mode }}\nb: $MODE\nc: ipvs\n")
	ws := &Workspace{Files: []*File{{Path: "x.yaml", Content: content, Lines: text.NewLineIndex(content)}}}
	edit := func(from, to int, text string) TextEdit {
		return TextEdit{Pos: Position{Filename: "x.yaml", Offset: from}, End: Position{Filename: "x.yaml", Offset: to}, NewText: text}
	}
	c := bytes.Index(content, []byte("ipvs"))
	var got []Finding
	p := NewPass(&Rule{ID: "KP999", Name: "x", Severity: SeverityWarning}, ws, func(f Finding) { got = append(got, f) })
	for _, fixes := range [][]Fix{
		{{Message: "tpl", Edits: []TextEdit{edit(3, 21, "x")}}},         // inside {{ }}
		{{Message: "shell", Edits: []TextEdit{edit(22, 31, "")}}},       // deletes b: $MODE
		{{Message: "copy", Edits: []TextEdit{edit(c, c+4, "${MODE}")}}}, // writes one
		{{Message: "ok", Edits: []TextEdit{edit(c, c+4, "nftables")}}},  // fine
		{{Message: "pref", Preferred: true, Edits: []TextEdit{edit(0, 5, "")}}, {Message: "alt", Edits: []TextEdit{edit(c, c+4, "x")}}},
		{{Message: "alt-bad", Edits: []TextEdit{edit(0, 5, "")}}, {Message: "pref-ok", Preferred: true, Edits: []TextEdit{edit(c, c+4, "x")}}},
		{{Message: "outside", Edits: []TextEdit{edit(c, len(content)+3, "")}}},
	} {
		p.Report(Finding{Message: "m", Pos: Position{Filename: "x.yaml", Line: 1, Column: 1}, Fixes: fixes})
	}
	want := [][]string{nil, nil, nil, {"ok*"}, nil, {"pref-ok*"}, nil}
	for i, f := range got {
		var names []string
		for _, fx := range f.Fixes {
			n := fx.Message
			if fx.Preferred {
				n += "*"
			}
			names = append(names, n)
		}
		if !reflect.DeepEqual(names, want[i]) {
			t.Errorf("case %d: fixes %v, want %v", i, names, want[i])
		}
	}
}

// TestPathJSONHostileKeys: whatever a mapping key holds, the path is valid JSON that decodes
// back to the same keys, and only canonical decimal elements become numbers.
func TestPathJSONHostileKeys(t *testing.T) {
	for _, p := range []Path{
		{"007"}, {"+1"}, {"-1"}, {"1e3"}, {"0x10"}, {"a\x00b", "\x1b[2J"}, {"\u202e", "\xff"}, {"", "0", "12"},
		{"99999999999999999999"}, {`"quoted"`, `back\slash`}, {"\u2028"},
	} {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("Marshal(%q): %v", p, err)
		}
		var back []any
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatalf("Marshal(%q) = %s, not JSON: %v", p, b, err)
		}
		for i, e := range back {
			switch v := e.(type) {
			case float64:
				if !IsCanonicalIndex(p[i]) {
					t.Errorf("%q: element %d became the number %v", p, i, v)
				}
			case string:
				if IsCanonicalIndex(p[i]) || (v != p[i] && utf8.ValidString(p[i])) {
					t.Errorf("%q: element %d decodes to %q", p, i, v)
				}
			}
		}
	}
}

// TestFingerprintIgnoresMessage: the message names the target version and other facts that
// change without the input changing; the fingerprint must not.
func TestFingerprintIgnoresMessage(t *testing.T) {
	a := Finding{RuleID: "KP102", Message: "mode ipvs at target 1.34", Pos: Position{Filename: "u.service", Line: 2}}
	a.Subject = SubjectOf([]byte("ExecStart=kube-proxy \\\n    --proxy-mode=ipvs\n"), 10, 44)
	b := a
	b.Message = "mode ipvs at target 1.43"
	b.Pos.Line = 9
	b.Subject = SubjectOf([]byte("ExecStart=kube-proxy --proxy-mode=ipvs\n"), 10, 38)
	if a.Fingerprint() != b.Fingerprint() {
		t.Errorf("fingerprint depends on message, line or wrapping: %q vs %q (subjects %q, %q)", a.Fingerprint(), b.Fingerprint(), a.Subject, b.Subject)
	}
	c := a
	c.Subject = "kube-proxy --proxy-mode=iptables"
	if a.Fingerprint() == c.Fingerprint() {
		t.Error("fingerprint ignores the flagged text")
	}
}

// TestLineIndexColumns checks that columns are code points on lines with multi-byte
// characters and line breaks (NEL, LS, PS, a byte order mark, invalid UTF-8) and bytes
// elsewhere, for every offset, in both directions.
func TestLineIndexColumns(t *testing.T) {
	for _, src := range []string{
		"\ufeffa: ü\nplain line\r\nnext\u0085after nel\u2028x\u2029y\rz\n\xffbad: 1\nend",
		strings.Repeat("--flag=x ", 200) + "é\n" + strings.Repeat("--flag=y ", 200),
		"",
		"\ufeff",
	} {
		x := text.NewLineIndex([]byte(src))
		for off := 0; off <= len(src); off++ {
			p := x.Position("f", off)
			start := x.LineStart(p.Line)
			want := utf8.RuneCount([]byte(src[start:p.Offset])) + 1
			if p.Column != want {
				t.Fatalf("%q: Position(%d) column %d, want %d", src, off, p.Column, want)
			}
		}
		for line := 1; line <= x.Lines(); line++ {
			for col := 0; col <= x.LineEnd(line)-x.LineStart(line)+2; col++ {
				// The code-point walk Offset does on lines with multi-byte characters.
				want := x.LineStart(line)
				for i := 1; i < col && want < x.LineEnd(line); i++ {
					_, size := utf8.DecodeRune([]byte(src[want:x.LineEnd(line)]))
					want += size
				}
				if got := x.Offset(line, col); got != want {
					t.Fatalf("%q: Offset(%d, %d) = %d, want %d", src, line, col, got, want)
				}
			}
		}
	}
}

// TestDocumentContains checks that a document's text runs from its root node to the next
// document's, so that a string in one document (or in a comment before the first) is not
// found in the others, and that a document missing from its file's list answers for the file.
func TestDocumentContains(t *testing.T) {
	src := "# kubeproxy_ before the first document\na: 1\n---\nb: kubeproxy_x\n---\n\n---\nc: |\n  x\n  kubeproxy_y\n---\nd: [kubeproxy_\n ]\n---\ne: 2\n"
	f := &File{Path: "f", Content: []byte(src), Lines: text.NewLineIndex([]byte(src))}
	dec := yaml.NewDecoder(bytes.NewReader(f.Content))
	for index := 0; ; index++ {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			break
		}
		if len(n.Content) > 0 {
			f.Docs = append(f.Docs, &Document{File: f, Index: index, Node: n.Content[0]})
		}
	}
	want := []bool{false, true, false, true, true, false}
	if len(f.Docs) != len(want) {
		t.Fatalf("%d documents", len(f.Docs))
	}
	for i, d := range f.Docs {
		if got := d.Contains("kubeproxy_"); got != want[i] {
			t.Errorf("document %d (%s): Contains = %v, want %v", d.Index, d.Node.Content[0].Value, got, want[i])
		}
		if d.Contains("absent") {
			t.Errorf("document %d holds a string the file does not", d.Index)
		}
	}
	if !f.Contains("kubeproxy_") || f.Contains("absent") {
		t.Error("File.Contains")
	}
	stray := &Document{File: f, Index: 99, Node: f.Docs[0].Node}
	if !stray.Contains("kubeproxy_") {
		t.Error("a document not in its file's list must answer for the file")
	}
}

// BenchmarkNewLineIndex indexes 1 MB of YAML-like text (go test -bench text.NewLineIndex ./checker).
func BenchmarkNewLineIndex(b *testing.B) {
	content := []byte(strings.Repeat("  - name: kube-proxy\n    image: registry.k8s.io/kube-proxy:v1.31.0 # é\r\n", 1<<20/72))
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		text.NewLineIndex(content)
	}
}

// TestReportShares: the findings of a pass share what they hold alike (issue 24): an unbound
// pass's findings in one file share that file's target, a bound pass's its bound one, and
// equal messages one string; a file of another scope gets its own target.
func TestReportShares(t *testing.T) {
	ws := &Workspace{Files: []*File{{Path: "a.yaml"}, {Path: "b.yaml"}}}
	var got []Finding
	p := NewPass(&Rule{ID: "KP999", Name: "x", Severity: SeverityWarning}, ws, func(f Finding) { got = append(got, f) })
	at := func(file string) Position { return Position{Filename: file, Line: 1, Column: 1} }
	p.Report(Finding{Message: "chain " + strings.Repeat("x", 3), Pos: at("a.yaml")})
	p.Report(Finding{Message: "chain " + strings.Repeat("x", 3), Pos: at("a.yaml")})
	p.Report(Finding{Message: "other", Pos: at("b.yaml")})
	q := p.At("a.yaml")
	q.Report(Finding{Message: "bound", Pos: at("a.yaml")})
	q.Report(Finding{Message: "bound", Pos: at("a.yaml")})
	if len(got) != 5 {
		t.Fatalf("%d findings", len(got))
	}
	if got[0].Target != got[1].Target || got[0].Target == got[2].Target || got[3].Target != got[4].Target || got[3].Target != q.bound {
		t.Errorf("targets not shared as they should: %p %p %p %p %p (bound %p)", got[0].Target, got[1].Target, got[2].Target, got[3].Target, got[4].Target, q.bound)
	}
	if unsafe.StringData(got[0].Message) != unsafe.StringData(got[1].Message) {
		t.Error("two equal messages are two strings")
	}
	for i, f := range got {
		if f.Target == nil || *f.Target != ws.TargetOf(f.Pos.Filename) {
			t.Errorf("finding %d: target %v", i, f.Target)
		}
	}
}
