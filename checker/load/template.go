package load

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// decodeTemplated decodes a templated YAML file (Helm, Jinja2, ERB, Go text/template,
// Terraform templatefile, envsubst, documentation placeholders) from the YAML-safe masked copy
// of text.MaskTemplate: lines holding only template logic are emptied, inline placeholders
// become "${___}" plain strings of the same length. The documents live in a virtual file
// whose offsets map to f, so positions stay exact and literal lines (mode: ipvs) are decoded
// and checked; then every masked scalar gets its true text back (restorePlaceholders), so a
// placeholder value is recognised by text.HasPlaceholder, never a finding, and messages
// quote the template as written. Syntax errors that remain next to a placeholder are
// dropped, as for any templated file. ok is false when f holds no placeholder this masking
// handles (e.g. only ${VAR}); the caller then decodes f as it is.
func decodeTemplated(f *checker.File) (docs []*checker.Document, probs []checker.LoadProblem, ok bool) {
	m := text.MaskTemplate(f.Content)
	if m == nil {
		return nil, nil, false
	}
	f.Open = m.Open
	v := &checker.File{Path: f.Path, Content: m.Content, Lines: text.NewLineIndex(m.Content), Format: checker.FormatYAML,
		Templated: true, Parent: f, ParentMap: m.Map, Masked: true}
	docs, all := decodeStream(v)
	for _, p := range all {
		if p.Pos.Line > 0 && hasTemplateMarker([]byte(regionText(f, p.Pos.Line))) {
			// Next to a placeholder the template engine, not the YAML, decides: never a
			// finding, but never silent either, since the rest of the document is not read.
			p.Manifest = false
			p.Message = "templated file still invalid after masking its placeholders (" + p.Message + "); the rest of this document is not checked"
		}
		probs = append(probs, p)
	}
	restorePlaceholders(v, docs)
	markOpen(f, docs)
	// Decoders that look at the sibling documents of a document (kubeadm's
	// KubeProxyConfiguration next to its ClusterConfiguration) find them in d.File.Docs.
	v.Docs = docs
	return docs, probs, true
}

// restorePlaceholders gives every scalar of docs (keys too) that was masked in the virtual
// file v its true text: each masked byte is replaced by the byte of v.Parent it stands for.
// Inline placeholders are masked byte for byte, so the result is the text as written.
func restorePlaceholders(v *checker.File, docs []*checker.Document) {
	src := v.Parent.Content
	// masked returns the offset in src of v's byte k when the masking changed it.
	masked := func(k int) (int, bool) {
		if k < 0 || k >= len(v.Content) {
			return 0, false
		}
		o := v.ParentOffset(k)
		return o, o < len(src) && v.Content[k] != src[o]
	}
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > 10000 {
			return
		}
		switch n.Kind {
		case yaml.ScalarNode:
			if !maskedScalar(v, n) {
				return
			}
			// at maps the value's byte j to its offset in v: where the scalar is written on
			// one line as its value, plainly, without an offset map (oneLineSpan).
			var at func(j int) int
			if start, ok := oneLineSpan(v, n); ok {
				if sameBytes(v, src, start, len(n.Value)) {
					return
				}
				at = func(j int) int { return start + j }
			} else {
				at = checker.ScalarOffsetMap(v, n).Map
			}
			var b []byte
			for j := 0; j < len(n.Value); j++ {
				if o, ok := masked(at(j)); ok {
					if b == nil {
						b = []byte(n.Value)
					}
					b[j] = src[o]
				}
			}
			if b != nil {
				n.Value = string(b)
			}
		case yaml.AliasNode:
			// The anchor's node is restored where it is defined.
		default:
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
	}
	for _, d := range docs {
		walk(d.Node, 0)
	}
}

// maskedScalar reports whether scalar n of the masked file v may hold masked bytes: masking
// writes only '$', '_', '#' and blanks, so a value without '$', '_' or '#' whose source
// line is unchanged needs no restoring (most scalars: this saves an offset map each).
func maskedScalar(v *checker.File, n *yaml.Node) bool {
	return strings.ContainsAny(n.Value, "$_#") || n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0
}

// oneLineSpan returns the offset in the masked copy v of a template of scalar n's value when
// n is written on one line as its value, plain or double-quoted without escapes: its bytes
// are then the value's, one for one, which restorePlaceholders learnt before by aligning
// every scalar (an offset map each; most of a templated dashboard's strings hold an
// underscore, which makes them candidates). Any other scalar is left to the alignment.
func oneLineSpan(v *checker.File, n *yaml.Node) (int, bool) {
	if !v.Masked || v.Lines == nil {
		return 0, false
	}
	start := v.Lines.Offset(n.Line, n.Column)
	switch n.Style {
	case 0:
	case yaml.DoubleQuotedStyle:
		start++
	default:
		return 0, false
	}
	end := start + len(n.Value)
	if start < 0 || end > v.Lines.LineEnd(n.Line) || end > len(v.Content) || string(v.Content[start:end]) != n.Value ||
		n.Style == yaml.DoubleQuotedStyle && (end >= len(v.Content) || v.Content[end] != '"') {
		return 0, false
	}
	return start, true
}

// sameBytes reports whether the n bytes of the masked copy v from offset start are those of
// src they map to (text.MaskTemplate maps the bytes of a line one for one, in order): then
// none of them was masked.
func sameBytes(v *checker.File, src []byte, start, n int) bool {
	if n == 0 {
		return true
	}
	o := v.ParentOffset(start)
	return o >= 0 && o+n <= len(src) && v.ParentOffset(start+n-1) == o+n-1 && string(src[o:o+n]) == string(v.Content[start:start+n])
}

// markOpen sets Document.Open on the documents of f that hold an output placeholder alone on
// its line: each document covers the lines from its start to the next document's.
func markOpen(f *checker.File, docs []*checker.Document) {
	if len(f.Open) == 0 {
		return
	}
	for i, d := range docs {
		if d.Node == nil {
			continue
		}
		from := 1
		if i > 0 && docs[i-1].Node != nil {
			from = docLastLine(docs[i-1].Node) + 1
		}
		to := int(^uint(0) >> 1)
		if i+1 < len(docs) && docs[i+1].Node != nil {
			to = docs[i+1].Node.Line - 1
		}
		for _, o := range f.Open {
			if o.Line >= from && o.Line <= to {
				d.Open = true
			}
		}
	}
}

// docLastLine is the last line a node's content starts on.
func docLastLine(n *yaml.Node) int {
	last := n.Line
	for _, c := range n.Content {
		if l := docLastLine(c); l > last {
			last = l
		}
	}
	return last
}
