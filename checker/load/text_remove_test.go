package load

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// removeTextEditsByLine is removeTextEdits as it was before it stopped reading whole lines
// (and the whole file before a continued command's last line): the reference that the
// linear version must agree with.
func removeTextEditsByLine(f *checker.File, from, to int, lineMode bool) []checker.TextEdit {
	src := f.Content
	ls := from
	for ls > 0 && src[ls-1] != '\n' {
		ls--
	}
	le := to
	for le < len(src) && src[le] != '\n' {
		le++
	}
	before := strings.TrimSpace(string(src[ls:from]))
	after := strings.TrimSpace(string(src[to:le]))
	edit := func(a, b int) []checker.TextEdit {
		return []checker.TextEdit{{Pos: f.PositionAt(a), End: f.PositionAt(b)}}
	}
	next := min(le+1, len(src))
	switch {
	case before == "" && (after == "" || strings.HasPrefix(after, "#")) && lineMode:
		return edit(ls, next)
	case before == "" && after == `\`:
		return edit(ls, next)
	case before == "" && after == "" && ls > 0:
		pe := ls - 1
		if pe > 0 && src[pe-1] == '\r' {
			pe--
		}
		prev := strings.TrimRight(string(src[:pe]), " \t")
		if strings.HasSuffix(prev, `\`) {
			cut := len(strings.TrimRight(prev[:len(prev)-1], " \t"))
			return edit(cut, le)
		}
	}
	a := from
	for a > 0 && (src[a-1] == ' ' || src[a-1] == '\t') {
		a--
	}
	if a > 0 && src[a-1] == ',' && from < len(src) && src[from] == '"' {
		return edit(a-1, to)
	}
	if a == ls {
		b := to
		for b < le && (src[b] == ' ' || src[b] == '\t') {
			b++
		}
		return edit(from, b)
	}
	return edit(a, to)
}

// TestRemoveTextEditsNeighbourhood checks the flag removal edits against the line-reading
// reference on generated command lines: continuations, CRLF and lone CR, NEL, tabs,
// no-break spaces, comments, JSON exec-form items, the file's first and last lines.
func TestRemoveTextEditsNeighbourhood(t *testing.T) {
	pieces := []string{"--v=2", "--proxy-mode=ipvs", `"--a=b"`, " ", "  ", "\t", "\u00a0", "\\", " \\", "\n", "\r\n", "\r", "\u0085",
		"# c", ",", "[", "]", "kube-proxy", "é", "x"}
	rng := rand.New(rand.NewSource(1))
	for range 3000 {
		var b strings.Builder
		for range 1 + rng.Intn(12) {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
		src := []byte(b.String())
		f := newFile("f", src)
		for range 8 {
			from := rng.Intn(len(src) + 1)
			to := from + rng.Intn(len(src)-from+1)
			for _, lineMode := range []bool{false, true} {
				got := removeTextEdits(f, from, to, lineMode)
				want := removeTextEditsByLine(f, from, to, lineMode)
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%q [%d,%d) lineMode %v: got %+v, want %+v", src, from, to, lineMode, got, want)
				}
			}
		}
	}
}
