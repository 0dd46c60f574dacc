package text

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"sync"
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
	// starts holds the byte offset of the start of each line. Four bytes a line, allocated to
	// size: the line indexes of every file stay in memory for a whole run, and as []int grown
	// by appending they were a twentieth of a large run's heap (issue 24). Content of 4 GiB
	// or more (never read in practice) is indexed in wideStarts instead.
	starts     []uint32
	wideStarts []int
	// shortStarts holds them in two bytes each instead, once Pack moved the index of a text
	// whose lines all start below 64 KiB (most files) into the loader's blocks.
	shortStarts []uint16
	// wide has bit i set when line i+1 (with its break) holds a byte of a multi-byte
	// character: only there does a column need counting code points; elsewhere it is a byte
	// difference, so that positions on long lines cost the same as on short ones.
	wide []uint64
	// released is set once the text is let go (Release): size is its length, and crlf has
	// bit i set when line i+1 ends with "\r\n" (the other breaks of a text of single-byte
	// characters are one byte).
	released bool
	size     int
	crlf     []uint64
	// lazy is set once a released index let its line starts go too (Forget): they are made
	// again, the first time a method needs them, from the text lazy reads.
	lazy *lazyIndex
}

// lazyIndex is the index a LineIndex that forgot its starts makes again on first need.
type lazyIndex struct {
	once sync.Once
	read func() ([]byte, error)
	x    *LineIndex
}

// index returns the index made again from the text, once. A text that cannot be read again
// as it was (it changed since: read's error) leaves an index of one line of the known size:
// positions in it are on its first line, as nothing else can be said of them.
func (l *lazyIndex) index(size int) *LineIndex {
	l.once.Do(func() {
		b, err := l.read()
		l.read = nil
		if err != nil {
			l.x = &LineIndex{starts: []uint32{0}, released: true, size: size}
			return
		}
		x := NewLineIndex(b)
		x.Release()
		l.x = x
	})
	return l.x
}

// Forget lets a released index (Release) go of its line starts too, to be made again from
// the text read returns (the file read again, checked unchanged) the first time a method
// needs them: most released files' positions are resolved while they load (issue 24 phase
// 8: 7 million lines at 100,000 files, 15 MB). It reports whether it did (only a released
// index forgets).
func (x *LineIndex) Forget(read func() ([]byte, error)) bool {
	if !x.released || read == nil || x.lazy != nil {
		return x.lazy != nil
	}
	x.lazy = &lazyIndex{read: read}
	x.starts, x.wideStarts, x.shortStarts, x.crlf = nil, nil, nil, nil
	return true
}

// Release lets go of the indexed text, keeping what positions need, when every line holds
// only single-byte characters (columns are byte differences then); it reports whether it
// did. Afterwards LineText returns "" and every other method answers as before.
func (x *LineIndex) Release() bool {
	if x.released {
		return true
	}
	for _, w := range x.wide {
		if w != 0 {
			return false
		}
	}
	n := x.lines()
	for i := 0; i+1 < n; i++ {
		if end := x.start(i + 1); end >= 2 && x.content[end-2] == '\r' && x.content[end-1] == '\n' {
			if i/64 >= len(x.crlf) {
				x.crlf = append(x.crlf, make([]uint64, i/64+1-len(x.crlf))...)
			}
			x.crlf[i/64] |= 1 << (i % 64)
		}
	}
	x.size, x.content, x.released = len(x.content), nil, true
	return true
}

// length is the length of the indexed text.
func (x *LineIndex) length() int {
	if x.released {
		return x.size
	}
	return len(x.content)
}

// NewLineIndex indexes content. Lines end where the YAML parser (yaml.v3, which follows YAML
// 1.1) ends them, so that its line numbers and these offsets agree: at "\n", "\r\n", a lone
// "\r", and the Unicode line breaks NEL (U+0085), LS (U+2028) and PS (U+2029). The line
// break belongs to the line it ends.
func NewLineIndex(content []byte) *LineIndex {
	x := &LineIndex{content: content}
	// At most one line per LF and per CR, and rarely any other break: one allocation.
	n := 1 + bytes.Count(content, []byte{'\n'}) + bytes.Count(content, []byte{'\r'})
	big := uint64(len(content)) > narrowLimit
	if big {
		x.wideStarts = make([]int, 1, n)
	} else {
		x.starts = make([]uint32, 1, n)
	}
	add := func(off int) {
		if big {
			x.wideStarts = append(x.wideStarts, off)
		} else {
			x.starts = append(x.starts, uint32(off))
		}
	}
	// A byte order mark is not part of the first line's columns.
	bom := 0
	if len(content) >= 3 && content[0] == 0xEF && content[1] == 0xBB && content[2] == 0xBF {
		bom = 3
		if big {
			x.wideStarts[0] = bom
		} else {
			x.starts[0] = uint32(bom)
		}
	}
	for i := 0; i < len(content); i++ {
		c := content[i]
		if c < utf8.RuneSelf {
			// ASCII, most bytes: only LF and CR end lines.
			switch c {
			case '\n':
				add(i + 1)
			case '\r':
				if i+1 < len(content) && content[i+1] == '\n' {
					i++
				}
				add(i + 1)
			}
			continue
		}
		if i >= bom {
			// A multi-byte character, or the first byte of a NEL, LS or PS break: the
			// byte order mark belongs to no line.
			line := x.lines() - 1
			if line/64 >= len(x.wide) {
				x.wide = append(x.wide, make([]uint64, line/64+1-len(x.wide))...)
			}
			x.wide[line/64] |= 1 << (line % 64)
		}
		if n := breakLen(content, i); n > 0 {
			i += n - 1
			add(i + 1)
		}
	}
	return x
}

// Move makes x index content, a copy of the text it indexes, and keeps its line starts in
// the slice alloc returns for their number (nil keeps them where they are): the loader moves
// what a run keeps of a file into dense blocks once the file is loaded (issue 24). Content of
// another length is not taken; a released index takes none.
func (x *LineIndex) Move(content []byte, alloc func(n int) []uint32) {
	if !x.released && x.content != nil && len(content) == len(x.content) {
		x.content = content
	}
	if alloc != nil && len(x.starts) > 0 {
		s := alloc(len(x.starts))
		copy(s, x.starts)
		x.starts = s
	}
}

// Pack is Move for an index whose lines all start below 64 KiB: it keeps their starts in two
// bytes each, in the slice alloc returns for their number, and reports whether it did (false
// for another index, which it leaves as it was).
func (x *LineIndex) Pack(content []byte, alloc func(n int) []uint16) bool {
	if len(x.starts) == 0 || x.starts[len(x.starts)-1] > math.MaxUint16 {
		return false
	}
	x.Move(content, nil)
	s := alloc(len(x.starts))
	for i, v := range x.starts {
		s[i] = uint16(v)
	}
	x.shortStarts, x.starts = s, nil
	return true
}

// narrowLimit is the largest content indexed with four-byte offsets (a variable for tests).
var narrowLimit uint64 = math.MaxUint32

// lines is the number of lines; start the byte offset of 0-based line i.
func (x *LineIndex) lines() int {
	switch {
	case x.shortStarts != nil:
		return len(x.shortStarts)
	case x.wideStarts != nil:
		return len(x.wideStarts)
	}
	return len(x.starts)
}

func (x *LineIndex) start(i int) int {
	switch {
	case x.shortStarts != nil:
		return int(x.shortStarts[i])
	case x.wideStarts != nil:
		return x.wideStarts[i]
	}
	return int(x.starts[i])
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
func (x *LineIndex) Lines() int {
	if x.lazy != nil {
		return x.lazy.index(x.size).Lines()
	}
	return x.lines()
}

// LineStart returns the byte offset of the start of 1-based line.
func (x *LineIndex) LineStart(line int) int {
	if x.lazy != nil {
		return x.lazy.index(x.size).LineStart(line)
	}
	if line < 1 {
		return 0
	}
	if line > x.lines() {
		return x.length()
	}
	return x.start(line - 1)
}

// LineEnd returns the byte offset of the end of 1-based line's text, before its line break.
func (x *LineIndex) LineEnd(line int) int {
	if x.lazy != nil {
		return x.lazy.index(x.size).LineEnd(line)
	}
	if line < 1 {
		line = 1
	}
	if line >= x.lines() {
		return x.length()
	}
	end := x.start(line)
	if x.released {
		k := line - 1
		if k/64 < len(x.crlf) && x.crlf[k/64]&(1<<(k%64)) != 0 {
			return end - 2
		}
		return end - 1
	}
	// Step back over the break that ends the line ("\r\n" is one break).
	for k := 3; k >= 1; k-- {
		if end-k >= x.start(line-1) && breakLen(x.content, end-k) == k {
			return end - k
		}
	}
	return end
}

// LineText returns the text of 1-based line without its line ending ("" once released).
func (x *LineIndex) LineText(line int) string {
	if line < 1 || line > x.lines() || x.released {
		return ""
	}
	return string(x.content[x.start(line-1):x.LineEnd(line)])
}

// Offset converts a 1-based line and code-point column to a byte offset, clamped to the line.
func (x *LineIndex) Offset(line, col int) int {
	if x.lazy != nil {
		return x.lazy.index(x.size).Offset(line, col)
	}
	if line < 1 {
		return 0
	}
	if line > x.lines() {
		return x.length()
	}
	off := x.start(line - 1)
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
	if x.lazy != nil {
		return x.lazy.index(x.size).Line(off)
	}
	return max(1, sort.Search(x.lines(), func(i int) bool { return x.start(i) > off }))
}

// Position converts a byte offset to a position in file name.
func (x *LineIndex) Position(name string, off int) Position {
	if x.lazy != nil {
		return x.lazy.index(x.size).Position(name, off)
	}
	if off < 0 {
		off = 0
	}
	if off > x.length() {
		off = x.length()
	}
	line := sort.Search(x.lines(), func(i int) bool { return x.start(i) > off })
	if line == 0 {
		line = 1
	}
	start := x.start(line - 1)
	if off < start {
		off = start
	}
	col := off - start + 1
	if !x.narrow(line) {
		col = utf8.RuneCount(x.content[start:off]) + 1
	}
	return Position{Filename: name, Offset: off, Line: line, Column: col}
}
