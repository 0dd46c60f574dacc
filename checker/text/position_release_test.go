package text

import "testing"

// TestLineIndexRelease: a released index answers every question but LineText as before, on
// text with LF, CRLF and lone CR breaks, empty lines, a last line without a break and a byte
// order mark; an index with a multi-byte character keeps its text.
func TestLineIndexRelease(t *testing.T) {
	for _, src := range []string{
		"a: 1\r\nbb: 2\n\r\nccc: 3\rd: 4",
		"\xEF\xBB\xBFkey: value\n\n  - x\r\n",
		"",
		"one line",
	} {
		whole, rel := NewLineIndex([]byte(src)), NewLineIndex([]byte(src))
		if !rel.Release() {
			t.Fatalf("%q: not released", src)
		}
		if rel.LineText(1) != "" {
			t.Errorf("%q: LineText after release", src)
		}
		if whole.Lines() != rel.Lines() {
			t.Fatalf("%q: %d lines, want %d", src, rel.Lines(), whole.Lines())
		}
		for line := 0; line <= whole.Lines()+1; line++ {
			if a, b := rel.LineStart(line), whole.LineStart(line); a != b {
				t.Errorf("%q: LineStart(%d) = %d, want %d", src, line, a, b)
			}
			if a, b := rel.LineEnd(line), whole.LineEnd(line); a != b {
				t.Errorf("%q: LineEnd(%d) = %d, want %d", src, line, a, b)
			}
			for col := 0; col < 8; col++ {
				if a, b := rel.Offset(line, col), whole.Offset(line, col); a != b {
					t.Errorf("%q: Offset(%d, %d) = %d, want %d", src, line, col, a, b)
				}
			}
		}
		for off := -1; off <= len(src)+1; off++ {
			if a, b := rel.Position("f", off), whole.Position("f", off); a != b {
				t.Errorf("%q: Position(%d) = %v, want %v", src, off, a, b)
			}
		}
	}
	if NewLineIndex([]byte("mode: é\n")).Release() {
		t.Error("an index with a multi-byte character released its text")
	}
}
