package checker

import (
	"sort"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// OffsetMap maps the byte offsets of a virtual file's content (a document decoded from a
// scalar) to its parent's content. It is kept as runs in which both offsets advance together,
// so its size grows with the number of lines and escapes, not with the number of bytes.
type OffsetMap struct {
	in, out []int // run k maps in[k]+d to out[k]+d
	n       int   // length of the inner content
	end     int   // parent offset of the end of the inner content
	lastIn  int
	lastOut int
}

// add records that inner offset j (added in increasing order) comes from parent offset o.
func (m *OffsetMap) add(j, o int) {
	if len(m.in) > 0 && j == m.lastIn+1 && o == m.lastOut+1 {
		m.lastIn, m.lastOut = j, o
		return
	}
	m.in = append(m.in, j)
	m.out = append(m.out, o)
	m.lastIn, m.lastOut = j, o
}

// Map returns the parent offset of inner offset off, clamped to the content.
func (m *OffsetMap) Map(off int) int {
	if off >= m.n || len(m.in) == 0 {
		return m.end
	}
	off = max(off, 0)
	k := sort.SearchInts(m.in, off+1) - 1
	return m.out[k] + off - m.in[k]
}

// Runs returns the number of runs, for tests and benchmarks.
func (m *OffsetMap) Runs() int { return len(m.in) }

// Table expands the map into one entry per byte plus one for the end, the form of
// File.ParentOffsets.
func (m *OffsetMap) Table() []int {
	t := make([]int, m.n+1)
	for i := range m.n {
		t[i] = m.Map(i)
	}
	t[m.n] = m.end
	return t
}

// scalarMapKey memoizes ScalarOffsetMap of one scalar of a file (File.Memo).
type scalarMapKey struct{ n *yaml.Node }

// ScalarMap returns ScalarOffsetMap(f, n), computed once per scalar: the positions of many
// flags or metrics in one long scalar then cost one alignment, not one each.
func (f *File) ScalarMap(n *yaml.Node) *OffsetMap {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	return f.Memo(scalarMapKey{n}, func() any { return ScalarOffsetMap(f, n) }).(*OffsetMap)
}

// ScalarOffsets is ScalarOffsetMap as a table of one entry per byte (File.ParentOffsets).
func ScalarOffsets(f *File, n *yaml.Node) []int {
	m := ScalarOffsetMap(f, n)
	if m == nil {
		return nil
	}
	return m.Table()
}

// ScalarOffsetMap maps each byte of scalar n's value to the byte offset in f.Content of the
// source character that produced it, and the end of the value to the end of the scalar. It
// aligns the decoded value with the source text, so it handles block scalar indentation,
// chomping, folding, CRLF line ends and simple quoting. It returns nil when n is not a
// scalar. The map is kept in runs (a block scalar is one run per line), so that a document
// embedded in a scalar, and one embedded in that, cost no per-byte table.
func ScalarOffsetMap(f *File, n *yaml.Node) *OffsetMap {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	src := f.Content
	start := f.Lines.Offset(n.Line, n.Column)
	val := n.Value
	m := &OffsetMap{n: len(val)}
	i := start // position in source
	block := n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
	indent := -1
	atLineStart := false
	if block {
		// Skip the header line ("|-2 # comment").
		for i < len(src) && src[i] != '\n' {
			i++
		}
		if i < len(src) {
			i++
		}
		atLineStart = true
		indent = blockIndent(src, i, f.Lines, n)
	} else if n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0 && i < len(src) {
		i++ // opening quote
	}
	j := 0
	for j < len(val) {
		if i >= len(src) {
			m.add(j, len(src))
			j++
			continue
		}
		if atLineStart {
			// Skip indentation (up to the block indentation, or all leading whitespace).
			k := 0
			for i < len(src) && (src[i] == ' ' || (!block && src[i] == '\t')) && (indent < 0 || k < indent) {
				i++
				k++
			}
			atLineStart = false
			continue
		}
		c := src[i]
		v := val[j]
		switch {
		case c == v:
			m.add(j, i)
			if c == '\n' {
				atLineStart = true
			}
			i++
			j++
		case c == '\n' || (c == '\r' && i+1 < len(src) && src[i+1] == '\n'):
			// A line break (LF or CRLF) maps to its first byte.
			brk := 1
			if c == '\r' {
				brk = 2
			}
			if v == ' ' || v == '\n' {
				// Kept or folded into a space.
				m.add(j, i)
				j++
			}
			// Otherwise folding removed it.
			i += brk
			atLineStart = true
		case c == '\r':
			i++
		case c == '\\' || c == '\'':
			// Escape sequence: map the decoded byte to the escape's start.
			m.add(j, i)
			j++
			i += 2
			for i < len(src) && j < len(val) && src[i] != val[j] && isHexOrEscape(src[i]) {
				i++
			}
		default:
			// Could not align (e.g. a multi-byte escape); map to the current place.
			m.add(j, i)
			j++
			_, size := utf8.DecodeRune(src[i:])
			i += size
		}
	}
	m.end = i
	if len(val) > 0 && m.end < m.Map(len(val)-1) {
		m.end = m.Map(len(val)-1) + 1
	}
	return m
}
