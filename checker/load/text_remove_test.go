package load

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

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

// removeEditsByTable is removeEdits (for words inside a script scalar) as it was before it
// stopped reading whole lines and building a table of the scalar's offsets per flag.
func removeEditsByTable(first, last token) []checker.TextEdit {
	f := first.doc.File
	m := checker.ScalarOffsets(f, first.node)
	from, to := first.from, last.to
	if m == nil || last.node != first.node || to >= len(m) {
		return nil
	}
	v := first.node.Value
	ls := strings.LastIndexByte(v[:from], '\n') + 1
	le := strings.IndexByte(v[to:], '\n')
	if ls > 0 && le >= 0 && strings.TrimSpace(v[ls:from]) == "" && strings.TrimSpace(v[to:to+le]) == "\\" {
		start := m[ls-1] + 1
		if f.Content[m[ls-1]] == '\r' {
			start++
		}
		end := m[to+le] + 1
		if f.Content[m[to+le]] == '\r' {
			end++
		}
		return []checker.TextEdit{{Pos: f.PositionAt(start), End: f.PositionAt(end)}}
	}
	for from > 0 && (v[from-1] == ' ' || v[from-1] == '\t') {
		from--
	}
	return []checker.TextEdit{{Pos: f.PositionAt(m[from]), End: f.PositionAt(m[to])}}
}

// TestRemoveEditsNeighbourhood checks the removal edits of flags in sh -c scripts of
// containers against the table-reading reference, on generated block and quoted scalars.
func TestRemoveEditsNeighbourhood(t *testing.T) {
	pieces := []string{"--v=2", "--proxy-mode=ipvs", "kube-proxy", " ", "  ", "\t", "\u00a0", " \\", "\\", "\\\\", "é", "#x", "'a b'"}
	rng := rand.New(rand.NewSource(2))
	checked := 0
	for range 400 {
		var lines []string
		for range 1 + rng.Intn(6) {
			var b strings.Builder
			for range 1 + rng.Intn(6) {
				b.WriteString(pieces[rng.Intn(len(pieces))])
			}
			lines = append(lines, b.String())
		}
		eol := []string{"\n", "\r\n"}[rng.Intn(2)]
		var scalar string
		if rng.Intn(2) == 0 {
			scalar = "|" + eol + "          " + strings.Join(lines, eol+"          ") + eol
		} else {
			scalar = strconvQuote(strings.Join(lines, "\n")) + eol
		}
		src := strings.ReplaceAll("apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    command:\n    - sh\n    - -c\n    - ", "\n", eol) + scalar
		ws := Bytes("p.yaml", []byte(src), nil)
		if len(ws.Docs) == 0 {
			continue
		}
		d := ws.Docs[0]
		_, n := d.Lookup(checker.Path{"spec", "containers", "0", "command", "2"})
		if n == nil || n.Kind != yaml.ScalarNode {
			continue
		}
		for _, words := range shellCommands(token{text: n.Value, doc: d, node: n, to: len(n.Value)}) {
			for i := range words {
				for j := i; j < len(words) && j < i+2; j++ {
					got, want := removeEdits(words[i], words[j]), removeEditsByTable(words[i], words[j])
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("%q words %d..%d: got %+v, want %+v", src, i, j, got, want)
					}
					checked++
				}
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d word ranges checked", checked)
	}
}

// strconvQuote writes s as a double-quoted YAML scalar.
func strconvQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\t", `\t`)
	return `"` + r.Replace(s) + `"`
}
