package load

import (
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// hclNestingShapes are the constructs HCL's parser recurses on, each nested n times.
func hclNestingShapes(n int) map[string]string {
	r := strings.Repeat
	return map[string]string{
		"parentheses":       "x = " + r("(", n) + "1" + r(")", n),
		"function calls":    "x = " + r("f(", n) + "1" + r(")", n),
		"objects":           "x = " + r("{a = ", n) + "1" + r("}", n),
		"tuples":            "x = " + r("[", n) + "1" + r("]", n),
		"for expressions":   "x = " + r("[for a in b : ", n) + "1" + r("]", n),
		"blocks":            r("b {\n", n) + r("}\n", n),
		"negations":         "x = " + r("!", n) + "true",
		"minus signs":       "x = " + r("- ", n) + "1",
		"conditionals":      "x = " + r("a ? b : ", n) + "c",
		"splats":            "x = a" + r("[*].b", n),
		"interpolations":    "x = " + r("\"${", n) + "1" + r("}\"", n),
		"template ifs":      "x = \"" + r("%{ if a }", n) + r("%{ endif }", n) + "\"",
		"heredoc templates": "x = <<EOT\n" + r("${<<EOT\n", n) + "y\n" + r("EOT\n}\n", n) + "EOT\n",
	}
}

const tfAddon = "resource \"aws_eks_addon\" \"kube-proxy\" {\n  addon_name = \"kube-proxy\"\n  configuration_values = jsonencode({ mode = \"ipvs\" })\n}\n"

// TestTerraformNestingBounded: issue 22 item 13. 100,000 nested parentheses in a 200 KB
// Terraform file overflowed the stack in HCL's parser and killed the run. Each construct HCL
// nests on is bounded before it parses: KP001 where the nesting goes too deep, the file is not
// parsed, the rest of the run goes on.
func TestTerraformNestingBounded(t *testing.T) {
	for name, body := range hclNestingShapes(100000) {
		t.Run(name, func(t *testing.T) {
			ws := Files(map[string][]byte{
				"deep.tf":  []byte(tfAddon + body + "\n"),
				"addon.tf": []byte(tfAddon),
			}, nil)
			var found bool
			for _, p := range ws.Problems {
				if p.Pos.Filename == "deep.tf" && p.Manifest && strings.Contains(p.Message, "nests more than 1000 levels") {
					found = true
					if p.Pos.Line < 5 || p.Pos.Column < 1 {
						t.Errorf("problem at %s, want a place in the nesting (line 5 or later)", p.Pos)
					}
				}
			}
			if !found {
				t.Errorf("no KP001 problem for deep.tf: %+v", ws.Problems)
			}
			var sources []string
			for _, in := range ws.Instances {
				sources = append(sources, in.Label)
			}
			if len(ws.Instances) != 1 {
				t.Errorf("instances %q, want the one of addon.tf only", sources)
			}
		})
	}
}

// TestTerraformNestingWithinLimit: nesting up to the bound is scanned as within it, and HCL
// parses it without trouble; real configurations are far shallower and never reported.
func TestTerraformNestingWithinLimit(t *testing.T) {
	for name, body := range hclNestingShapes(maxHCLNesting/2 - 2) {
		src := []byte(tfAddon + body + "\n")
		if at, ok := hclNestingWithin(src, maxHCLNesting); !ok {
			t.Errorf("%s, %d levels: reported at %d", name, maxHCLNesting/2-2, at)
		}
		_, _ = hclsyntax.ParseConfig(src, "x.tf", hcl.InitialPos) // within the bound: no overflow
	}
	for _, src := range []string{
		tfAddon,
		"locals {\n  a = [for k, v in var.m : k if v != null]\n  b = var.x == \"a\" ? -1 : !var.y\n  c = \"${var.a}-%{ if var.b }x%{ endif }\"\n  d = <<-EOT\n    ${var.e}\n    EOT\n  e = local.list[*].id\n}\n",
		"# a comment with ((((( and \"\n// ((((\n/* [[[[ */\nx = \"(((((\"\ny = \"\\\"((\"\n",
		"x = [\n" + strings.Repeat("  a ? b : c,\n", 5000) + "]\n",
		"x = 1" + strings.Repeat(" - 1", 5000) + "\n",
	} {
		if at, ok := hclNestingWithin([]byte(src), maxHCLNesting); !ok {
			t.Errorf("%q: reported at %d", src[:min(len(src), 80)], at)
		}
	}
}

// hclRecursionDepth is how deep the constructs HCL's parser recurses on nest in a parsed
// file: brackets, calls, objects, tuples, for expressions, unary operators, conditionals,
// splats, templates and blocks. Binary operators, indexes and traversals are parsed in loops.
func hclRecursionDepth(body *hclsyntax.Body) int {
	w := &depthWalker{}
	_ = hclsyntax.Walk(body, w)
	return w.max
}

type depthWalker struct{ depth, max int }

func recurses(n hclsyntax.Node) bool {
	switch n.(type) {
	case *hclsyntax.ParenthesesExpr, *hclsyntax.FunctionCallExpr, *hclsyntax.ObjectConsExpr, *hclsyntax.TupleConsExpr,
		*hclsyntax.ForExpr, *hclsyntax.UnaryOpExpr, *hclsyntax.ConditionalExpr, *hclsyntax.SplatExpr,
		*hclsyntax.TemplateExpr, *hclsyntax.TemplateWrapExpr, *hclsyntax.Block:
		return true
	}
	return false
}

func (w *depthWalker) Enter(n hclsyntax.Node) hcl.Diagnostics {
	if recurses(n) {
		w.depth++
		w.max = max(w.max, w.depth)
	}
	return nil
}

func (w *depthWalker) Exit(n hclsyntax.Node) hcl.Diagnostics {
	if recurses(n) {
		w.depth--
	}
	return nil
}

// FuzzHCLNesting: the nesting scan never panics, reports an offset inside the file, and
// never counts much less than HCL nests: a file it passes at a bound does not nest more than
// about twice as deep (a conditional after a parenthesised one is one level for the scan,
// two in the tree), so the bound keeps HCL's recursion far from the stack's end.
func FuzzHCLNesting(f *testing.F) {
	for _, body := range hclNestingShapes(3) {
		f.Add([]byte(body))
	}
	f.Add([]byte("locals {\n  a = [for k, v in var.m : k if v != null]\n  b = var.x == \"a\" ? -1 : !var.y\n  c = \"${var.a}-%{ if var.b }x%{ endif }\"\n  d = <<-EOT\n    ${var.e}\n    EOT\n  e = local.list[*].id\n}\n"))
	f.Add([]byte("x = (a ? b : c) ? d : e\ny = -(-(-1))\n# ((((\n/* [[ */\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		if len(src) > 4096 {
			return
		}
		if at, ok := hclNestingWithin(src, 2); !ok && (at < 0 || at > len(src)) {
			t.Fatalf("reported at %d of %d bytes", at, len(src))
		}
		scan := 0
		for {
			if _, ok := hclNestingWithin(src, scan); ok {
				break
			}
			scan++
		}
		file, _ := hclsyntax.ParseConfig(src, "x.tf", hcl.InitialPos)
		if file == nil {
			return
		}
		body, ok := file.Body.(*hclsyntax.Body)
		if !ok {
			return
		}
		if d := hclRecursionDepth(body); d > 2*scan+2 {
			t.Fatalf("HCL nests %d levels, the scan counted %d", d, scan)
		}
	})
}
