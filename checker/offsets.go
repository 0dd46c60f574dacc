package checker

import (
	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// scalarMapKey memoizes ScalarOffsetMap of one scalar of a file (File.Memo).
type scalarMapKey struct{ n *yaml.Node }

// ScalarMap returns ScalarOffsetMap(f, n), computed once per scalar: the positions of many
// flags or metrics in one long scalar then cost one alignment, not one each.
func (f *File) ScalarMap(n *yaml.Node) *text.OffsetMap {
	if n == nil || n.Kind != yaml.ScalarNode {
		return nil
	}
	return f.Memo(scalarMapKey{n}, func() any { return ScalarOffsetMap(f, n) }).(*text.OffsetMap)
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

// RemapNodes rekeys the scalar offset maps memoized on f (ScalarMap) by the nodes' copies in
// m: the loader copies the nodes a file keeps into dense blocks once it is loaded (issue 24).
func (f *File) RemapNodes(m map[*yaml.Node]*yaml.Node) {
	f.memoMu.Lock()
	defer f.memoMu.Unlock()
	rekey := func(k any) any {
		if s, ok := k.(scalarMapKey); ok {
			if n, ok := m[s.n]; ok {
				return scalarMapKey{n}
			}
		}
		return k
	}
	if f.memoMap != nil {
		old := f.memoMap
		f.memoMap = make(map[any]any, len(old))
		for k, v := range old {
			f.memoMap[rekey(k)] = v
		}
		return
	}
	for i := range f.memoKV {
		f.memoKV[i].key = rekey(f.memoKV[i].key)
	}
}
