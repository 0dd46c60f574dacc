package load

import (
	"bytes"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Terraform: the EKS kube-proxy add-on's configuration_values (aws_eks_addon resources and
// the kube-proxy entry of terraform-aws-modules/eks cluster_addons/addons), written as
// jsonencode({...}) or a JSON string or heredoc, AKS kubeProxyConfig objects (azapi
// bodies), and Alibaba Cloud ACK clusters (alicloud_cs_managed_kubernetes,
// alicloud_cs_kubernetes) with proxy_mode: the provider accepts iptables and ipvs and
// defaults to ipvs. Files are parsed with HCL's own parser; values that reference variables or
// interpolate are placeholders, never findings.

func init() {
	nameFilters = append(nameFilters, isTerraformName)
	textClassifiers = append(textClassifiers, func(name string, _ []byte) bool { return isTerraformName(name) })
	wsInstallers = append(wsInstallers, terraformInstances)
}

func isTerraformName(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".tf") }

var tfMarkers = [][]byte{[]byte("kube-proxy"), []byte("kubeProxyConfig"), []byte("alicloud_cs_")}

func terraformInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	for _, f := range ws.Files {
		if f.Parent != nil || !isTerraformName(f.Path) {
			continue
		}
		if !hasTerraformMarker(f.Content) {
			continue
		}
		body, ok := parseHCL(f)
		if !ok {
			continue
		}
		t := &tfWalker{f: f}
		t.body(body)
		out = append(out, t.out...)
	}
	return out
}

type tfWalker struct {
	f   *checker.File
	out []*checker.Instance
}

func (t *tfWalker) pos(p hcl.Pos) checker.Position { return t.f.Lines.Position(t.f.Path, p.Byte) }

func (t *tfWalker) body(b *hclsyntax.Body) {
	for _, a := range b.Attributes {
		t.expr(a.Expr)
	}
	for _, blk := range b.Blocks {
		if blk.Type == "resource" && len(blk.Labels) > 1 && ackResources[blk.Labels[0]] {
			t.ack(blk)
			continue
		}
		if blk.Type == "resource" && len(blk.Labels) > 0 && blk.Labels[0] == "aws_eks_addon" {
			if a, ok := blk.Body.Attributes["addon_name"]; ok {
				if v, ok := tfString(a.Expr); ok && v == "kube-proxy" {
					anchor := blk.TypeRange
					if len(blk.LabelRanges) > 0 {
						anchor = blk.LabelRanges[0]
					}
					t.eksAddon(blk.Body.Attributes["configuration_values"], anchor)
					continue
				}
			}
		}
		t.body(blk.Body)
	}
}

// expr walks an expression for cluster_addons["kube-proxy"] and kubeProxyConfig objects.
func (t *tfWalker) expr(e hclsyntax.Expression) {
	switch x := e.(type) {
	case *hclsyntax.ObjectConsExpr:
		for _, it := range x.Items {
			key, _ := tfKey(it.KeyExpr)
			val, isObj := unwrapJSONEncode(it.ValueExpr).(*hclsyntax.ObjectConsExpr)
			switch {
			case key == "kube-proxy" && isObj:
				var cv *hclsyntax.Attribute
				for _, inner := range val.Items {
					if k, _ := tfKey(inner.KeyExpr); k == "configuration_values" {
						cv = &hclsyntax.Attribute{Name: k, Expr: inner.ValueExpr}
					}
				}
				t.eksAddon(cv, it.KeyExpr.Range())
			case key == "kubeProxyConfig" && isObj:
				t.aks(val, it.KeyExpr.Range())
			default:
				t.expr(it.ValueExpr)
			}
		}
	case *hclsyntax.FunctionCallExpr:
		for _, a := range x.Args {
			t.expr(a)
		}
	case *hclsyntax.TupleConsExpr:
		for _, a := range x.Exprs {
			t.expr(a)
		}
	case *hclsyntax.ParenthesesExpr:
		t.expr(x.Expression)
	}
}

func unwrapJSONEncode(e hclsyntax.Expression) hclsyntax.Expression {
	if fc, ok := e.(*hclsyntax.FunctionCallExpr); ok && fc.Name == "jsonencode" && len(fc.Args) == 1 {
		return fc.Args[0]
	}
	return e
}

// eksAddon reads configuration_values of the kube-proxy add-on.
func (t *tfWalker) eksAddon(a *hclsyntax.Attribute, anchor hcl.Range) {
	ins := newEKSInstaller(t.f)
	ins.ModeKey = "configuration_values mode"
	ins.Anchor, ins.AnchorEnd = t.pos(anchor.Start), t.pos(anchor.End)
	if a != nil {
		switch x := unwrapJSONEncode(a.Expr).(type) {
		case *hclsyntax.ObjectConsExpr:
			t.eksObject(ins, x)
		case *hclsyntax.TemplateExpr:
			t.eksJSON(ins, x)
		case *hclsyntax.LiteralValueExpr:
			t.eksJSONRange(ins, x.SrcRange)
		}
	}
	t.out = append(t.out, newInstallerInstance(ins, "EKS kube-proxy add-on in "+t.f.Path))
}

// eksObject reads jsonencode({mode = "ipvs", ipvs = {scheduler = "rr"}}).
func (t *tfWalker) eksObject(ins *checker.Installer, o *hclsyntax.ObjectConsExpr) {
	for _, it := range o.Items {
		key, _ := tfKey(it.KeyExpr)
		switch key {
		case "mode":
			s := t.setting(key, it)
			s.Normalized = ins.Modes[s.Value]
			ins.Mode = s
		case "ipvs":
			if io, ok := it.ValueExpr.(*hclsyntax.ObjectConsExpr); ok {
				for _, iit := range io.Items {
					s := t.setting("", iit)
					if !s.Placeholder && s.Value != "" && s.Value != "false" {
						ins.IPVS = append(ins.IPVS, *s)
					}
				}
			}
		}
	}
}

// eksJSON reads a JSON string or heredoc without interpolation.
func (t *tfWalker) eksJSON(ins *checker.Installer, x *hclsyntax.TemplateExpr) {
	if len(x.Parts) == 0 {
		return
	}
	for _, p := range x.Parts {
		if _, ok := p.(*hclsyntax.LiteralValueExpr); !ok {
			return // interpolated: a placeholder
		}
	}
	r := hcl.RangeBetween(x.Parts[0].Range(), x.Parts[len(x.Parts)-1].Range())
	t.eksJSONRange(ins, r)
}

func (t *tfWalker) eksJSONRange(ins *checker.Installer, r hcl.Range) {
	src := t.f.Content[r.Start.Byte:r.End.Byte]
	if bytes.IndexByte(src, '\\') >= 0 || bytes.Contains(src, []byte("${")) {
		return // escapes would shift positions; interpolation is a placeholder
	}
	src = bytes.Trim(src, `"`)
	start := r.Start.Byte
	if len(src) < r.End.Byte-r.Start.Byte && t.f.Content[start] == '"' {
		start++
	}
	offs := make([]int, len(src)+1)
	for i := range offs {
		offs[i] = start + i
	}
	inner := &checker.File{Path: t.f.Path, Content: append([]byte(nil), src...), Parent: t.f, ParentOffsets: offs}
	inner.Lines = text.NewLineIndex(inner.Content)
	if len(parseFile(inner)) > 0 || len(inner.Docs) == 0 {
		return
	}
	eksSettings(ins, inner.Docs[0])
}

// aks reads a kubeProxyConfig object.
func (t *tfWalker) aks(o *hclsyntax.ObjectConsExpr, anchor hcl.Range) {
	ins := newAKSInstaller(t.f)
	ins.Anchor, ins.AnchorEnd = t.pos(anchor.Start), t.pos(anchor.End)
	for _, it := range o.Items {
		key, _ := tfKey(it.KeyExpr)
		switch key {
		case "mode":
			s := t.setting(key, it)
			s.Normalized = ins.Modes[s.Value]
			ins.Mode = s
		case "enabled":
			if s := t.setting(key, it); !s.Placeholder && s.Value == "false" {
				ins.Disabled = s
			}
		case "ipvsConfig":
			if io, ok := it.ValueExpr.(*hclsyntax.ObjectConsExpr); ok {
				for _, iit := range io.Items {
					if s := t.setting("", iit); !s.Placeholder {
						ins.IPVS = append(ins.IPVS, *s)
					}
				}
			}
		}
	}
	t.out = append(t.out, newInstallerInstance(ins, "AKS kubeProxyConfig in "+t.f.Path))
}

// ackResources are the Alibaba Cloud ACK cluster resources that run kube-proxy.
var ackResources = map[string]bool{"alicloud_cs_managed_kubernetes": true, "alicloud_cs_kubernetes": true}

// ackModes are the proxy_mode values the provider's schema validates.
var ackModes = map[string]string{"iptables": checker.ModeIPTables, "ipvs": checker.ModeIPVS}

// ack reads proxy_mode of an ACK cluster resource.
func (t *tfWalker) ack(blk *hclsyntax.Block) {
	ins := &checker.Installer{
		Name: checker.InstallerACK, File: t.f, ModeKey: "proxy_mode",
		Modes: ackModes, Defaults: fixedDefault(checker.ModeIPVS),
		DefaultWhy: "the alicloud provider's default proxy_mode is ipvs",
	}
	anchor := blk.TypeRange
	if len(blk.LabelRanges) > 1 {
		anchor = blk.LabelRanges[1]
	}
	ins.Anchor, ins.AnchorEnd = t.pos(anchor.Start), t.pos(anchor.End)
	ins.SetMode = func(spelled string) (checker.TextEdit, bool) {
		// proxy_mode = "..." as the block's first attribute, at the attributes' indentation.
		var first *hclsyntax.Attribute
		for _, a := range blk.Body.Attributes {
			if first == nil || a.SrcRange.Start.Byte < first.SrcRange.Start.Byte {
				first = a
			}
		}
		if first == nil || first.SrcRange.Start.Column < 2 {
			return checker.TextEdit{}, false
		}
		ls := first.SrcRange.Start.Byte - (first.SrcRange.Start.Column - 1)
		at := t.pos(hcl.Pos{Byte: ls})
		return checker.TextEdit{Pos: at, End: at, NewText: strings.Repeat(" ", first.SrcRange.Start.Column-1) + "proxy_mode = \"" + spelled + "\"\n"}, true
	}
	if a, ok := blk.Body.Attributes["proxy_mode"]; ok {
		s := t.setting("proxy_mode", hclsyntax.ObjectConsItem{KeyExpr: &hclsyntax.LiteralValueExpr{SrcRange: a.NameRange}, ValueExpr: a.Expr})
		s.Key = "proxy_mode"
		if s.Value != "" || s.Placeholder {
			s.Normalized = ins.Modes[s.Value]
			ins.Mode = s
		}
	}
	label := "ACK cluster in " + t.f.Path
	if len(blk.Labels) > 1 {
		label = "ACK cluster " + blk.Labels[0] + "." + blk.Labels[1]
	}
	t.out = append(t.out, newInstallerInstance(ins, label))
}

// setting turns an object item into a setting; values that are not literals are placeholders.
func (t *tfWalker) setting(key string, it hclsyntax.ObjectConsItem) *checker.InstallerSetting {
	if key == "" {
		key, _ = tfKey(it.KeyExpr)
	}
	kr := it.KeyExpr.Range()
	s := &checker.InstallerSetting{Key: key, Pos: t.pos(kr.Start), End: t.pos(kr.End)}
	vr := it.ValueExpr.Range()
	if te, ok := it.ValueExpr.(*hclsyntax.TemplateExpr); ok && len(te.Parts) == 1 {
		vr = te.Parts[0].Range()
	}
	s.ValuePos, s.ValueEnd = t.pos(vr.Start), t.pos(vr.End)
	v, ok := tfString(it.ValueExpr)
	s.Value, s.Placeholder = v, !ok
	return s
}

// tfKey returns an object key as a string.
func tfKey(e hclsyntax.Expression) (string, bool) {
	if k, ok := e.(*hclsyntax.ObjectConsKeyExpr); ok {
		if name := hcl.ExprAsKeyword(k.Wrapped); name != "" {
			return name, true
		}
		e = k.Wrapped
	}
	return tfString(e)
}

// tfString evaluates a literal expression without variables; ok is false for references,
// interpolations and function calls.
func tfString(e hclsyntax.Expression) (string, bool) {
	v, diags := e.Value(nil)
	if diags.HasErrors() || !v.IsKnown() || v.IsNull() {
		return "", false
	}
	switch v.Type() {
	case cty.String:
		return v.AsString(), true
	case cty.Bool:
		if v.True() {
			return "true", true
		}
		return "false", true
	case cty.Number:
		return v.AsBigFloat().String(), true
	}
	return "", false
}
