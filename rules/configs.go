package rules

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
	kpv1 "k8s.io/kube-proxy/config/v1alpha1"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// The KubeProxyConfigurations kube-proxies read, where their mode comes from, and edits of
// their fields: delete a field with its comments, insert lines after one (KP202, KP203).

// configUse is a KubeProxyConfiguration that kube-proxy reads, with the mode it runs in.
type configUse struct {
	doc  *checker.Document
	kpc  *kpv1.KubeProxyConfiguration
	mode checker.Setting
	// pass is bound to the target of the (first) kube-proxy that reads the configuration.
	pass *checker.Pass
}

// configsInUse returns every decoded KubeProxyConfiguration that a kube-proxy reads (through
// --config, or standalone) with its effective mode at the target, once per document. A
// document read by instances that disagree on the mode (a Windows and a Linux DaemonSet
// sharing a ConfigMap without a mode) is left out: which section is dead depends on the node.
func configsInUse(p *checker.Pass) []configUse {
	var out []configUse
	idx := map[*checker.Document]int{}
	mixed := map[*checker.Document]bool{}
	for _, in := range p.Workspace.Instances {
		if !in.HasConfigFlag() || in.Config == nil {
			continue
		}
		c := in.KPC()
		if c == nil {
			continue
		}
		ip := p.ForInstance(in)
		m := in.Mode(ip.Target())
		if i, ok := idx[in.Config]; ok {
			if out[i].mode.Value != m.Value {
				mixed[in.Config] = true
			}
			continue
		}
		idx[in.Config] = len(out)
		out = append(out, configUse{doc: in.Config, kpc: c, mode: m, pass: ip})
	}
	kept := out[:0]
	for _, u := range out {
		if !mixed[u.doc] {
			kept = append(kept, u)
		}
	}
	return kept
}

// modeReason explains where the effective mode comes from, for messages:
// "mode is unset, which means nftables from 1.40 (target 1.40)".
func modeReason(m checker.Setting, target checker.Version) string {
	switch m.Origin {
	case checker.OriginFlag:
		return "--proxy-mode is " + m.Value
	case checker.OriginConfig:
		return "mode is " + m.Value
	}
	unset := "mode is unset"
	if m.Doc == nil {
		unset = "no --proxy-mode is given"
	}
	switch {
	case m.Value == checker.ModeKernelspace:
		return unset + ", which means kernelspace on Windows"
	case m.Value == checker.ModeNFTables && target.AtLeast(40):
		return fmt.Sprintf("%s, which means nftables from 1.40 (target %s)", unset, target)
	}
	return fmt.Sprintf("%s, which means %s at target %s", unset, m.Value, target)
}

// outerLine returns the line of the real file that holds line l of d's file (for a document
// embedded in a ConfigMap block scalar, the line of the ConfigMap file).
func outerLine(d *checker.Document, l int) int {
	f := d.File
	off := f.Lines.LineStart(l)
	// Map the first non-blank character: an inner line start maps to the character after
	// the block indentation, which is on the same real line.
	for off < len(f.Content) && (f.Content[off] == ' ' || f.Content[off] == '\t') {
		off++
	}
	return f.PositionAt(off).Line
}

// keyIndent returns the indentation (in bytes of d's file) of the key node k, and whether k
// is the first thing on its line, so that whole-line edits around it are safe.
func keyIndent(d *checker.Document, k *yaml.Node) (int, bool) {
	f := d.File
	ls := f.Lines.LineStart(k.Line)
	ko := f.Lines.Offset(k.Line, k.Column)
	if ko < ls || strings.Trim(string(f.Content[ls:ko]), " ") != "" {
		return 0, false
	}
	return ko - ls, true
}

// blockLastLine returns the last line (of d's file) of the field whose key k is indented by
// indent: the key line, then every following line indented deeper (nested fields, sequence
// items, block scalar text, comments), and block sequence items at the key's own
// indentation. Blank lines count only when more of the field follows them.
func blockLastLine(d *checker.Document, k, v *yaml.Node, indent int) int {
	f := d.File
	last := k.Line
	seq := v != nil && v.Kind == yaml.SequenceNode && v.Style&yaml.FlowStyle == 0
lines:
	for l := k.Line + 1; l <= f.Lines.Lines(); l++ {
		t := f.Lines.LineText(l)
		tr := strings.TrimLeft(t, " ")
		ind := len(t) - len(tr)
		switch {
		case strings.TrimSpace(tr) == "":
		case ind > indent:
			last = l
		case ind == indent && seq && (tr == "-" || strings.HasPrefix(tr, "- ")):
			last = l
		default:
			break lines
		}
	}
	return last
}

// headCommentLine returns the first line of the comment lines directly above line l at the
// same indentation (a comment describing the field), or l.
func headCommentLine(d *checker.Document, l, indent int) int {
	f := d.File
	first := l
	for i := l - 1; i >= 1; i-- {
		t := f.Lines.LineText(i)
		tr := strings.TrimLeft(t, " ")
		if !strings.HasPrefix(tr, "#") || len(t)-len(tr) != indent {
			break
		}
		first = i
	}
	return first
}

// outerPos returns the position of byte offset off of the real file holding d.
func outerPos(d *checker.Document, off int) checker.Position {
	o := d.File.Outer()
	return o.Lines.Position(o.Path, off)
}

// deleteFieldEdit deletes the field at path: its key line through the last line of its value,
// with the comment lines directly above it, as whole lines of the real file (inside a
// ConfigMap block scalar too). It fails for fields inside flow mappings or keys that do not
// start their line.
func deleteFieldEdit(d *checker.Document, path checker.Path) (checker.TextEdit, bool) {
	if len(path) == 0 {
		return checker.TextEdit{}, false
	}
	_, parent := d.Lookup(path[:len(path)-1])
	k, v := d.Lookup(path)
	if k == nil || parent == nil || parent.Kind != yaml.MappingNode || parent.Style&yaml.FlowStyle != 0 {
		return checker.TextEdit{}, false
	}
	indent, ok := keyIndent(d, k)
	if !ok {
		return checker.TextEdit{}, false
	}
	o := d.File.Outer()
	first := outerLine(d, headCommentLine(d, k.Line, indent))
	last := outerLine(d, blockLastLine(d, k, v, indent))
	return checker.TextEdit{
		Pos: outerPos(d, o.Lines.LineStart(first)),
		End: outerPos(d, o.Lines.LineStart(last+1)),
	}, true
}

// linePrefix returns the text of the real file from the start of node n's line to n: the
// indentation to give a new line at n's level (including a ConfigMap block's indentation).
func linePrefix(d *checker.Document, n *yaml.Node) (string, bool) {
	o := d.File.Outer()
	pos := d.NodePos(n)
	ls := o.Lines.LineStart(pos.Line)
	prefix := string(o.Content[ls:pos.Offset])
	if strings.Trim(prefix, " ") != "" {
		return "", false
	}
	return prefix, true
}

// insertAfterEdit inserts lines (each already indented, without line ends) after the last
// line of the field at path.
func insertAfterEdit(d *checker.Document, path checker.Path, lines []string) (checker.TextEdit, bool) {
	k, v := d.Lookup(path)
	if k == nil {
		return checker.TextEdit{}, false
	}
	indent, ok := keyIndent(d, k)
	if !ok {
		return checker.TextEdit{}, false
	}
	o := d.File.Outer()
	last := outerLine(d, blockLastLine(d, k, v, indent))
	off := o.Lines.LineStart(last + 1)
	nl := "\n"
	if o.Contains("\r\n") {
		nl = "\r\n"
	}
	text := strings.Join(lines, nl) + nl
	if off == len(o.Content) && off > 0 && o.Content[off-1] != '\n' {
		// The field ends the file without a line end.
		text = nl + strings.TrimSuffix(text, nl)
	}
	p := outerPos(d, off)
	return checker.TextEdit{Pos: p, End: p, NewText: text}, true
}

// childIndent returns the indentation step of the block mapping at path (the column
// difference between its key and its first child), or 2.
func childIndent(d *checker.Document, path checker.Path) int {
	k, v := d.Lookup(path)
	if k != nil && v != nil && v.Kind == yaml.MappingNode && v.Style&yaml.FlowStyle == 0 && len(v.Content) > 0 {
		if s := v.Content[0].Column - k.Column; s > 0 {
			return s
		}
	}
	return 2
}

// scalarText returns the source text of a one-line scalar value, to copy it unchanged.
func scalarText(d *checker.Document, v *yaml.Node) (string, bool) {
	if v == nil || v.Kind != yaml.ScalarNode || v.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return "", false
	}
	o := d.File.Outer()
	pos, end := d.NodePos(v), d.NodeEnd(v)
	if end.Line != pos.Line || end.Offset <= pos.Offset {
		return "", false
	}
	s := string(o.Content[pos.Offset:end.Offset])
	if strings.ContainsAny(s, "\n#") {
		return "", false
	}
	return s, true
}

// isKubeProxyConfigMap reports whether d is the kube-system/kube-proxy ConfigMap (a manifest
// without a namespace counts: it is applied to kube-system).
func isKubeProxyConfigMap(d *checker.Document) bool {
	return d.Kind == "ConfigMap" && d.Name == "kube-proxy" && (d.Namespace == "kube-system" || d.Namespace == "")
}

// isConfigMapConf reports whether embedded document e is a KubeProxyConfiguration written in
// a ConfigMap's data.config.conf; callers check the ConfigMap (isKubeProxyConfigMap).
func isConfigMapConf(e *checker.Document) bool {
	return e.Kind == "KubeProxyConfiguration" && e.ParentPath.String() == "data.config.conf"
}
