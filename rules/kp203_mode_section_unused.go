package rules

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
	kpv1 "k8s.io/kube-proxy/config/v1alpha1"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP203 flags values in a mode section that the effective mode does not read.
var KP203 = &checker.Rule{
	ID:       "KP203",
	Name:     "mode-section-unused",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap"},
	Doc: withProse("kp203_mode_section_unused.md", checker.Doc{
		Title: "a value is set in a section that the effective proxy mode does not read",
		Before: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
iptables:
  masqueradeAll: true
  syncPeriod: 10s
`,
		After: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
iptables:
  masqueradeAll: true
  syncPeriod: 10s
nftables:
  masqueradeAll: true
  syncPeriod: 10s
`,
		Since: "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Delete a value that neither the mode that runs today nor the mode at the target reads (the mode is written down).`, Safety: checker.Safe, Preferred: true},
			{Text: `Carry the value into the section the mode at the target reads, when the mode is unset: that section is not read before 1.40, so nothing changes today.`, Safety: checker.Safe, Preferred: true},
			{Text: `Carry the value into the section of a mode that is written down: the value then applies.`, Safety: checker.Unsafe},
		},
	}),
	Run: runKP203,
}

// sectionFields are the fields that several sections share, in the order they are checked:
// iptables before ipvs, so that iptables values win when both would be carried.
var sectionFields = []struct{ section, field string }{
	{"iptables", "syncPeriod"},
	{"iptables", "minSyncPeriod"},
	{"iptables", "masqueradeAll"},
	{"iptables", "masqueradeBit"},
	{"iptables", "localhostNodePorts"},
	{"ipvs", "syncPeriod"},
	{"ipvs", "minSyncPeriod"},
}

// readSection returns the section that mode reads field from, or "" when no section does.
func readSection(mode, field string) string {
	switch field {
	case "syncPeriod", "minSyncPeriod":
		return mode
	case "masqueradeAll", "masqueradeBit":
		if mode == checker.ModeNFTables {
			return "nftables"
		}
		return "iptables"
	case "localhostNodePorts":
		if mode == checker.ModeIPTables {
			return "iptables"
		}
	}
	return ""
}

// sectionValue returns the canonical value of section.field in c, and whether it is set
// (non-zero; kube-proxy replaces zero values by defaults). Durations are formatted
// canonically, so that 60s and 1m compare equal.
func sectionValue(c *kpv1.KubeProxyConfiguration, section, field string) (string, bool) {
	var syncP, minP time.Duration
	var all bool
	var bit *int32
	switch section {
	case "iptables":
		syncP, minP, all, bit = c.IPTables.SyncPeriod.Duration, c.IPTables.MinSyncPeriod.Duration, c.IPTables.MasqueradeAll, c.IPTables.MasqueradeBit
		if field == "localhostNodePorts" {
			if p := c.IPTables.LocalhostNodePorts; p != nil {
				return strconv.FormatBool(*p), true
			}
			return "", false
		}
	case "ipvs":
		syncP, minP = c.IPVS.SyncPeriod.Duration, c.IPVS.MinSyncPeriod.Duration
	case "nftables":
		syncP, minP, all, bit = c.NFTables.SyncPeriod.Duration, c.NFTables.MinSyncPeriod.Duration, c.NFTables.MasqueradeAll, c.NFTables.MasqueradeBit
	}
	switch field {
	case "syncPeriod":
		return syncP.String(), syncP != 0
	case "minSyncPeriod":
		return minP.String(), minP != 0
	case "masqueradeAll":
		return strconv.FormatBool(all), all
	case "masqueradeBit":
		if bit != nil {
			return strconv.Itoa(int(*bit)), true
		}
	}
	return "", false
}

// sectionDefault returns the value kube-proxy uses for section.field when it is unset.
func sectionDefault(section, field string) string {
	switch field {
	case "syncPeriod":
		return (30 * time.Second).String()
	case "minSyncPeriod":
		if section == "ipvs" {
			return time.Duration(0).String()
		}
		return time.Second.String()
	case "masqueradeAll":
		return "false"
	case "masqueradeBit":
		return "14"
	}
	return ""
}

func runKP203(p *checker.Pass) error {
	for _, u := range configsInUse(p) {
		switch u.mode.Value {
		case checker.ModeIPTables, checker.ModeIPVS, checker.ModeNFTables:
			reportUnreadSections(u.pass, u)
		}
	}
	return nil
}

// carryItem is one finding whose value belongs in another section.
type carryItem struct {
	src, dst, field string
	// text is the value's source text, to copy it unchanged.
	text string
	msg  string
	// line and col place the source value, to keep the order of the source in a new section.
	line, col int
	// safe: the destination section is not read today, so carrying changes nothing yet.
	safe bool
}

// reportUnreadSections reports the values of u's configuration that its mode does not read.
//
// Each finding offers what is safe: a value that neither today's mode nor the target's reads
// can be deleted; a value that today's mode reads (the mode is unset: iptables today, nftables
// from 1.40) can be carried into the section the target's mode reads, which is not read today.
// Carrying into the section of a mode that is written down makes the value apply: unsafe.
func reportUnreadSections(p *checker.Pass, u configUse) {
	mode := u.mode.Value
	today := todayMode(u.mode, false)
	reason := modeReason(u.mode, p.Target())
	type report struct {
		path  checker.Path
		msg   string
		carry int // index in items, or -1
		// removable: deleting the value changes nothing today.
		removable bool
	}
	var reports []report
	var items []carryItem
	for _, sf := range sectionFields {
		dst := readSection(mode, sf.field)
		if dst == sf.section {
			continue
		}
		val, set := sectionValue(u.kpc, sf.section, sf.field)
		if !set {
			continue
		}
		path := checker.Path{sf.section, sf.field}
		if !u.doc.Has(path) {
			continue
		}
		removable := readSection(today, sf.field) != sf.section
		shown := u.doc.Str(path)
		if dst == "" {
			msg := fmt.Sprintf("%s.%s %s has no effect: %s, and only iptables mode reads it", sf.section, sf.field, shown, reason)
			if mode == checker.ModeNFTables {
				msg += "; in nftables mode loopback NodePorts are served only for an explicit localhost entry in nodePortAddresses"
			} else {
				msg += "; ipvs mode never serves loopback NodePorts"
			}
			reports = append(reports, report{path, msg, -1, removable})
			continue
		}
		dval, dset := sectionValue(u.kpc, dst, sf.field)
		dpath := checker.Path{dst, sf.field}
		what := "which is unset (default " + sectionDefault(dst, sf.field) + ")"
		_, dnode := u.doc.Lookup(dpath)
		switch {
		case dset:
			what = "which is " + u.doc.Str(dpath) + " and applies instead"
		case dnode != nil && dnode.Tag != "!!null" && sf.field == "masqueradeAll":
			what = "which is false"
		case dnode != nil && dnode.Tag != "!!null":
			// A zero value, as kubeadm writes them: kube-proxy applies the default.
			what = fmt.Sprintf("which is %s, so the default %s applies", u.doc.Str(dpath), sectionDefault(dst, sf.field))
		}
		if !dset {
			dval = sectionDefault(dst, sf.field)
		}
		if val == dval {
			continue
		}
		msg := fmt.Sprintf("%s.%s %s is not read: %s, and %s mode reads %s.%s, %s", sf.section, sf.field, shown, reason, mode, dst, sf.field, what)
		_, v := u.doc.Lookup(path)
		text, ok := scalarText(u.doc, v)
		if dset || !ok {
			reports = append(reports, report{path, msg, -1, removable})
			continue
		}
		items = append(items, carryItem{src: sf.section, dst: dst, field: sf.field, text: text, msg: msg, line: v.Line, col: v.Column,
			safe: readSection(today, sf.field) != dst})
		reports = append(reports, report{path, msg, len(items) - 1, removable})
	}
	carried := carryFixes(u.doc, items)
	// A deletion is preferred unless carrying is safe; when every key of a section goes, the
	// section goes with it (the same edit on each of its findings, applied once).
	deletes := map[string]int{}
	for _, r := range reports {
		if r.removable && (r.carry < 0 || !items[r.carry].safe) {
			deletes[r.path[0]]++
		}
	}
	for _, r := range reports {
		var fixes []checker.Fix
		if r.carry >= 0 {
			fixes = carried[r.carry]
			for i := range fixes {
				fixes[i].Safety = checker.Unsafe
				if items[r.carry].safe {
					fixes[i].Safety = checker.Safe
				}
				fixes[i].Preferred = items[r.carry].safe || !r.removable
			}
		}
		if r.removable {
			e, ok := deleteFieldEdit(u.doc, r.path)
			what := r.path.String()
			if _, sec := u.doc.Lookup(r.path[:1]); sec != nil && sec.Kind == yaml.MappingNode && len(sec.Content) == 2*deletes[r.path[0]] {
				e, ok = deleteFieldEdit(u.doc, r.path[:1])
				what = "the unread " + r.path[0] + ": section"
			}
			if ok {
				del := safeDelete("Delete "+what+", which no mode that runs reads", e)
				del.Preferred = r.carry < 0 || len(fixes) == 0 || !items[r.carry].safe
				fixes = append([]checker.Fix{del}, fixes...)
				if del.Preferred {
					for i := 1; i < len(fixes); i++ {
						fixes[i].Preferred = false
					}
				}
			}
		}
		p.ReportKey(u.doc, r.path, checker.SeverityWarning, r.msg, fixes...)
	}
}

// carryFixes builds the fix of each carried value: fill in the zero value of the field in its
// section, add the field to the section, or create the section. A new section holds every value
// carried into it and goes on the first of its findings: the fixes of all findings are applied
// together, and two new sections of the same name would be duplicate keys. A field carried from
// two sections is fixed once, from the first (iptables).
func carryFixes(d *checker.Document, items []carryItem) [][]checker.Fix {
	out := make([][]checker.Fix, len(items))
	done := map[string]bool{}
	newSection := map[string][]int{}
	var newOrder []string
	for i, it := range items {
		key := it.dst + "." + it.field
		if done[key] {
			continue
		}
		done[key] = true
		line := it.field + ": " + it.text
		msg := fmt.Sprintf("Set %s.%s to %s", it.dst, it.field, it.text)
		// The field is present with a zero or null value: replace it.
		if _, v := d.Lookup(checker.Path{it.dst, it.field}); v != nil {
			if old, ok := scalarText(d, v); ok && old != "" {
				out[i] = []checker.Fix{{Message: msg, Edits: []checker.TextEdit{{Pos: d.NodePos(v), End: d.NodeEnd(v), NewText: it.text}}}}
			}
			continue
		}
		k, sec := d.Lookup(checker.Path{it.dst})
		switch {
		case sec == nil:
			if len(newSection[it.dst]) == 0 {
				newOrder = append(newOrder, it.dst)
			}
			newSection[it.dst] = append(newSection[it.dst], i)
		case sec.Kind == yaml.MappingNode && sec.Style&yaml.FlowStyle == 0 && len(sec.Content) > 0:
			prefix, ok := linePrefix(d, sec.Content[0])
			if !ok {
				continue
			}
			if e, ok := insertAfterEdit(d, checker.Path{it.dst}, []string{prefix + line}); ok {
				out[i] = []checker.Fix{{Message: msg, Edits: []checker.TextEdit{e}}}
			}
		case sec.Kind == yaml.ScalarNode && sec.Tag == "!!null" && sec.Value == "":
			// An empty "nftables:" key.
			prefix, ok := linePrefix(d, k)
			if !ok {
				continue
			}
			step := strings.Repeat(" ", childIndent(d, checker.Path{it.src}))
			if e, ok := insertAfterEdit(d, checker.Path{it.dst}, []string{prefix + step + line}); ok {
				out[i] = []checker.Fix{{Message: msg, Edits: []checker.TextEdit{e}}}
			}
		}
	}
	for _, dst := range newOrder {
		idx := newSection[dst]
		first := items[idx[0]]
		fixed := idx[0]
		// Insert after the section the first value comes from, at its indentation.
		k, _ := d.Lookup(checker.Path{first.src})
		prefix, ok := linePrefix(d, k)
		if !ok {
			continue
		}
		step := strings.Repeat(" ", childIndent(d, checker.Path{first.src}))
		lines := []string{prefix + dst + ":"}
		// Keep the order of the source lines.
		sort.SliceStable(idx, func(a, b int) bool {
			x, y := items[idx[a]], items[idx[b]]
			return x.line < y.line || x.line == y.line && x.col < y.col
		})
		var fields []string
		for _, i := range idx {
			lines = append(lines, prefix+step+items[i].field+": "+items[i].text)
			fields = append(fields, items[i].field)
		}
		if e, ok := insertAfterEdit(d, checker.Path{first.src}, lines); ok {
			msg := fmt.Sprintf("Add a %s: section with %s", dst, strings.Join(fields, ", "))
			out[fixed] = []checker.Fix{{Message: msg, Edits: []checker.TextEdit{e}}}
		}
	}
	return out
}
