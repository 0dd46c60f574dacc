package text

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// releaseTexts have LF, CRLF and lone CR breaks, empty lines, a last line without a break and
// a byte order mark.
var releaseTexts = []string{
	"a: 1\r\nbb: 2\n\r\nccc: 3\rd: 4",
	"\xEF\xBB\xBFkey: value\n\n  - x\r\n",
	"",
	"one line",
}

// sameAnswers checks that got answers every question about src's lines and offsets but
// LineText as want does, and LineText with "" (a released index).
func sameAnswers(t *testing.T, src string, got, want *LineIndex) {
	t.Helper()
	if got.LineText(1) != "" {
		t.Errorf("%q: LineText after release", src)
	}
	if want.Lines() != got.Lines() {
		t.Fatalf("%q: %d lines, want %d", src, got.Lines(), want.Lines())
	}
	for line := 0; line <= want.Lines()+1; line++ {
		if a, b := got.LineStart(line), want.LineStart(line); a != b {
			t.Errorf("%q: LineStart(%d) = %d, want %d", src, line, a, b)
		}
		if a, b := got.LineEnd(line), want.LineEnd(line); a != b {
			t.Errorf("%q: LineEnd(%d) = %d, want %d", src, line, a, b)
		}
		for col := 0; col < 8; col++ {
			if a, b := got.Offset(line, col), want.Offset(line, col); a != b {
				t.Errorf("%q: Offset(%d, %d) = %d, want %d", src, line, col, a, b)
			}
		}
	}
	for off := -1; off <= len(src)+1; off++ {
		if a, b := got.Position("f", off), want.Position("f", off); a != b {
			t.Errorf("%q: Position(%d) = %v, want %v", src, off, a, b)
		}
		if a, b := got.Line(off), want.Line(off); a != b {
			t.Errorf("%q: Line(%d) = %d, want %d", src, off, a, b)
		}
	}
}

// TestLineIndexRelease: a released index answers every question but LineText as before
// (releaseTexts); an index with a multi-byte character keeps its text.
func TestLineIndexRelease(t *testing.T) {
	for _, src := range releaseTexts {
		whole, rel := NewLineIndex([]byte(src)), NewLineIndex([]byte(src))
		if !rel.Release() {
			t.Fatalf("%q: not released", src)
		}
		sameAnswers(t, src, rel, whole)
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
	for _, src := range releaseTexts {
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
		sameAnswers(t, src, lazy, whole)
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
