package checker

import (
	"reflect"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

func TestScanDirectivesEdgeCases(t *testing.T) {
	content := "a: 1 # kube-proxy-lint:ignore KP102 -- crlf line\r\n" +
		"# prose that mentions kube-proxy-lint:ignore is no directive\r\n" +
		"url: http://x/#kube-proxy-lint:ignore KP102 -- not after a space\r\n" +
		"# kube-proxy-lint:ignore KP102 KP201,mode-ipvs -- reason -- with dashes\r\n" +
		"\r\n" +
		"b: 2\r\n" +
		"# kube-proxy-lint:ignore KP102 -- nothing follows\r\n"
	c := []byte(content)
	ws := &Workspace{Files: []*File{
		{Path: "x.yaml", Content: c, Lines: text.NewLineIndex(c)},
		// Virtual files are not scanned: their text is part of the real file.
		{Path: "x.yaml#inner", Content: c, Lines: text.NewLineIndex(c), Parent: &File{}},
	}}
	ds := ScanDirectives(ws)
	if len(ds) != 3 {
		t.Fatalf("directives = %+v", ds)
	}
	if d := ds[0]; d.Line != 1 || d.Reason != "crlf line" || d.End.Line != 1 || d.End.Column != 49 {
		t.Errorf("trailing directive = %+v", d)
	}
	if d := ds[1]; d.Line != 6 || !reflect.DeepEqual(d.Rules, []string{"KP102", "KP201", "mode-ipvs"}) || d.Reason != "reason -- with dashes" {
		t.Errorf("directive above a blank line = %+v", d)
	}
	if d := ds[2]; d.Line != 0 || d.Problem != "" {
		t.Errorf("directive at the end = %+v", d)
	}
	f := &Finding{Pos: Position{Filename: "x.yaml", Line: 6}}
	if !ds[1].Covers(f) || ds[0].Covers(f) || ds[2].Covers(&Finding{Pos: Position{Filename: "x.yaml"}}) {
		t.Error("Covers disagrees with the lines")
	}
}

func TestDirectiveProblems(t *testing.T) {
	for _, tt := range []struct{ line, problem string }{
		{"# kube-proxy-lint:ignore KP102", `suppression has no reason: add "-- reason" after the rules`},
		{"# kube-proxy-lint:ignore KP102 --   ", `suppression has no reason: add "-- reason" after the rules`},
		{"# kube-proxy-lint:ignore -- why", "suppression names no rule: write rule IDs or names before --"},
		{"# kube-proxy-lint:ignore KP102 until=31.12.2026 -- why", `invalid until date "31.12.2026" (want YYYY-MM-DD)`},
		{"# kube-proxy-lint:disable KP102 -- why", `unknown directive "kube-proxy-lint:disable" (want kube-proxy-lint:ignore or kube-proxy-lint:ignore-file)`},
		{"# kube-proxy-lint:ignore-file KP401 -- ok", ""},
	} {
		c := []byte(tt.line + "\n")
		ds := ScanDirectives(&Workspace{Files: []*File{{Path: "f", Content: c, Lines: text.NewLineIndex(c)}}})
		if len(ds) != 1 || ds[0].Problem != tt.problem {
			t.Errorf("%q: directives %+v, want problem %q", tt.line, ds, tt.problem)
		}
	}
}
