package rules_test

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestKP102HeredocVariableNotes: a heredoc's mode: "$MODE" is reported at the assignment's
// value with a note at the use, and the fix edits the assignment only (issue 21, item 4).
func TestKP102HeredocVariableNotes(t *testing.T) {
	_, fs := checkertest.Findings(t, rules.KP102, filepath.Join(fixtureRoot, "KP102", "heredoc-variable.sh"))
	want := map[int]string{5: "10:8 $MODE is expanded here, in a heredoc", 6: "16:18 ${KIND_MODE} is expanded here, in a heredoc"}
	if len(fs) != len(want) {
		t.Fatalf("%d findings, want %d", len(fs), len(want))
	}
	for _, f := range fs {
		w, ok := want[f.Pos.Line]
		if !ok || len(f.Related) != 1 {
			t.Errorf("%s: related %+v, want one note %q", f.Pos, f.Related, w)
			continue
		}
		r := f.Related[0]
		if got := fmt.Sprintf("%d:%d %s", r.Pos.Line, r.Pos.Column, r.Message); got != w {
			t.Errorf("%s: note %q, want %q", f.Pos, got, w)
		}
		for _, fx := range f.Fixes {
			for _, e := range fx.Edits {
				if e.Pos.Line != f.Pos.Line || e.End.Line != f.Pos.Line {
					t.Errorf("%s: fix %q edits %s-%s, outside the assignment's line", f.Pos, fx.Message, e.Pos, e.End)
				}
			}
		}
	}
}

// TestKP102MatrixNotes: a heredoc's kubeProxyMode: ${{ matrix.proxy-mode }} is judged per
// matrix value: the ipvs values are reported where the matrix lists them, each with a note at
// the expression, and each fix edits the value only.
func TestKP102MatrixNotes(t *testing.T) {
	_, fs := checkertest.Findings(t, rules.KP102, filepath.Join(fixtureRoot, "KP102", "matrix"))
	if len(fs) != 2 {
		t.Fatalf("%d findings, want 2 (the list's ipvs and the include's)", len(fs))
	}
	for _, f := range fs {
		if len(f.Related) != 1 || fmt.Sprintf("%d:%d %s", f.Related[0].Pos.Line, f.Related[0].Pos.Column, f.Related[0].Message) != "26:26 ${{ matrix.proxy-mode }} is expanded here, in a heredoc" {
			t.Errorf("%s: related %+v, want the note at the expression", f.Pos, f.Related)
		}
		for _, fx := range f.Fixes {
			for _, e := range fx.Edits {
				if e.Pos.Line != f.Pos.Line || e.End.Line != f.Pos.Line {
					t.Errorf("%s: fix %q edits %s-%s, outside the matrix value's line", f.Pos, fx.Message, e.Pos, e.End)
				}
			}
		}
	}
}

// TestKP102MatrixCommandNote: --proxy-mode="${{ matrix.mode }}" in a step is one kube-proxy
// per matrix value; the ipvs one is reported at the matrix entry with a note at the flag's
// value, and its fix edits the entry only.
func TestKP102MatrixCommandNote(t *testing.T) {
	_, fs := checkertest.Findings(t, rules.KP102, filepath.Join(fixtureRoot, "KP102", "matrix-command"))
	if len(fs) != 1 {
		t.Fatalf("%d findings, want 1", len(fs))
	}
	f := fs[0]
	if len(f.Related) != 1 || fmt.Sprintf("%d:%d %s", f.Related[0].Pos.Line, f.Related[0].Pos.Column, f.Related[0].Message) != "15:25 ${{ matrix.mode }} is expanded here" {
		t.Errorf("%s: related %+v, want the note at the flag's value", f.Pos, f.Related)
	}
	for _, fx := range f.Fixes {
		if len(fx.Edits) != 1 || fx.Edits[0].Pos.Line != 11 || fx.Edits[0].End.Line != 11 {
			t.Errorf("fix %q: edits %+v, want one edit of the matrix entry", fx.Message, fx.Edits)
		}
	}
}
