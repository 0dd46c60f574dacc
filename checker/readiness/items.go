package readiness

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Categories group findings by what breaks, in report order.
var categories = []struct{ id, title string }{
	{"data-plane", "Data plane: mode and startup"},
	{"nodeport", "NodePort reach"},
	{"scripts", "Scripts and firewall rules"},
	{"alerts", "Alerts and dashboards"},
	{"kernels", "Node kernels"},
	{"configuration", "Configuration"},
	{"policy", "Your policies"},
}

// Category returns the category of a rule: what breaks when its findings are left alone.
func Category(ruleID string) string {
	switch ruleID {
	case "KP101", "KP102", "KP103", "KP104", "KP105", "KP106", "KP201", "KP205", "KP206", "KP601", "KP603":
		return "data-plane"
	case "KP301", "KP302", "KP303":
		return "nodeport"
	case "KP401", "KP402":
		return "scripts"
	case "KP501", "KP502":
		return "alerts"
	case "KP602", "KP604":
		return "kernels"
	case "KP001", "KP002", "KP003", "KP202", "KP203", "KP204":
		return "configuration"
	}
	return "policy"
}

type itemKey struct {
	rule string
	pos  checker.Position
}

// items collects the scope's findings: today's, and those that arrive or turn into errors at
// a later version up to the horizon, each once, grouped by category. An item is a blocker
// when it is an error today or becomes one by the horizon.
func (b *builder) items(k scopeKey, current checker.Version) []Group {
	in := func(f *checker.Finding) bool {
		return reported(f) && findingKey(b.ws, f) == k.key
	}
	var order []itemKey
	items := map[itemKey]*Item{}
	for i := range b.in.Findings {
		f := &b.in.Findings[i]
		if !in(f) {
			continue
		}
		key := itemKey{f.RuleID, f.Pos}
		if _, dup := items[key]; dup {
			continue
		}
		it := b.item(f)
		it.Today = it.Severity
		items[key] = &it
		order = append(order, key)
	}
	var later []checker.Version
	for v := range b.in.Later {
		if current.Less(v) && !checker.Horizon.Less(v) {
			later = append(later, v)
		}
	}
	sort.Slice(later, func(i, j int) bool { return later[i].Less(later[j]) })
	for _, v := range later {
		fs := b.in.Later[v]
		for i := range fs {
			f := &fs[i]
			if !in(f) {
				continue
			}
			key := itemKey{f.RuleID, f.Pos}
			prev, ok := items[key]
			switch {
			case !ok:
				it := b.item(f)
				it.Arrives = v.String()
				items[key] = &it
				order = append(order, key)
			case f.Severity == checker.SeverityError && prev.Severity != checker.SeverityError.String():
				// Turns into a blocker: the message at that version says why.
				today := prev.Today
				*prev = b.item(f)
				prev.Today, prev.Arrives = today, v.String()
			}
		}
	}
	groups := make([]Group, len(categories))
	for i, c := range categories {
		groups[i] = Group{Category: c.id, Title: c.title, Blockers: []Item{}, Advisories: []Item{}}
	}
	idx := map[string]int{}
	for i, c := range categories {
		idx[c.id] = i
	}
	for _, key := range order {
		it := items[key]
		g := &groups[idx[Category(it.Rule)]]
		if it.Severity == checker.SeverityError.String() {
			g.Blockers = append(g.Blockers, *it)
		} else {
			g.Advisories = append(g.Advisories, *it)
		}
	}
	var out []Group
	for _, g := range groups {
		if len(g.Blockers)+len(g.Advisories) == 0 {
			continue
		}
		sortItems(g.Blockers)
		sortItems(g.Advisories)
		out = append(out, g)
	}
	if out == nil {
		out = []Group{}
	}
	return out
}

// sortItems orders items by arrival (today first), then file position and rule.
func sortItems(its []Item) {
	sort.SliceStable(its, func(i, j int) bool {
		a, b := its[i], its[j]
		if a.Arrives != b.Arrives {
			return versionLess(a.Arrives, b.Arrives)
		}
		if a.At.File != b.At.File {
			return a.At.File < b.At.File
		}
		if a.At.Line != b.At.Line {
			return a.At.Line < b.At.Line
		}
		if a.At.Column != b.At.Column {
			return a.At.Column < b.At.Column
		}
		return a.Rule < b.Rule
	})
}

// versionLess orders arrival versions: "" (today) first.
func versionLess(a, b string) bool {
	if a == "" || b == "" {
		return a == "" && b != ""
	}
	va, _ := checker.ParseVersion(a)
	vb, _ := checker.ParseVersion(b)
	return va.Less(vb)
}

func (b *builder) item(f *checker.Finding) Item {
	it := Item{Rule: f.RuleID, RuleName: f.RuleName, Severity: f.Severity.String(), Message: f.PlainMessage(), At: loc(f.Pos, f.End)}
	if r := b.rules[f.RuleID]; r != nil && r.Doc.Title != "" {
		it.URL = r.URL()
	}
	return it
}

// status says how ready a scope is, the first version with a blocker, and a headline.
func status(s *Scope, ins []*checker.Instance, quiet bool) (Status, string, string) {
	if quiet {
		return StatusReplaced, "", "kube-proxy is replaced: " + s.Replaced[0].Message
	}
	running := 0
	unknown := 0
	for _, in := range s.Instances {
		if in.Disabled {
			continue
		}
		running++
		if in.Mode == "" {
			unknown++
		}
	}
	today := 0
	first := ""
	for _, g := range s.Groups {
		for _, it := range g.Blockers {
			if it.Arrives == "" {
				today++
			} else if first == "" || versionLess(it.Arrives, first) {
				first = it.Arrives
			}
		}
	}
	// A kube-proxy that exits with no finding to say so (a kernel too old, known only from
	// the node inventory) still breaks the scope.
	for _, c := range s.Timeline[1:] {
		if c.State.Rank() >= checker.StateExits.Rank() && (first == "" || versionLess(c.Version, first)) {
			first = c.Version
			break
		}
	}
	if st := s.Timeline[0].State; st.Rank() >= checker.StateExits.Rank() && today == 0 {
		today = 1
	}
	switch {
	case running == 0 && len(ins) == 0:
		return StatusNoKubeProxy, "", "no kube-proxy in this scope"
	case running == 0:
		return StatusReplaced, "", "the installer does not run kube-proxy"
	case today > 0:
		return StatusBlocked, "", headlineToday(s, today)
	case first != "":
		return StatusBreaks, first, headlineAt(s, first)
	case unknown == running:
		return StatusUnknown, "", "the mode is set outside the repository; nothing else blocks the migration"
	}
	return StatusReady, "", readyHeadline(s)
}

func headlineToday(s *Scope, n int) string {
	c := s.Timeline[0]
	if c.State.Rank() >= checker.StateExits.Rank() {
		return fmt.Sprintf("kube-proxy %s at %s: %s", stateVerb(c.State), c.Version, c.Why)
	}
	return plural(n, "blocker", "blockers") + " at " + s.Target.Version + " already"
}

func headlineAt(s *Scope, v string) string {
	for _, c := range s.Timeline {
		if c.Version == v && c.State.Rank() >= checker.StateExits.Rank() {
			return fmt.Sprintf("kube-proxy %s from %s: %s", stateVerb(c.State), v, c.Why)
		}
		if c.Version == v && c.State == checker.StateSwitches {
			return fmt.Sprintf("the data plane switches to %s in %s", c.Mode, v)
		}
	}
	n := 0
	for _, g := range s.Groups {
		for _, it := range g.Blockers {
			if it.Arrives == v {
				n++
			}
		}
	}
	return plural(n, "blocker arrives", "blockers arrive") + " in " + v
}

func readyHeadline(s *Scope) string {
	switch {
	case len(s.ModeToday) == 1 && s.ModeToday[0] == checker.ModeNFTables:
		return "runs nftables; nothing blocks it up to " + checker.Horizon.String()
	case s.Advisories > 0:
		return "nothing breaks up to " + checker.Horizon.String() + "; " + plural(s.Advisories, "advisory", "advisories")
	}
	return "nothing breaks up to " + checker.Horizon.String()
}

func stateVerb(s checker.State) string {
	switch s {
	case checker.StateRemoved:
		return "mode is removed"
	case checker.StateExits:
		return "exits at startup"
	}
	return string(s)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// nextStep says what to do next in the scope, and what nftables mode still waits for there.
func nextStep(s *Scope, ins []*checker.Instance, quiet bool, rep *checker.Replacement) (string, []string) {
	if quiet {
		return "nothing to do for kube-proxy: " + rep.Message, nil
	}
	if len(s.Instances) == 0 {
		if s.Blockers > 0 {
			return "fix the " + plural(s.Blockers, "blocker", "blockers") + " below", nil
		}
		return "nothing to do: no kube-proxy in this scope", nil
	}
	for _, r := range s.Replaced {
		if r.Conflicting {
			return "remove the kube-proxy that is left beside its replacement (" + r.Message + "), or the replacement", nil
		}
	}
	conds := conditions(s)
	once := ""
	if len(conds) > 0 {
		once = " once " + joinAnd(conds)
	}
	// Blockers of today other than the mode itself, which the step below is about.
	today := 0
	for _, g := range s.Groups {
		for _, it := range g.Blockers {
			if it.Arrives == "" && it.Rule != "KP101" && it.Rule != "KP102" {
				today++
			}
		}
	}
	prefix := ""
	if today > 0 {
		prefix = "fix the " + plural(today, "blocker", "blockers") + " of today; then "
	}
	has := map[string]bool{}
	defaulted := false
	for i, in := range s.Instances {
		if in.Disabled {
			continue
		}
		has[in.Mode] = true
		if (in.Origin == checker.OriginDefault.String() || in.Origin == checker.OriginInstallerDefault.String()) && movesToNFTables(ins[i], s) {
			defaulted = true
		}
	}
	current, _ := checker.ParseVersion(s.Target.Version)
	var step string
	switch {
	case has[checker.ModeIPVS] && current.AtLeast(40):
		if len(conds) == 0 {
			step = "switch from ipvs to nftables now (ipvs exits at startup from 1.40): nothing else blocks nftables"
		} else {
			step = "leave ipvs now (it exits at startup from 1.40): pin iptables, then move to nftables" + once
		}
	case has[checker.ModeIPVS]:
		if len(conds) == 0 {
			step = "move from ipvs to nftables before 1.40, where ipvs exits at startup: nothing else blocks nftables"
		} else {
			step = "pin iptables now (ipvs exits at startup from 1.40), then move to nftables" + once
		}
	case defaulted:
		if len(conds) == 0 {
			step = "pin mode: nftables now: the mode is unset and becomes nftables in 1.40, and nothing blocks it"
		} else {
			step = "pin mode: iptables now, so that the 1.40 default does not switch the data plane to nftables, then move to nftables" + once
		}
	case has[checker.ModeIPTables]:
		if len(conds) == 0 {
			step = "move to nftables when convenient: nothing blocks it (iptables mode has no deadline)"
		} else {
			step = "no deadline (iptables mode is supported past " + checker.Horizon.String() + "); move to nftables" + once
		}
	case has[checker.ModeNFTables]:
		if len(conds) == 0 {
			step = "nothing to do: kube-proxy runs nftables"
		} else {
			step = "keep nftables working: make sure " + joinAnd(conds)
		}
	case has[""]:
		step = "check the kube-proxy configuration that the repository does not hold"
		if len(conds) > 0 {
			step += "; nftables needs " + joinAnd(conds)
		}
	default:
		step = "fix the kube-proxy mode"
	}
	if s.Nodes == nil && (has[checker.ModeIPVS] || defaulted || has[checker.ModeIPTables] || has[checker.ModeNFTables]) {
		step += "; node kernels are unknown (pass --nodes)"
	}
	return prefix + step, conds
}

// movesToNFTables reports whether an instance's default mode becomes nftables by the horizon.
func movesToNFTables(in *checker.Instance, s *Scope) bool {
	v, err := checker.ParseVersion(s.Target.Version)
	if err != nil {
		return false
	}
	_, ok := in.MovesToNFTables(v)
	return ok
}

// conditions lists what nftables mode still waits for in a scope: node kernels, scripts and
// firewall rules, alerts, NodePort reach.
func conditions(s *Scope) []string {
	var out []string
	if s.Nodes != nil && s.Nodes.NotReady > 0 {
		out = append(out, fmt.Sprintf("the %s run Linux %s or newer", plural(s.Nodes.NotReady, "node with an older kernel", "nodes with older kernels"), checker.NFTablesMinKernel))
	}
	files := func(cat string) int {
		seen := map[string]bool{}
		for _, g := range s.Groups {
			if g.Category != cat {
				continue
			}
			for _, its := range [][]Item{g.Blockers, g.Advisories} {
				for _, it := range its {
					if it.Severity != checker.SeverityInfo.String() {
						seen[it.At.File] = true
					}
				}
			}
		}
		return len(seen)
	}
	if n := files("scripts"); n > 0 {
		out = append(out, "these "+plural(n, "script is", "scripts are")+" rewritten")
		if n == 1 {
			out[len(out)-1] = "this script is rewritten"
		}
	}
	if n := files("alerts"); n > 0 {
		out = append(out, plural(n, "file of alerts or dashboards is", "files of alerts or dashboards are")+" updated")
	}
	if n := files("nodeport"); n > 0 {
		out = append(out, "NodePort reach is settled ("+plural(n, "file", "files")+")")
	}
	return out
}

func joinAnd(s []string) string {
	switch len(s) {
	case 0:
		return ""
	case 1:
		return s[0]
	}
	return strings.Join(s[:len(s)-1], ", ") + " and " + s[len(s)-1]
}

func totals(r *Report) Totals {
	t := Totals{ByStatus: []StatusCount{}, Exits: []VersionCount{}, BlockersBy: []VersionCount{}}
	byStatus := map[Status]int{}
	exits := map[string]int{}
	blockers := map[string]int{}
	for _, s := range r.Scopes {
		t.Instances += len(s.Instances)
		// The shared files are a section of the report, not a cluster: their findings count
		// in the blockers and advisories, not in the clusters and their statuses.
		if s.Shared {
			t.SharedBlockers, t.SharedAdvisories = s.Blockers, s.Advisories
		} else {
			t.Scopes++
			byStatus[s.Status]++
		}
		t.Blockers += s.Blockers
		t.Advisories += s.Advisories
		if s.Nodes != nil {
			t.Nodes.Total += s.Nodes.Total
			t.Nodes.Ready += s.Nodes.Ready
			t.Nodes.NotReady += s.Nodes.NotReady
		}
		for _, c := range s.Timeline {
			if c.State.Rank() >= checker.StateExits.Rank() {
				exits[c.Version]++
			}
		}
		for _, g := range s.Groups {
			for _, it := range g.Blockers {
				blockers[it.Arrives]++
			}
		}
	}
	for _, st := range Statuses {
		if n := byStatus[st]; n > 0 {
			t.ByStatus = append(t.ByStatus, StatusCount{st, n})
		}
	}
	for _, v := range r.Versions {
		if n := exits[v]; n > 0 {
			t.Exits = append(t.Exits, VersionCount{v, n})
		}
	}
	vs := make([]string, 0, len(blockers))
	for v := range blockers {
		vs = append(vs, v)
	}
	sort.Slice(vs, func(i, j int) bool { return versionLess(vs[i], vs[j]) })
	for _, v := range vs {
		t.BlockersBy = append(t.BlockersBy, VersionCount{v, blockers[v]})
	}
	return t
}
