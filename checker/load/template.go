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
			offs := checker.ScalarOffsetMap(v, n)
			var b []byte
			for j := 0; j < len(n.Value); j++ {
				if o, ok := masked(offs.Map(j)); ok {
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
