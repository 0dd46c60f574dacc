package text

import "testing"

// TestLineIndexWide: content beyond four-byte offsets is indexed as the rest (the limit is
// lowered here; the real one is 4 GiB).
func TestLineIndexWide(t *testing.T) {
	for _, src := range []string{"\ufeffa: ü\nplain line\r\nnext\u0085after nel\u2028x\u2029y\rz\n\xffbad: 1\nend", "x", "a\n"} {
		narrow := NewLineIndex([]byte(src))
		old := narrowLimit
		narrowLimit = 0
		wide := NewLineIndex([]byte(src))
		narrowLimit = old
		if wide.wideStarts == nil || wide.starts != nil || narrow.starts == nil {
			t.Fatalf("%q: the limit did not choose the representation", src)
		}
		if narrow.Lines() != wide.Lines() {
			t.Fatalf("%q: %d lines, wide %d", src, narrow.Lines(), wide.Lines())
		}
		for off := 0; off <= len(src); off++ {
			if a, b := narrow.Position("f", off), wide.Position("f", off); a != b {
				t.Errorf("%q: Position(%d) = %v, wide %v", src, off, a, b)
			}
		}
		for line := 0; line <= narrow.Lines()+1; line++ {
			if narrow.LineStart(line) != wide.LineStart(line) || narrow.LineEnd(line) != wide.LineEnd(line) || narrow.Offset(line, 3) != wide.Offset(line, 3) {
				t.Errorf("%q: line %d differs", src, line)
			}
		}
	}
}
