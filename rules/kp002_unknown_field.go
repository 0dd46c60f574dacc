package rules

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
	kpv1 "k8s.io/kube-proxy/config/v1alpha1"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP002 reports fields of a KubeProxyConfiguration that kube-proxy drops: unknown, misspelled,
// removed, not yet known at the target version, or duplicated.
var KP002 = &checker.Rule{
	ID:       "KP002",
	Name:     "unknown-field",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap"},
	Doc: withProse("kp002_unknown_field.md", checker.Doc{
		Title: "unknown, misspelled, removed or duplicate field in a KubeProxyConfiguration",
		Fixes: []checker.FixDoc{
			{Text: "Rename a misspelled field to the one suggested when the suggestion is close (letter case, one or two typos); the value then applies.", Safety: checker.Unsafe, Preferred: true},
			{Text: "Delete the field kube-proxy drops (unknown, removed, not yet known at the target, or an ignored duplicate): what kube-proxy runs stays the same.", Safety: checker.Safe, Preferred: true},
		},
		Before: "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nMode: nftables\nnodePortAddress: [\"primary\"]\nudpIdleTimeout: 250ms\n",
		After:  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nnodePortAddresses: [\"primary\"]\n",
		Since:  "0.1.0",
	}),
	Run: runKP002,
}

// kp002Removed are fields that existed in kubeproxy.config.k8s.io/v1alpha1 and were removed.
var kp002Removed = map[string]struct {
	minor int // first version without the field; 0 when not tracked
	why   string
}{
	"udpIdleTimeout": {26, "it only served the userspace mode, removed in the same release"},
	"conntrack.max":  {0, "use conntrack.maxPerCore and conntrack.min"},
}

// kp002Added are fields newer than some supported targets: kube-proxy before that version
// drops them as unknown (RULES.md §1).
var kp002Added = []struct {
	path  checker.Path
	minor int
}{
	{checker.Path{"iptables", "localhostNodePorts"}, 26},
	{checker.Path{"nftables"}, 29},
	{checker.Path{"conntrack", "tcpBeLiberal"}, 29},
	{checker.Path{"conntrack", "udpTimeout"}, 29},
	{checker.Path{"conntrack", "udpStreamTimeout"}, 29},
}

// kp002Sections maps each section of a KubeProxyConfiguration to its field names, so a field
// written in the wrong section can be pointed to the right one.
var kp002Sections = func() map[string][]string {
	kpc := reflect.TypeFor[kpv1.KubeProxyConfiguration]()
	out := map[string][]string{"": kp002JSONNames(kpc)}
	for i := 0; i < kpc.NumField(); i++ {
		sf := kpc.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" || sf.Type.Kind() != reflect.Struct {
			continue
		}
		out[name] = kp002JSONNames(sf.Type)
	}
	return out
}()

// kp002JSONNames returns the JSON field names of struct type t, inlining embedded structs.
func kp002JSONNames(t reflect.Type) []string {
	var names []string
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if sf.Anonymous && name == "" && sf.Type.Kind() == reflect.Struct {
			names = append(names, kp002JSONNames(sf.Type)...)
			continue
		}
		if !sf.IsExported() {
			continue
		}
		if name == "" {
			name = sf.Name
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func runKP002(p *checker.Pass) error {
	for _, d := range p.Workspace.Docs {
		if d.Kind != "KubeProxyConfiguration" || !strings.HasPrefix(d.APIVersion, "kubeproxy.config.k8s.io/") {
			continue
		}
		p := p.At(d.File.Outer().Path)
		values := kp002Values{}
		unknown := map[*yaml.Node]bool{}
		for _, is := range d.Issues {
			if is.Kind == checker.IssueUnknown {
				unknown[is.Key] = true
			}
		}
		for _, is := range d.Issues {
			if is.Key == nil {
				continue
			}
			switch is.Kind {
			case checker.IssueUnknown:
				kp002Unknown(p, d, is, values)
			case checker.IssueDuplicate:
				// An unknown field is dropped whichever occurrence wins: one finding is enough.
				if !unknown[is.Key] {
					kp002Duplicate(p, d, is)
				}
			}
		}
		for _, a := range kp002Added {
			if p.Target().AtLeast(a.minor) {
				continue
			}
			k, _ := d.Lookup(a.path)
			if k == nil {
				continue
			}
			f := checker.Finding{
				Message: fmt.Sprintf("%s is not known to kube-proxy before 1.%d (target %s): kube-proxy drops it", a.path, a.minor, p.Target()),
				Pos:     d.NodePos(k), End: d.NodeEnd(k), Object: d.Ref(), Path: a.path,
			}
			if e, ok := deleteFieldEdit(d, a.path); ok {
				f.Fixes = []checker.Fix{safeDelete("Delete "+a.path.String()+", which kube-proxy drops at the target", e)}
			}
			p.Report(f)
		}
	}
	return nil
}

func kp002Unknown(p *checker.Pass, d *checker.Document, is checker.FieldIssue, values kp002Values) {
	name := is.Key.Value
	if name == "" || is.Key.Kind != yaml.ScalarNode {
		name = fmt.Sprintf("%q", name)
	}
	where := "KubeProxyConfiguration"
	section := ""
	if len(is.Path) > 1 {
		section = is.Path[:len(is.Path)-1].String()
		where = section
	}
	f := checker.Finding{Pos: d.NodePos(is.Key), End: d.NodeEnd(is.Key), Object: d.Ref(), Path: is.Path}
	if r, ok := kp002Removed[is.Path.String()]; ok {
		if r.minor > 0 && !p.Target().AtLeast(r.minor) {
			return // still a valid field at the target
		}
		removed := "was removed"
		if r.minor > 0 {
			removed = fmt.Sprintf("was removed in 1.%d", r.minor)
		}
		f.Message = fmt.Sprintf("%s %s (%s): kube-proxy drops it", is.Path, removed, r.why)
		f.Fixes = kp002Delete(d, is, nil, values)
		p.Report(f)
		return
	}
	sugg, dist, unique := kp002Suggest(name, is.Known)
	elsewhere := kp002ElsewhereText(section, name)
	switch {
	case sugg != "" && dist == 0:
		f.Message = fmt.Sprintf("unknown field %s in %s: field names are case-sensitive, kube-proxy drops it (did you mean %s?)", name, where, sugg)
	case elsewhere != "":
		f.Message = fmt.Sprintf("unknown field %s in %s: kube-proxy drops it; %s", name, where, elsewhere)
		sugg = ""
	case sugg != "":
		f.Message = fmt.Sprintf("unknown field %s in %s: kube-proxy drops it (did you mean %s?)", name, where, sugg)
	default:
		f.Message = fmt.Sprintf("unknown field %s in %s: kube-proxy drops it", name, where)
	}
	var rename []checker.Fix
	if sugg != "" && unique && dist <= 2 {
		if fix, ok := kp002RenameFix(d, is, sugg, values); ok {
			// The name shows what was meant: the repair is preferred, though it makes the
			// value apply; deleting the field (what kube-proxy does) stays the safe choice.
			fix.Preferred = true
			rename = append(rename, fix)
		}
	}
	f.Fixes = kp002Delete(d, is, rename, values)
	p.Report(f)
}

// kp002Values indexes the mappings of a document that hold dropped keys, each once, when a
// fix first needs it: finding a key's value, or whether a name is set, by reading the mapping
// for each of 100,000 unknown keys of one mapping took 10 s (issue 22 item 17).
type kp002Values map[*yaml.Node]*kp002Mapping

type kp002Mapping struct {
	values map[*yaml.Node]*yaml.Node
	names  map[string]bool
}

func (vs kp002Values) mapping(parent *yaml.Node) *kp002Mapping {
	m, ok := vs[parent]
	if !ok {
		m = &kp002Mapping{values: make(map[*yaml.Node]*yaml.Node, len(parent.Content)/2), names: make(map[string]bool, len(parent.Content)/2)}
		for i := 0; i+1 < len(parent.Content); i += 2 {
			m.values[parent.Content[i]] = parent.Content[i+1]
			m.names[parent.Content[i].Value] = true
		}
		vs[parent] = m
	}
	return m
}

// kp002Parent is the mapping that holds the key of issue is, or nil.
func kp002Parent(d *checker.Document, is checker.FieldIssue) *yaml.Node {
	parent := is.Parent
	if parent == nil {
		_, parent = d.Lookup(is.Path[:len(is.Path)-1])
	}
	if parent == nil || parent.Kind != yaml.MappingNode {
		return nil
	}
	return parent
}

// kp002Delete returns fixes (a repair first, when there is one) and the safe fix that deletes
// the dropped field of issue is.
func kp002Delete(d *checker.Document, is checker.FieldIssue, fixes []checker.Fix, values kp002Values) []checker.Fix {
	parent := kp002Parent(d, is)
	var v *yaml.Node
	if parent != nil {
		v = values.mapping(parent).values[is.Key]
	}
	if e, ok := deleteEntryEdit(d, parent, is.Key, v); ok {
		fixes = append(fixes, safeDelete("Delete "+is.Path.String()+", which kube-proxy drops", e))
	}
	return fixes
}

// kp002ElsewhereText says in which other sections a field of that exact name exists.
func kp002ElsewhereText(section, name string) string {
	var in []string
	for s, names := range kp002Sections {
		if s == section {
			continue
		}
		if i := sort.SearchStrings(names, name); i < len(names) && names[i] == name {
			if s == "" {
				in = append(in, "the top level")
			} else {
				in = append(in, s)
			}
		}
	}
	if len(in) == 0 || name == "apiVersion" || name == "kind" {
		return ""
	}
	sort.Strings(in)
	list := in[0]
	if len(in) > 1 {
		list = strings.Join(in[:len(in)-1], ", ") + " or " + in[len(in)-1]
	}
	if len(in) == 1 && in[0] == "the top level" {
		return name + " belongs at the top level"
	}
	return name + " belongs in " + list
}

// kp002Suggest returns the known name closest to name (case-insensitive edit distance), the
// distance, and whether no other name is as close. It returns "" when nothing is close.
func kp002Suggest(name string, known []string) (string, int, bool) {
	best, bestDist, unique := "", -1, true
	lname := strings.ToLower(name)
	for _, k := range known {
		d := checker.EditDistance(lname, strings.ToLower(k))
		switch {
		case bestDist < 0 || d < bestDist:
			best, bestDist, unique = k, d, true
		case d == bestDist:
			unique = false
		}
	}
	if best == "" {
		return "", 0, false
	}
	limit := max(1, min(3, len([]rune(name))/4))
	if bestDist > limit {
		return "", 0, false
	}
	return best, bestDist, unique
}

// kp002RenameFix replaces the key's text with the suggested name. It declines when the
// suggested field is already set beside it (renaming would create a duplicate) or when the
// key's source text cannot be replaced as one span.
func kp002RenameFix(d *checker.Document, is checker.FieldIssue, sugg string, values kp002Values) (checker.Fix, bool) {
	parent := kp002Parent(d, is)
	if parent == nil || values.mapping(parent).names[sugg] {
		return checker.Fix{}, false
	}
	pos, end := d.NodePos(is.Key), d.NodeEnd(is.Key)
	src := d.File.Outer().Content
	if pos.Offset < 0 || end.Offset > len(src) || pos.Offset >= end.Offset {
		return checker.Fix{}, false
	}
	raw := string(src[pos.Offset:end.Offset])
	switch is.Key.Style {
	case 0:
		if raw != is.Key.Value {
			return checker.Fix{}, false
		}
	case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
		if len(raw) < 2 || raw[1:len(raw)-1] != is.Key.Value {
			return checker.Fix{}, false
		}
		sugg = raw[:1] + sugg + raw[:1]
	default:
		return checker.Fix{}, false
	}
	return checker.Fix{
		Message: fmt.Sprintf("Rename %s to %s", is.Key.Value, strings.Trim(sugg, `"'`)),
		Edits:   []checker.TextEdit{{Pos: pos, End: end, NewText: sugg}},
	}, true
}

func kp002Duplicate(p *checker.Pass, d *checker.Document, is checker.FieldIssue) {
	parent := kp002Parent(d, is)
	name := is.Key.Value
	var keys, vals []*yaml.Node
	if parent != nil {
		for i := 0; i+1 < len(parent.Content); i += 2 {
			if parent.Content[i].Value == name {
				keys = append(keys, parent.Content[i])
				vals = append(vals, parent.Content[i+1])
			}
		}
	}
	f := checker.Finding{Pos: d.NodePos(is.Key), End: d.NodeEnd(is.Key), Object: d.Ref(), Path: is.Path}
	if len(keys) < 2 {
		f.Message = fmt.Sprintf("duplicate field %s: kube-proxy keeps only the last occurrence", is.Path)
		p.Report(f)
		return
	}
	winner := len(keys) - 1
	val := func(i int) string {
		if vals[i].Kind == yaml.ScalarNode {
			return " (" + kp002Quote(vals[i].Value) + ")"
		}
		return ""
	}
	here := d.NodePos(is.Key).Line
	var others []string
	sameLine := false
	for _, k := range keys {
		if k == is.Key {
			continue
		}
		if l := d.NodePos(k).Line; l != here {
			others = append(others, fmt.Sprint(l))
		} else {
			sameLine = true
		}
	}
	also := ""
	switch {
	case len(others) == 1:
		also = "line " + others[0]
	case len(others) > 1:
		also = "lines " + strings.Join(others, ", ")
	}
	if sameLine {
		if also != "" {
			also += " and "
		}
		also += "this line"
	}
	// Deleting the occurrences kube-proxy ignores changes nothing.
	var dels []checker.TextEdit
	for i, k := range keys {
		if i == winner || (keys[winner] != is.Key && k != is.Key) {
			continue
		}
		e, ok := deleteEntryEdit(d, parent, k, vals[i])
		if !ok || keys[i].Line == keys[winner].Line {
			dels = nil
			break
		}
		dels = append(dels, e)
	}
	if len(dels) > 0 {
		what := "this ignored occurrence"
		if keys[winner] == is.Key {
			what = "the ignored occurrences"
		}
		f.Fixes = []checker.Fix{safeDelete(fmt.Sprintf("Delete %s of %s", what, is.Path), dels...)}
	}
	if keys[winner] == is.Key {
		f.Message = fmt.Sprintf("duplicate field %s (also on %s): kube-proxy uses this last occurrence%s and ignores the others", is.Path, also, val(winner))
	} else {
		idx := 0
		for i, k := range keys {
			if k == is.Key {
				idx = i
			}
		}
		where := fmt.Sprintf("on line %d", d.NodePos(keys[winner]).Line)
		if d.NodePos(keys[winner]).Line == here {
			where = "later on this line"
		}
		f.Message = fmt.Sprintf("duplicate field %s: kube-proxy ignores this value%s and uses the last occurrence %s%s", is.Path, val(idx), where, val(winner))
	}
	p.Report(f)
}

// kp002Quote shows a scalar value in a message: bare when it is a simple word, quoted otherwise.
func kp002Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'") {
		return s
	}
	return fmt.Sprintf("%q", s)
}
