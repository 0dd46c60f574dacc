package load

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Strings of Terraform files that hold kube-proxy flags (see string_flags.go): a heredoc
// holding a k3s or RKE2 config.yaml (rancher2_cluster_v2 machine_global_config = <<EOF
// ... kube-proxy-arg: [proxy-mode=ipvs] EOF), a yamlencode({kube-proxy-arg = [...]}) object, and
// strings or lists of flags whatever attribute holds them. Each literal string (without
// interpolation, whose positions would not map) is read as a YAML document of its own, with
// positions in the Terraform file, by the same finder as strings of YAML files.

// hclStringFlagInstances finds kube-proxy flags in the strings of the Terraform files.
func hclStringFlagInstances(ws *checker.Workspace, claimed map[string][][2]int, have []*checker.Instance) []*checker.Instance {
	var out []*checker.Instance
	for _, f := range ws.Files {
		if f.Parent != nil || !isTerraformName(f.Path) || !bytes.Contains(f.Content, []byte("proxy-mode")) {
			continue
		}
		body, ok := parseHCL(f)
		if !ok {
			continue
		}
		h := &hclStrings{ws: ws, f: f, claimed: claimed[f.Path], have: have}
		h.body(body, 0)
		out = append(out, h.out...)
	}
	return out
}

type hclStrings struct {
	ws      *checker.Workspace
	f       *checker.File
	claimed [][2]int
	have    []*checker.Instance
	out     []*checker.Instance
}

func (h *hclStrings) body(b *hclsyntax.Body, depth int) {
	if depth > maxStringFlagDepth {
		return
	}
	for _, a := range b.Attributes {
		h.expr(a.Name, a.Expr, depth+1)
	}
	for _, blk := range b.Blocks {
		h.body(blk.Body, depth+1)
	}
}

func (h *hclStrings) expr(key string, e hclsyntax.Expression, depth int) {
	if depth > maxStringFlagDepth {
		return
	}
	switch x := e.(type) {
	case *hclsyntax.TemplateExpr:
		h.literal(key, x)
	case *hclsyntax.TemplateWrapExpr:
		h.expr(key, x.Wrapped, depth+1)
	case *hclsyntax.ObjectConsExpr:
		for _, it := range x.Items {
			k, _ := tfKey(it.KeyExpr)
			h.expr(k, it.ValueExpr, depth+1)
		}
	case *hclsyntax.TupleConsExpr:
		for _, a := range x.Exprs {
			h.expr(key, a, depth+1)
		}
	case *hclsyntax.FunctionCallExpr:
		for _, a := range x.Args {
			h.expr(key, a, depth+1)
		}
	case *hclsyntax.ParenthesesExpr:
		h.expr(key, x.Expression, depth+1)
	}
}

// literal reads a string or heredoc without interpolation as a YAML document whose
// positions map into the Terraform file, and finds flags in it as in a YAML file.
func (h *hclStrings) literal(key string, x *hclsyntax.TemplateExpr) {
	if len(x.Parts) == 0 {
		return
	}
	for _, p := range x.Parts {
		if _, ok := p.(*hclsyntax.LiteralValueExpr); !ok {
			return // interpolated: positions would not map; a placeholder anyway
		}
	}
	r := hcl.RangeBetween(x.Parts[0].Range(), x.Parts[len(x.Parts)-1].Range())
	src := h.f.Content[r.Start.Byte:r.End.Byte]
	if !bytes.Contains(src, []byte("proxy-mode")) || bytes.IndexByte(src, '\\') >= 0 {
		return // escapes would shift positions
	}
	start := r.Start.Byte
	if len(src) > 0 && src[0] == '"' {
		src, start = src[1:], start+1
	}
	src = bytes.TrimSuffix(src, []byte(`"`))
	offs := make([]int, len(src)+1)
	for i := range offs {
		offs[i] = start + i
	}
	inner := &checker.File{Path: h.f.Path, Content: append([]byte(nil), src...), Parent: h.f, ParentOffsets: offs}
	inner.Lines = text.NewLineIndex(inner.Content)
	if len(parseFile(inner)) > 0 {
		return
	}
	for _, d := range inner.Docs {
		if d.Node == nil {
			continue
		}
		var found []*checker.Instance
		if k3sArgKeys[key] {
			// The string is the value of a kube-proxy-arg key itself.
			sf := &stringFlagFinder{ws: h.ws, d: d, claimed: h.claimed, have: h.have}
			sf.walk(d.Node, checker.Path{key}, key, 0)
			found = sf.found
		} else {
			found = k3sConfigInstances(h.ws, d)
			for _, in := range found {
				for _, fl := range in.Flags {
					h.claimed = append(h.claimed, [2]int{fl.Pos.Offset, fl.End.Offset})
				}
			}
			sf := &stringFlagFinder{ws: h.ws, d: d, claimed: h.claimed, have: h.have}
			sf.walk(d.Node, nil, key, 0)
			found = append(found, sf.found...)
		}
		h.out = append(h.out, found...)
	}
}
