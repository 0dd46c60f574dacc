package rules

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

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
	if !fl.HasValue || fl.Doc == nil {
		return nil, 0, 0, false
	}
	cands := []*yaml.Node{fl.Node}
	// "--feature-gates A=true" as two argv items: the value is the next item.
	if k := len(fl.NodePath) - 1; k >= 0 {
		if i, err := strconv.Atoi(fl.NodePath[k]); err == nil {
			next := append(append(checker.Path(nil), fl.NodePath[:k]...), strconv.Itoa(i+1))
			if _, n := fl.Doc.Lookup(next); n != nil {
				cands = append(cands, n)
			}
		}
	}
	f := fl.Doc.File
	for _, n := range cands {
		m := checker.ScalarOffsets(f, n)
		if m == nil {
			continue
		}
		from, to := -1, -1
		for j, off := range m {
			o := f.OuterOffset(off)
			if from < 0 && o == fl.ValuePos.Offset {
				from = j
			}
			if from >= 0 && o <= fl.ValueEnd.Offset {
				to = j
			}
		}
		if from < 0 || to < from {
			continue
		}
		if to > len(n.Value) {
			to = len(n.Value)
		}
		if to-from >= 2 && (n.Value[from] == '"' || n.Value[from] == '\'') && n.Value[to-1] == n.Value[from] {
			from, to = from+1, to-1
		}
		return n, from, to, true
	}
	return nil, 0, 0, false
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
	val := n.Value
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
			p, e := fl.Doc.SubPos(n, a, b)
			out = append(out, flagListItem{Text: val[a:b], Pos: p, End: e})
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
func flagText(f *checker.Flag) string {
	if !f.HasValue {
		return "--" + f.Name
	}
	return "--" + f.Name + "=" + f.Value
}
