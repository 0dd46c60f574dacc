package rules

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Command-line flags: their values and comma-separated lists with positions, YAML 1.1
// booleans, how a flag is written, and a --proxy-mode that --config makes kube-proxy ignore.

// reportOnce remembers findings so that a configuration shared by several kube-proxy
// instances is reported once.
type reportOnce map[string]bool

func (r reportOnce) first(f checker.Finding) bool {
	k := f.Pos.String() + "\x00" + f.Message
	if r[k] {
		return false
	}
	r[k] = true
	return true
}

// flagValueSpan finds the scalar holding the value of flag fl and the byte range of the value
// in the scalar's decoded text, without surrounding shell quotes.
func flagValueSpan(fl *checker.Flag) (*yaml.Node, int, int, bool) {
	if !fl.HasValue || fl.ValueNode == nil {
		return nil, 0, 0, false
	}
	return fl.ValueNode, fl.ValueFrom, fl.ValueTo, true
}

// flagListItem is one comma-separated entry of a flag value, with its position.
type flagListItem struct {
	Text     string
	Pos, End checker.Position
}

// flagListItems splits the value of fl at commas and positions each non-empty entry; when the
// value cannot be mapped to the source, every entry gets the flag's position.
func flagListItems(fl *checker.Flag) []flagListItem {
	var out []flagListItem
	if fl.Doc == nil {
		return textFlagListItems(fl)
	}
	n, from, to, ok := flagValueSpan(fl)
	if !ok {
		for _, s := range strings.Split(fl.Value, ",") {
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, flagListItem{Text: s, Pos: fl.Pos, End: fl.End})
			}
		}
		return out
	}
	for _, e := range commaEntries(n.Value, from, to) {
		p, end := fl.Doc.SubPos(n, e[0], e[1])
		out = append(out, flagListItem{Text: n.Value[e[0]:e[1]], Pos: p, End: end})
	}
	return out
}

// commaEntries splits val[from:to] at commas and returns the byte range of each non-empty
// entry, blanks trimmed.
func commaEntries(val string, from, to int) [][2]int {
	var out [][2]int
	for i := from; i <= to; {
		j := strings.IndexByte(val[i:to], ',')
		end := to
		if j >= 0 {
			end = i + j
		}
		a, b := i, end
		for a < b && (val[a] == ' ' || val[a] == '\t') {
			a++
		}
		for b > a && (val[b-1] == ' ' || val[b-1] == '\t') {
			b--
		}
		if a < b {
			out = append(out, [2]int{a, b})
		}
		if j < 0 {
			break
		}
		i = end + 1
	}
	return out
}

// yaml11Bool reads a plain YAML scalar the way kube-proxy's decoder (sigs.k8s.io/yaml, which
// resolves YAML 1.1 booleans) does: true/false and also yes/no/on/off/y/n in their cases.
func yaml11Bool(n *yaml.Node) (value, ok bool) {
	if n == nil || n.Kind != yaml.ScalarNode || n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle|yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return false, false
	}
	if t := n.ShortTag(); t != "!!bool" && t != "!!str" {
		return false, false
	}
	switch n.Value {
	case "true", "True", "TRUE", "y", "Y", "yes", "Yes", "YES", "on", "On", "ON":
		return true, true
	case "false", "False", "FALSE", "n", "N", "no", "No", "NO", "off", "Off", "OFF":
		return false, true
	}
	return false, false
}

// flagText renders a flag as written: --name=value, or --name for a flag without value.
// proxyModeConflict returns the --proxy-mode flag of a kube-proxy run with --config when its
// value differs from the mode the config file gives: kube-proxy ignores the flag. KP106
// reports it as a mode conflict; KP201, which reports the other ignored flags, leaves it to
// KP106 so that one problem is one finding.
func proxyModeConflict(in *checker.Instance, t checker.Version) (*checker.Flag, bool) {
	if (in.Workload == nil && in.Kind != checker.InstanceCommand) || in.Flag("config") == nil || in.Config == nil {
		return nil, false
	}
	fl := in.Flag("proxy-mode")
	if fl == nil || !fl.HasValue || fl.Value == "" {
		return nil, false
	}
	m := in.Mode(t)
	if m.Origin == checker.OriginUnknown || fl.Value == m.Value {
		return nil, false
	}
	return fl, true
}

func flagText(f *checker.Flag) string {
	if !f.HasValue {
		return "--" + f.Name
	}
	return "--" + f.Name + "=" + f.Value
}
