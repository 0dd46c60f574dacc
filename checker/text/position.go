package text

import (
	"fmt"
	"sort"
	"unicode/utf8"
)

// Position is a place in a file. Line and Column are 1-based; Column counts Unicode code points
// (as yaml.v3 and most editors do); Offset is the 0-based byte offset.
type Position struct {
	Filename string `json:"file"`
	Offset   int    `json:"offset"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
}

// IsValid reports whether the position names a line.
func (p Position) IsValid() bool { return p.Line > 0 }

// String formats the position as file:line:col.
func (p Position) String() string {
	if !p.IsValid() {
		return p.Filename
	}
	return fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
}

// Less orders positions by file, then offset.
func (p Position) Less(o Position) bool {
	if p.Filename != o.Filename {
		return p.Filename < o.Filename
	}
	if p.Line != o.Line {
		return p.Line < o.Line
	}
	return p.Column < o.Column
}

// LineIndex converts between byte offsets and line/column positions of one text.
type LineIndex struct {
	content []byte
	starts  []int // byte offset of the start of each line
	// wide has bit i set when line i+1 (with its break) holds a byte of a multi-byte
	// character: only there does a column need counting code points; elsewhere it is a byte
	// difference, so that positions on long lines cost the same as on short ones.
	wide []uint64
}

// NewLineIndex indexes content. Lines end where the YAML parser (yaml.v3, which follows YAML
// 1.1) ends them, so that its line numbers and these offsets agree: at "\n", "\r\n", a lone
// "\r", and the Unicode line breaks NEL (U+0085), LS (U+2028) and PS (U+2029). The line
// break belongs to the line it ends.
func NewLineIndex(content []byte) *LineIndex {
	starts := make([]int, 1, len(content)/32+1)
	// A byte order mark is not part of the first line's columns.
	if len(content) >= 3 && content[0] == 0xEF && content[1] == 0xBB && content[2] == 0xBF {
		starts[0] = 3
	}
	var wide []uint64
	for i := 0; i < len(content); i++ {
		c := content[i]
		if c < utf8.RuneSelf {
			// ASCII, most bytes: only LF and CR end lines.
			switch c {
			case '\n':
				starts = append(starts, i+1)
			case '\r':
				if i+1 < len(content) && content[i+1] == '\n' {
					i++
				}
				starts = append(starts, i+1)
			}
			continue
		}
		if i >= starts[0] {
			// A multi-byte character, or the first byte of a NEL, LS or PS break: the
			// byte order mark belongs to no line.
			line := len(starts) - 1
			if line/64 >= len(wide) {
				wide = append(wide, make([]uint64, line/64+1-len(wide))...)
			}
			wide[line/64] |= 1 << (line % 64)
		}
		if n := breakLen(content, i); n > 0 {
			i += n - 1
			starts = append(starts, i+1)
		}
	}
	return &LineIndex{content: content, starts: starts, wide: wide}
}

// narrow reports whether 1-based line holds only single-byte characters.
func (x *LineIndex) narrow(line int) bool {
	k := line - 1
	return k < 0 || k/64 >= len(x.wide) || x.wide[k/64]&(1<<(k%64)) == 0
}

// breakLen returns the length of the line break starting at b[i], or 0.
func breakLen(b []byte, i int) int {
	switch b[i] {
	case '\n':
		return 1
	case '\r':
		if i+1 < len(b) && b[i+1] == '\n' {
			return 2
		}
		return 1
	case 0xC2:
		if i+1 < len(b) && b[i+1] == 0x85 {
			return 2
		}
	case 0xE2:
		if i+2 < len(b) && b[i+1] == 0x80 && (b[i+2] == 0xA8 || b[i+2] == 0xA9) {
			return 3
		}
	}
	return 0
}

// Lines returns the number of lines.
func (x *LineIndex) Lines() int { return len(x.starts) }

// LineStart returns the byte offset of the start of 1-based line.
func (x *LineIndex) LineStart(line int) int {
	if line < 1 {
		return 0
	}
	if line > len(x.starts) {
		return len(x.content)
	}
	return x.starts[line-1]
}

// LineEnd returns the byte offset of the end of 1-based line's text, before its line break.
func (x *LineIndex) LineEnd(line int) int {
	if line < 1 {
		line = 1
	}
	if line >= len(x.starts) {
		return len(x.content)
	}
	end := x.starts[line]
	// Step back over the break that ends the line ("\r\n" is one break).
	for k := 3; k >= 1; k-- {
		if end-k >= x.starts[line-1] && breakLen(x.content, end-k) == k {
			return end - k
		}
	}
	return end
}

// LineText returns the text of 1-based line without its line ending.
func (x *LineIndex) LineText(line int) string {
	if line < 1 || line > len(x.starts) {
		return ""
	}
	return string(x.content[x.starts[line-1]:x.LineEnd(line)])
}

// Offset converts a 1-based line and code-point column to a byte offset, clamped to the line.
func (x *LineIndex) Offset(line, col int) int {
	if line < 1 {
		return 0
	}
	if line > len(x.starts) {
		return len(x.content)
	}
	off := x.starts[line-1]
	end := x.LineEnd(line)
	if x.narrow(line) {
		return min(off+max(col-1, 0), end)
	}
	for i := 1; i < col && off < end; i++ {
		_, size := utf8.DecodeRune(x.content[off:end])
		off += size
	}
	return off
}

// Line returns the 1-based line that holds byte offset off (clamped to the content).
func (x *LineIndex) Line(off int) int {
	return max(1, sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off }))
}

// Position converts a byte offset to a position in file name.
func (x *LineIndex) Position(name string, off int) Position {
	if off < 0 {
		off = 0
	}
	if off > len(x.content) {
		off = len(x.content)
	}
	line := sort.Search(len(x.starts), func(i int) bool { return x.starts[i] > off })
	if line == 0 {
		line = 1
	}
	start := x.starts[line-1]
	if off < start {
		off = start
	}
	col := off - start + 1
	if !x.narrow(line) {
		col = utf8.RuneCount(x.content[start:off]) + 1
	}
	return Position{Filename: name, Offset: off, Line: line, Column: col}
}
