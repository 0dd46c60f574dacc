package load

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/shell"
)

// decodeTemplated decodes a templated YAML file (Helm, Jinja2, ERB, Go text/template,
// Terraform templatefile) from a copy in which every placeholder is replaced by neutral text
// of the same length (shell.Neutralize): lines that hold only template logic become blank,
// inline placeholders become "${___}" plain strings. The documents live in a virtual file
// whose offsets map one to one to f, so positions stay exact, literal lines (mode: ipvs) are
// decoded and checked, and a placeholder value is still recognised by
// checker.HasPlaceholder, so it is never a finding. Syntax errors that remain next to a
// placeholder are dropped, as for any templated file. ok is false when f holds no placeholder
// this rewriting handles (e.g. only ${VAR}); the caller then decodes f as it is.
func decodeTemplated(f *checker.File) (docs []*checker.Document, probs []checker.LoadProblem, ok bool) {
	n := shell.Neutralize(f.Content)
	if n == nil {
		return nil, nil, false
	}
	v := &checker.File{Path: f.Path, Content: n, Lines: checker.NewLineIndex(n), Format: checker.FormatYAML, Templated: true, Parent: f}
	docs, all := decodeStream(v)
	for _, p := range all {
		if p.Pos.Line > 0 && hasTemplateMarker([]byte(regionText(f, p.Pos.Line))) {
			continue
		}
		probs = append(probs, p)
	}
	return docs, probs, true
}
