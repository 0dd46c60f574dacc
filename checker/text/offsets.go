package text

import (
	"sort"
	"unicode/utf8"
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

// Add records that inner offset j (added in increasing order) comes from parent offset o.
func (m *OffsetMap) Add(j, o int) {
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

// NewOffsetMap returns an empty map of an inner content of n bytes; Add fills it and SetEnd
// gives the parent offset of the inner content's end.
func NewOffsetMap(n int) *OffsetMap { return &OffsetMap{n: n} }

// SetEnd records the parent offset of the end of the inner content.
func (m *OffsetMap) SetEnd(end int) { m.end = end }

// ScalarStyle says how a scalar is written in its source, for AlignScalar.
type ScalarStyle int

// Scalar styles.
const (
	Plain  ScalarStyle = iota
	Block              // literal (|) or folded (>)
	Quoted             // single or double quoted
)

// AlignScalar maps each byte of val, the decoded value of a scalar whose source text starts
// at offset start of src, to the byte offset in src of the source character that produced
// it, and the end of the value to the end of the scalar. It aligns the decoded value with the
// source text, so it handles block scalar indentation (indent is the block's content
// indentation, -1 when unknown), chomping, folding, CRLF line ends and simple quoting. The
// map is kept in runs (a block scalar is one run per line), so that a document embedded in a
// scalar, and one embedded in that, cost no per-byte table.
func AlignScalar(src []byte, start int, val string, style ScalarStyle, indent int) *OffsetMap {
	m := &OffsetMap{n: len(val)}
	i := start // position in source
	block := style == Block
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
	} else if style == Quoted && i < len(src) {
		i++ // opening quote
	}
	j := 0
	for j < len(val) {
		if i >= len(src) {
			m.Add(j, len(src))
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
			m.Add(j, i)
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
				m.Add(j, i)
				j++
			}
			// Otherwise folding removed it.
			i += brk
			atLineStart = true
		case c == '\r':
			i++
		case c == '\\' || c == '\'':
			// Escape sequence: map the decoded byte to the escape's start.
			m.Add(j, i)
			j++
			i += 2
			for i < len(src) && j < len(val) && src[i] != val[j] && isHexOrEscape(src[i]) {
				i++
			}
		default:
			// Could not align (e.g. a multi-byte escape); map to the current place.
			m.Add(j, i)
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

// BlockStart returns the offset where the content of a block scalar whose header starts at
// offset start begins: past the header line.
func BlockStart(src []byte, start int) int {
	i := start
	for i < len(src) && src[i] != '\n' {
		i++
	}
	if i < len(src) {
		i++
	}
	return i
}

func isHexOrEscape(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}
