package checker

import (
	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// scalarMapKey memoizes ScalarOffsetMap of one scalar of a file (File.Memo): by where the
// scalar is written, not by its node, so that a node copied into another (the loader's
// compaction, issue 24) finds the map made for it; ScalarOffsetMap reads only the position,
// style and value of its node, and two scalars of one file never share a position.
type scalarMapKey struct {
	line, column int
	style        yaml.Style
	size         int
}

// ScalarMap returns ScalarOffsetMap(f, n), computed once per scalar: the positions of many
// flags or metrics in one long scalar then cost one alignment, not one each.
func (f *File) ScalarMap(n *yaml.Node) *text.OffsetMap {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	key := scalarMapKey{n.Line, n.Column, n.Style, len(n.Value)}
	return f.Memo(key, func() any { return ScalarOffsetMap(f, n) }).(*text.OffsetMap)
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
// source character that produced it (text.AlignScalar). It returns nil when n is not a
// scalar.
func ScalarOffsetMap(f *File, n *yaml.Node) *text.OffsetMap {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	start := f.Lines.Offset(n.Line, n.Column)
	style, indent := text.Plain, -1
	switch {
	case n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0:
		style = text.Block
		indent = blockIndent(f.Content, text.BlockStart(f.Content, start), f.Lines, n)
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		style = text.Quoted
	}
	return text.AlignScalar(f.Content, start, n.Value, style, indent)
}
