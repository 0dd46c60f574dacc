package rules

import (
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	kpv1 "k8s.io/kube-proxy/config/v1alpha1"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Edits shared by the fixes of several rules: setting a configuration field wherever it is
// missing, and judging whether a fix keeps what runs today.

// todayMode returns the mode kube-proxy runs before the upgrade to the target: the mode
// itself when it is written down, else the default of the releases before 1.40 (iptables on
// Linux), which is what a cluster on its way to 1.40 runs.
func todayMode(m checker.Setting, windows bool) string {
	if m.Origin == checker.OriginDefault || m.Origin == checker.OriginInstallerDefault {
		return checker.DefaultMode(checker.Version{Major: 1, Minor: 39}, windows)
	}
	return m.Value
}

// setFieldEdit returns an edit that sets the field at path of configuration document d to
// the YAML text value: the value replaced when the field is a one-line scalar, else a new line
// under the nearest existing parent (creating the missing mappings), indented like its
// siblings, also inside a ConfigMap block scalar. It fails for flow mappings, JSON and values
// that are not one-line scalars.
func setFieldEdit(d *checker.Document, path checker.Path, value string) (checker.TextEdit, bool) {
	if len(path) == 0 {
		return checker.TextEdit{}, false
	}
	if k, v := d.Lookup(path); k != nil {
		if v == nil || v.Kind != yaml.ScalarNode {
			return checker.TextEdit{}, false
		}
		if v.Tag == "!!null" && v.Value == "" {
			// "key:" with nothing after the colon.
			o := d.File.Outer()
			p := d.NodePos(v)
			if p.Offset < 1 || p.Offset > len(o.Content) || o.Content[p.Offset-1] != ':' {
				return checker.TextEdit{}, false
			}
			return checker.TextEdit{Pos: p, End: p, NewText: " " + value}, true
		}
		if _, ok := scalarText(d, v); !ok {
			return checker.TextEdit{}, false
		}
		return checker.TextEdit{Pos: d.NodePos(v), End: d.NodeEnd(v), NewText: value}, true
	}
	// The deepest existing parent.
	i := len(path) - 1
	for ; i > 0; i-- {
		if k, _ := d.Lookup(path[:i]); k != nil {
			break
		}
	}
	lines := func(prefix, step string) []string {
		var out []string
		for j, name := range path[i:] {
			l := prefix + strings.Repeat(step, j) + name
			if j == len(path[i:])-1 {
				l += ": " + value
			} else {
				l += ":"
			}
			out = append(out, l)
		}
		return out
	}
	if i == 0 {
		// Nothing of the path exists: new lines after the kind line, at its indentation.
		_, root := d.Lookup(nil)
		if root == nil || root.Kind != yaml.MappingNode || root.Style&yaml.FlowStyle != 0 {
			return checker.TextEdit{}, false
		}
		k, _ := d.Lookup(checker.Path{"kind"})
		if k == nil {
			return checker.TextEdit{}, false
		}
		prefix, ok := linePrefix(d, k)
		if !ok {
			return checker.TextEdit{}, false
		}
		return insertAfterEdit(d, checker.Path{"kind"}, lines(prefix, "  "))
	}
	k, parent := d.Lookup(path[:i])
	step := strings.Repeat(" ", childIndent(d, path[:i]))
	switch {
	case parent.Kind == yaml.MappingNode && parent.Style&yaml.FlowStyle == 0 && len(parent.Content) > 0:
		prefix, ok := linePrefix(d, parent.Content[0])
		if !ok {
			return checker.TextEdit{}, false
		}
		return insertAfterEdit(d, path[:i], lines(prefix, step))
	case parent.Kind == yaml.ScalarNode && parent.Tag == "!!null" && parent.Value == "":
		prefix, ok := linePrefix(d, k)
		if !ok {
			return checker.TextEdit{}, false
		}
		return insertAfterEdit(d, path[:i], lines(prefix+step, step))
	}
	return checker.TextEdit{}, false
}

// yamlString writes s as a YAML string: plain when YAML reads it back as that string, else
// double-quoted.
func yamlString(s string) string {
	if s != "" && strings.TrimSpace(s) == s && !strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\\\n\t") {
		var back map[string]any
		if yaml.Unmarshal([]byte("v: "+s), &back) == nil {
			if got, ok := back["v"].(string); ok && got == s {
				return s
			}
		}
	}
	return strconv.Quote(s)
}

// flagYAMLValue converts the value of flag fl to the YAML text of a configuration field of the
// given kind, and whether it is a valid value of that kind.
func flagYAMLValue(fl *checker.Flag, kind kp201Kind) (string, bool) {
	v := strings.TrimSpace(fl.Value)
	switch kind {
	case kp201Bool:
		if !fl.HasValue {
			return "true", true
		}
		b, err := strconv.ParseBool(v)
		return strconv.FormatBool(b), err == nil
	case kp201Int:
		n, err := strconv.ParseInt(v, 10, 32)
		return strconv.FormatInt(n, 10), err == nil
	case kp201Duration:
		_, err := time.ParseDuration(v)
		return v, err == nil && v != ""
	case kp201List:
		var items []string
		for _, s := range strings.Split(v, ",") {
			if s = strings.TrimSpace(s); s != "" {
				items = append(items, yamlString(s))
			}
		}
		return "[" + strings.Join(items, ", ") + "]", len(items) > 0
	case kp201String:
		return yamlString(v), v != ""
	}
	return "", false
}

// kp201MoveFix returns the alternative fix of an ignored flag: write its value into the
// configuration file kube-proxy reads, and remove the flag (remove's edits). The value then
// applies, so the fix changes what runs.
func kp201MoveFix(in *checker.Instance, fl *checker.Flag, mode checker.Setting, remove checker.Fix) (checker.Fix, bool) {
	if in.Config == nil || text.HasPlaceholder(fl.Value) {
		return checker.Fix{}, false
	}
	path, kind, ok := kp201Field(fl.Name, mode.Value)
	if !ok || kind == kp201Gates {
		return checker.Fix{}, false
	}
	value, ok := flagYAMLValue(fl, kind)
	if !ok {
		return checker.Fix{}, false
	}
	e, ok := setFieldEdit(in.Config, path, value)
	if !ok {
		return checker.Fix{}, false
	}
	return checker.Fix{
		Message: "Set " + path.String() + " to " + value + " in the config file and remove --" + fl.Name,
		Edits:   append([]checker.TextEdit{e}, remove.Edits...),
	}, true
}

// deleteEntryEdit deletes the mapping entry with key node k and value v of block mapping
// parent in d: its lines, with the comment lines directly above it, as whole lines of the real
// file (inside a ConfigMap block scalar too). deleteFieldEdit does this by path; this takes the
// nodes, for one of several duplicate keys.
func deleteEntryEdit(d *checker.Document, parent, k, v *yaml.Node) (checker.TextEdit, bool) {
	if parent == nil || parent.Kind != yaml.MappingNode || parent.Style&yaml.FlowStyle != 0 || k == nil {
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

// safeDelete is the safe fix that deletes entries kube-proxy drops or never reads.
func safeDelete(msg string, edits ...checker.TextEdit) checker.Fix {
	return checker.Fix{Message: msg, Edits: edits, Safety: checker.Safe}
}

// carryForMode returns the edits that keep the tuning of configuration d when its mode
// changes from one mode to another: each value that mode from reads in one section (ipvs takes
// masqueradeAll from iptables:, its sync periods from ipvs:) and mode to reads in another is
// copied there, unless that section sets the field itself or the value is its default. The
// names of the carried fields are returned for the fix's message. Without it, a mode fix would
// silently drop the values, which KP203 reports.
func carryForMode(d *checker.Document, kpc *kpv1.KubeProxyConfiguration, from, to string) ([]checker.TextEdit, []string) {
	if kpc == nil {
		return nil, nil
	}
	var items []carryItem
	for _, sf := range sectionFields {
		dst := readSection(to, sf.field)
		if readSection(from, sf.field) != sf.section || dst == "" || dst == sf.section {
			continue
		}
		val, set := sectionValue(kpc, sf.section, sf.field)
		if !set || val == sectionDefault(dst, sf.field) {
			continue
		}
		if _, dset := sectionValue(kpc, dst, sf.field); dset {
			continue
		}
		_, v := d.Lookup(checker.Path{sf.section, sf.field})
		text, ok := scalarText(d, v)
		if !ok {
			continue
		}
		items = append(items, carryItem{src: sf.section, dst: dst, field: sf.field, text: text, line: v.Line, col: v.Column})
	}
	var edits []checker.TextEdit
	var names []string
	for i, fixes := range carryFixes(d, items) {
		names = append(names, items[i].dst+"."+items[i].field)
		for _, fx := range fixes {
			edits = append(edits, fx.Edits...)
		}
	}
	return edits, names
}
