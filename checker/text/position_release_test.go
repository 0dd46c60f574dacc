package text

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

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

// TestLineIndexForget: a released index that forgot its line starts makes them again from the
// text read once, the first time it needs them, from any number of goroutines, and answers
// as before; a text that cannot be read again leaves positions on its first line; an index
// that keeps its text does not forget.
func TestLineIndexForget(t *testing.T) {
	for _, src := range []string{
		"a: 1\r\nbb: 2\n\r\nccc: 3\rd: 4",
		"\xEF\xBB\xBFkey: value\n\n  - x\r\n",
		"",
		"one line",
	} {
		whole, lazy := NewLineIndex([]byte(src)), NewLineIndex([]byte(src))
		var reads atomic.Int32
		if !lazy.Release() || !lazy.Forget(func() ([]byte, error) { reads.Add(1); return []byte(src), nil }) {
			t.Fatalf("%q: not released and forgotten", src)
		}
		if lazy.starts != nil || lazy.shortStarts != nil || lazy.wideStarts != nil || lazy.crlf != nil || reads.Load() != 0 {
			t.Fatalf("%q: the starts are held, or were read again before a question", src)
		}
		var wg sync.WaitGroup
		for range 4 {
			wg.Go(func() { _ = lazy.Position("f", len(src)/2) })
		}
		wg.Wait()
		if whole.Lines() != lazy.Lines() || lazy.LineText(1) != "" {
			t.Fatalf("%q: %d lines, want %d", src, lazy.Lines(), whole.Lines())
		}
		for line := 0; line <= whole.Lines()+1; line++ {
			if a, b := lazy.LineStart(line), whole.LineStart(line); a != b {
				t.Errorf("%q: LineStart(%d) = %d, want %d", src, line, a, b)
			}
			if a, b := lazy.LineEnd(line), whole.LineEnd(line); a != b {
				t.Errorf("%q: LineEnd(%d) = %d, want %d", src, line, a, b)
			}
			for col := 0; col < 8; col++ {
				if a, b := lazy.Offset(line, col), whole.Offset(line, col); a != b {
					t.Errorf("%q: Offset(%d, %d) = %d, want %d", src, line, col, a, b)
				}
			}
		}
		for off := -1; off <= len(src)+1; off++ {
			if a, b := lazy.Position("f", off), whole.Position("f", off); a != b {
				t.Errorf("%q: Position(%d) = %v, want %v", src, off, a, b)
			}
			if a, b := lazy.Line(off), whole.Line(off); a != b {
				t.Errorf("%q: Line(%d) = %d, want %d", src, off, a, b)
			}
		}
		if reads.Load() != 1 {
			t.Errorf("%q: read %d times, want once", src, reads.Load())
		}
	}
	changed := NewLineIndex([]byte("a: 1\nb: 2\n"))
	changed.Release()
	changed.Forget(func() ([]byte, error) { return nil, errors.New("changed since it was read") })
	if p := changed.Position("f", 7); p.Line != 1 || p.Offset != 7 {
		t.Errorf("a text that changed: %v", p)
	}
	if NewLineIndex([]byte("a: 1\n")).Forget(func() ([]byte, error) { return nil, nil }) {
		t.Error("an index that holds its text forgot its starts")
	}
}
