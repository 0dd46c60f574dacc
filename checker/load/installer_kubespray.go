package load

import (
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// kubespray: inventory variables in group_vars/host_vars YAML files and INI inventories
// (kube_proxy_mode, kube_proxy_strict_arp, kube_proxy_scheduler, kube_proxy_remove,
// kube_proxy_nodeport_addresses). The variables of one inventory (the directory holding
// group_vars, host_vars and the inventory file) are merged by Ansible precedence into one
// kube-proxy. kubespray's role default for kube_proxy_mode is ipvs. The kube_proxy_mode of a
// vendored kubespray's role defaults (roles/*/defaults) is read at rank 0, Ansible's lowest
// precedence: an inventory that does not set the mode runs it, and the finding points at its
// line. Other role defaults (kube_proxy_scheduler: rr, ...) are not the user's settings and
// are not read; role vars (roles/*/vars) are not inventory settings either.

func init() {
	wsInstallers = append(wsInstallers, kubesprayInstances)
	nameFilters = append(nameFilters, isININame)
	textClassifiers = append(textClassifiers, func(name string, content []byte) bool {
		return isININame(name) && strings.Contains(string(content), "kube_")
	})
}

// kubesprayVars are the variables read; the ones that only matter in ipvs mode are marked.
var kubesprayVars = map[string]bool{
	"kube_proxy_mode": false, "kube_proxy_strict_arp": true, "kube_proxy_scheduler": true,
	"kube_proxy_remove": false, "kube_proxy_nodeport_addresses": false,
	"cilium_kube_proxy_replacement": false,
}

func isININame(name string) bool {
	n := strings.ToLower(path.Base(name))
	return strings.HasSuffix(n, ".ini") || n == "hosts" || n == "inventory"
}

// kubesprayVar is one variable with its Ansible precedence rank.
type kubesprayVar struct {
	rank int
	file string
	set  *checker.InstallerSetting
}

// inventoryRoot returns the directory of the inventory holding file, and the rank of a
// group_vars/host_vars file: group_vars/all 3, other groups 4, host_vars 6. A vars file
// outside group_vars and host_vars (extra vars of a CI scenario, tests/files/*.yml) is an
// inventory of its own: Ansible reads it only when named (-e @file), never together with
// its neighbours, so a neighbour's kube_proxy_remove says nothing about it.
func inventoryRoot(file string) (string, int) {
	parts := strings.Split(file, "/")
	for i, p := range parts {
		switch p {
		case "group_vars":
			rank := 4
			if i+1 < len(parts) && (parts[i+1] == "all" || strings.HasPrefix(parts[i+1], "all.")) {
				rank = 3
			}
			return strings.Join(parts[:i], "/"), rank
		case "host_vars":
			return strings.Join(parts[:i], "/"), 6
		}
	}
	return file, 4
}

func kubesprayInstances(ws *checker.Workspace) []*checker.Instance {
	vars := map[string]map[string]kubesprayVar{} // root -> name -> winning variable
	add := func(root, name string, v kubesprayVar) {
		m := vars[root]
		if m == nil {
			m = map[string]kubesprayVar{}
			vars[root] = m
		}
		if old, ok := m[name]; !ok || v.rank >= old.rank {
			m[name] = v
		}
	}
	var roleDefault *kubesprayVar
	for _, f := range ws.Files {
		p := "/" + f.Path
		if strings.Contains(p, "/roles/") && (strings.Contains(p, "/defaults/") || strings.Contains(p, "/vars/")) {
			if roleDefault == nil && isRoleDefaultsFile(f.Path) && f.Format == checker.FormatYAML {
				for _, d := range f.Docs {
					if d.Kind == "" && d.Parent == nil {
						if s := yamlSetting(d, checker.Path{"kube_proxy_mode"}); s != nil && s.Value != "" {
							roleDefault = &kubesprayVar{rank: 0, file: f.Path, set: s}
						}
					}
				}
			}
			continue
		}
		switch {
		case f.Format == checker.FormatYAML:
			root, rank := inventoryRoot(f.Path)
			for _, d := range f.Docs {
				if d.Kind != "" || d.Node == nil || d.Node.Kind != yaml.MappingNode {
					continue
				}
				if d.Has(checker.Path{"all", "children"}) || d.Has(checker.Path{"all", "hosts"}) {
					// A YAML inventory (hosts.yaml): vars of all, of groups and of hosts.
					for _, v := range yamlInventoryVars(d, checker.Path{"all"}, 1) {
						add(path.Dir(f.Path), v.set.Key, v)
					}
					continue
				}
				for i := 0; i+1 < len(d.Node.Content); i += 2 {
					name := d.Node.Content[i].Value
					if _, ok := kubesprayVars[name]; ok {
						if s := yamlSetting(d, checker.Path{name}); s != nil {
							add(root, name, kubesprayVar{rank: rank, file: f.Path, set: s})
						}
					}
				}
			}
		case isININame(f.Path):
			root := path.Dir(f.Path)
			for _, v := range iniVars(f, kubesprayVars) {
				add(root, v.set.Key, v)
			}
		}
	}
	if roleDefault != nil {
		if len(vars) == 0 {
			// A vendored kubespray and no inventory variables: its default is what runs.
			vars[path.Dir(roleDefault.file)] = map[string]kubesprayVar{"kube_proxy_mode": *roleDefault}
		}
		for _, m := range vars {
			if _, ok := m["kube_proxy_mode"]; !ok && !kubesprayDisables(m) {
				// An inventory that removes kube-proxy does not run the default either.
				m["kube_proxy_mode"] = *roleDefault
			}
		}
	}
	roots := make([]string, 0, len(vars))
	for r := range vars {
		roots = append(roots, r)
	}
	sort.Strings(roots)
	var out []*checker.Instance
	for _, root := range roots {
		m := vars[root]
		ins := &checker.Installer{
			Name: checker.InstallerKubespray, ModeKey: "kube_proxy_mode",
			Modes: lowerModes, Defaults: fixedDefault(checker.ModeIPVS),
			DefaultWhy: "kubespray's role default for kube_proxy_mode is ipvs",
		}
		names := make([]string, 0, len(m))
		for n := range m {
			names = append(names, n)
		}
		sort.Strings(names)
		var first *kubesprayVar
		for _, n := range names {
			v := m[n]
			s := v.set
			if first == nil || s.Pos.Less(first.set.Pos) {
				first = &v
			}
			switch n {
			case "kube_proxy_mode":
				s.Normalized = lowerModes[s.Value]
				if s.Value != "" || s.Placeholder {
					ins.Mode = s
				}
			case "kube_proxy_remove", "cilium_kube_proxy_replacement":
				if kubesprayTrue(s) {
					ins.Disabled = s
				}
			case "kube_proxy_nodeport_addresses":
				if len(s.Values) > 0 {
					ins.NodePortAddresses = s
				}
			default:
				if kubesprayVars[n] && !s.Placeholder && s.Value != "" && !strings.EqualFold(s.Value, "false") {
					ins.IPVS = append(ins.IPVS, *s)
				}
			}
		}
		anchor := first.set
		if ins.Mode != nil {
			anchor = ins.Mode
		}
		ins.Doc = anchor.Doc
		for _, f := range ws.Files {
			if f.Path == anchor.Pos.Filename {
				ins.File = f
			}
		}
		ins.Anchor, ins.AnchorEnd = anchor.Pos, anchor.End
		label := "kubespray inventory " + root
		switch {
		case root == "." || root == "":
			label = "kubespray inventory"
		case strings.HasSuffix(root, ".yml") || strings.HasSuffix(root, ".yaml"):
			label = "kubespray vars file " + root
		}
		out = append(out, newInstallerInstance(ins, label))
	}
	return out
}

// kubesprayDisables reports whether an inventory's variables remove kube-proxy
// (kube_proxy_remove, cilium_kube_proxy_replacement).
func kubesprayDisables(m map[string]kubesprayVar) bool {
	for _, n := range []string{"kube_proxy_remove", "cilium_kube_proxy_replacement"} {
		if v, ok := m[n]; ok && kubesprayTrue(v.set) {
			return true
		}
	}
	return false
}

// kubesprayTrue reports whether a switch variable is on.
func kubesprayTrue(s *checker.InstallerSetting) bool {
	return !s.Placeholder && (strings.EqualFold(s.Value, "true") || s.Value == "strict" || s.Value == "yes")
}

// iniVars reads the variables named in known from an INI inventory: "name=value" lines in
// [group:vars] sections (rank 1 for all, 2 for other groups) and host lines with variables
// (rank 5).
func iniVars(f *checker.File, known map[string]bool) []kubesprayVar {
	var out []kubesprayVar
	section := ""
	for l := 1; l <= f.Lines.Lines(); l++ {
		t := f.Lines.LineText(l)
		tr := strings.TrimSpace(t)
		if tr == "" || strings.HasPrefix(tr, "#") || strings.HasPrefix(tr, ";") {
			continue
		}
		if strings.HasPrefix(tr, "[") && strings.HasSuffix(tr, "]") {
			section = tr[1 : len(tr)-1]
			continue
		}
		start := f.Lines.LineStart(l)
		isVars := strings.HasSuffix(section, ":vars")
		rank := 5
		if isVars {
			rank = 2
			if section == "all:vars" {
				rank = 1
			}
		}
		// Words of the line: "name=value" pairs (host lines start with the host name).
		for _, w := range iniWords(t) {
			name, val, ok := strings.Cut(t[w[0]:w[1]], "=")
			name = strings.TrimSpace(name)
			if !ok {
				continue
			}
			if _, ok := known[name]; !ok {
				continue
			}
			vs := w[0] + strings.IndexByte(t[w[0]:w[1]], '=') + 1
			for vs < w[1] && t[vs] == ' ' {
				vs++
			}
			val = strings.TrimSpace(val)
			ve := w[1]
			if len(val) >= 2 && (val[0] == '"' || val[0] == '\'') && val[len(val)-1] == val[0] {
				val = val[1 : len(val)-1]
				vs++
				ve--
			}
			s := &checker.InstallerSetting{Key: name, Value: val,
				Pos: f.Lines.Position(f.Path, start+w[0]), End: f.Lines.Position(f.Path, start+w[0]+len(name)),
				ValuePos: f.Lines.Position(f.Path, start+vs), ValueEnd: f.Lines.Position(f.Path, start+ve),
				Placeholder: text.HasPlaceholder(val)}
			if name == "kube_proxy_nodeport_addresses" {
				for _, a := range strings.Split(strings.Trim(val, "[]"), ",") {
					if a = strings.Trim(strings.TrimSpace(a), `"'`); a != "" {
						s.Values = append(s.Values, a)
					}
				}
			}
			if isVars {
				s.Remove = []checker.TextEdit{{Pos: f.Lines.Position(f.Path, start), End: f.Lines.Position(f.Path, f.Lines.LineStart(l+1))}}
			}
			out = append(out, kubesprayVar{rank: rank, file: f.Path, set: s})
		}
	}
	return out
}

// iniWords splits an INI line into blank-separated words (quotes keep blanks), as byte
// ranges; in a vars section the whole "name = value" line is one word.
func iniWords(t string) [][2]int {
	if i := strings.IndexByte(t, '='); i > 0 && !strings.ContainsAny(strings.TrimSpace(t[:i]), " \t") {
		if j := strings.IndexAny(strings.TrimSpace(t[i+1:]), " \t"); j < 0 {
			s := len(t) - len(strings.TrimLeft(t, " \t"))
			return [][2]int{{s, len(strings.TrimRight(t, " \t"))}}
		}
	}
	var out [][2]int
	i := 0
	for i < len(t) {
		for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
			i++
		}
		if i >= len(t) || t[i] == '#' {
			break
		}
		s := i
		var q byte
		for i < len(t) && (q != 0 || (t[i] != ' ' && t[i] != '\t')) {
			switch {
			case q == 0 && (t[i] == '"' || t[i] == '\''):
				q = t[i]
			case t[i] == q:
				q = 0
			}
			i++
		}
		out = append(out, [2]int{s, i})
	}
	return out
}

// yamlInventoryVars reads kubespray variables from a YAML inventory group at p: its vars (rank 1
// for all, 2 for other groups), its hosts' variables (rank 5) and its children, recursively.
func yamlInventoryVars(d *checker.Document, p checker.Path, rank int) []kubesprayVar {
	var out []kubesprayVar
	read := func(at checker.Path, r int) {
		_, m := d.Lookup(at)
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			name := m.Content[i].Value
			if _, ok := kubesprayVars[name]; ok {
				if s := yamlSetting(d, at.Append(name)); s != nil {
					out = append(out, kubesprayVar{rank: r, file: d.File.Path, set: s})
				}
			}
		}
	}
	read(p.Append("vars"), rank)
	if _, hosts := d.Lookup(p.Append("hosts")); hosts != nil && hosts.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(hosts.Content); i += 2 {
			read(p.Append("hosts", hosts.Content[i].Value), 5)
		}
	}
	if _, ch := d.Lookup(p.Append("children")); ch != nil && ch.Kind == yaml.MappingNode && len(p) < 16 {
		for i := 0; i+1 < len(ch.Content); i += 2 {
			out = append(out, yamlInventoryVars(d, p.Append("children", ch.Content[i].Value), 2)...)
		}
	}
	return out
}
