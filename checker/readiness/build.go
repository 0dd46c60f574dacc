package readiness

import (
	"fmt"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Input is what the report is built from.
type Input struct {
	Workspace *checker.Workspace
	// Findings are the run's findings at each scope's own version, processed (suppressions,
	// baseline, quiet replaced scopes) as for any other output.
	Findings []checker.Finding
	// Later holds, for each version of LaterVersions, the findings of the same rules and
	// processing with every scope checked at that version.
	Later map[checker.Version][]checker.Finding
	// Rules are the rules that ran, for names and documentation links.
	Rules       []*checker.Rule
	Tool        string
	ToolVersion string
}

// LaterVersions returns the versions the caller runs the rules at, besides each scope's own:
// the milestones (checker.Milestones) after the oldest scope's version, up to the horizon. A
// problem that arrives at a milestone is there at every version up to the next one.
func LaterVersions(ws *checker.Workspace) []checker.Version {
	oldest := checker.Horizon
	for _, t := range ws.ScopeTargets() {
		if t.Version.Less(oldest) {
			oldest = t.Version
		}
	}
	if ws.TargetFixed && ws.Target.Version.Less(oldest) {
		oldest = ws.Target.Version
	}
	var out []checker.Version
	for _, m := range checker.Milestones {
		if oldest.Less(m) && !checker.Horizon.Less(m) {
			out = append(out, m)
		}
	}
	return out
}

// versionIndependent are the built-in rules whose findings do not depend on the target
// version: parse errors, the ipvs scheduler advice (about an explicit ipvs mode), the kernel
// check bypass, kube-proxy replacements, NodeLocal DNSCache, suppressions. LaterRules leaves
// them out of the runs at later versions, which saves most of their cost (four are Rego).
var versionIndependent = map[string]bool{"KP001": true, "KP204": true, "KP206": true, "KP601": true, "KP603": true, "KP900": true}

// LaterRules returns the rules to run at later versions: rules without the version-independent
// ones, whose findings today's run already has. KP601 stays as a twin that reports nothing, so
// that the kube-proxy rules are still quiet where kube-proxy is replaced (the engine's quiet
// step runs when KP601 is part of the run; it reads the replacements from the workspace).
func LaterRules(rules []*checker.Rule) []*checker.Rule {
	var out []*checker.Rule
	for _, r := range rules {
		if !versionIndependent[r.ID] {
			out = append(out, r)
			continue
		}
		if r.ID == "KP601" {
			twin := *r
			twin.Run = func(*checker.Pass) error { return nil }
			out = append(out, &twin)
		}
	}
	return out
}

// Build builds the report.
func Build(in Input) *Report {
	b := &builder{in: in, ws: in.Workspace, rules: map[string]*checker.Rule{}, replaced: in.Workspace.Replaced()}
	for _, r := range in.Rules {
		b.rules[r.ID] = r
	}
	r := &Report{Schema: SchemaURL, SchemaVersion: SchemaVersion, Tool: in.Tool, ToolVersion: in.ToolVersion, Horizon: checker.Horizon.String()}
	scopes := b.scopes()
	oldest := checker.Horizon
	for _, s := range scopes {
		sc := b.scope(s)
		if v, err := checker.ParseVersion(sc.Target.Version); err == nil && v.Less(oldest) {
			oldest = v
		}
		r.Scopes = append(r.Scopes, sc)
	}
	for _, v := range checker.TimelineVersions(oldest) {
		r.Versions = append(r.Versions, v.String())
	}
	mapRendered(b.ws, r)
	r.Totals = totals(r)
	if r.Scopes == nil {
		r.Scopes = []Scope{}
	}
	return r
}

type builder struct {
	in       Input
	ws       *checker.Workspace
	rules    map[string]*checker.Rule
	replaced *checker.Replaced
}

// scopeKey is a row of the report: a cluster, or the shared files of one self-contained tree
// (c nil), which form a section of their own.
type scopeKey struct {
	key string // Workspace.ClusterKey
	c   *checker.Cluster
}

// scopes lists the clusters, then the shared files that hold a kube-proxy, a replacement or a
// finding, each sorted by name.
func (b *builder) scopes() []scopeKey {
	seen := map[string]bool{}
	var out []scopeKey
	add := func(file string) {
		k := rowKey(b.ws, file)
		if !seen[k] {
			seen[k] = true
			out = append(out, scopeKey{k, b.ws.ClusterOf(file)})
		}
	}
	for _, c := range b.ws.Clusters {
		k := "c\x00" + c.Name
		seen[k] = true
		out = append(out, scopeKey{k, c})
	}
	for _, in := range b.ws.Instances {
		add(instanceFile(in))
	}
	for _, r := range b.replaced.All {
		add(r.File)
	}
	for i := range b.in.Findings {
		f := &b.in.Findings[i]
		if reported(f) {
			add(findingFile(b.ws, f))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if (out[i].c == nil) != (out[j].c == nil) {
			return out[i].c != nil
		}
		return out[i].key < out[j].key
	})
	return out
}

// reported reports whether a finding belongs in the report: not an internal error, and not
// KP900, which is about suppression comments rather than the cluster.
func reported(f *checker.Finding) bool {
	return !f.Internal && f.RuleID != "KP900" && f.RuleID != ""
}

// findingKey is the row a finding belongs to: its cluster (a KP602 finding in a node
// inventory is about the cluster of its kube-proxy, which its Cluster names), else the shared
// files of its file's tree.
func findingKey(ws *checker.Workspace, f *checker.Finding) string {
	if f.Cluster != "" {
		return "c\x00" + f.Cluster
	}
	return rowKey(ws, findingFile(ws, f))
}

// rowKey is the report row of a file: its cluster's, or the one section of shared files.
func rowKey(ws *checker.Workspace, file string) string {
	if c := ws.ClusterOf(file); c != nil {
		return "c\x00" + c.Name
	}
	return "shared"
}

// findingFile is the file a finding's row is found by.
func findingFile(_ *checker.Workspace, f *checker.Finding) string {
	return f.Pos.Filename
}

func instanceFile(in *checker.Instance) string {
	switch {
	case in.Workload != nil:
		return in.Workload.File.Outer().Path
	case in.Source != nil:
		return in.Source.Outer().Path
	case in.Config != nil:
		return in.Config.File.Outer().Path
	case in.Installer != nil && in.Installer.File != nil:
		return in.Installer.File.Outer().Path
	}
	return ""
}

func (b *builder) scope(k scopeKey) Scope {
	ws := b.ws
	s := Scope{Dir: "shared files", Shared: true}
	if k.c != nil {
		s = Scope{Dir: k.c.Name, Cluster: k.c.Name, Root: dirName(k.c.Root), How: k.c.How}
	}
	var ins []*checker.Instance
	for _, in := range ws.Instances {
		if rowKey(ws, instanceFile(in)) == k.key {
			ins = append(ins, in)
		}
	}
	sort.SliceStable(ins, func(i, j int) bool { return anchor(ins[i]).Less(anchor(ins[j])) })
	s.Target = target(ws.ClusterTarget(k.c))
	quiet, isQuiet := b.replaced.QuietIn(k.c)
	for i := range b.replaced.All {
		r := &b.replaced.All[i]
		if k.c == nil || b.replaced.Clusters[i] != k.c {
			continue
		}
		s.Replaced = append(s.Replaced, Replacement{By: r.By, Message: r.Message, At: loc(r.Pos, r.End), Conflicting: b.replaced.Conflicting[i]})
	}
	// Nodes.
	var nodes []checker.Node
	if k.c != nil {
		nodes = ws.NodesFor(k.c)
	}
	if len(nodes) > 0 {
		s.Nodes = nodeReadiness(nodes)
	}
	modes := map[string]bool{}
	for _, in := range ins {
		inst := b.instance(in, s.Nodes)
		if !inst.Disabled {
			modes[modeName(inst.Mode)] = true
		}
		s.Instances = append(s.Instances, inst)
	}
	for m := range modes {
		s.ModeToday = append(s.ModeToday, m)
	}
	sort.Strings(s.ModeToday)
	if s.ModeToday == nil {
		s.ModeToday = []string{}
	}
	if s.Instances == nil {
		s.Instances = []Instance{}
	}
	tv, _ := checker.ParseVersion(s.Target.Version)
	s.Groups = b.items(k, tv)
	for _, g := range s.Groups {
		s.Blockers += len(g.Blockers)
		s.Advisories += len(g.Advisories)
	}
	s.Timeline = scopeTimeline(tv, ins, s.Nodes, s.Groups, isQuiet)
	s.Status, s.BreaksAt, s.Headline = status(&s, ins, isQuiet)
	s.NextStep, s.Conditions = nextStep(&s, ins, isQuiet, quiet)
	return s
}

// dirName shows a scope directory: "." for the repository root.
func dirName(d string) string {
	if d == "" {
		return "."
	}
	return d
}

func modeName(m string) string {
	if m == "" {
		return "unknown"
	}
	return m
}

func target(t checker.Target) Target {
	out := Target{Version: t.Version.String(), Source: t.Source}
	if t.Version == (checker.Version{}) {
		out.Version = checker.DefaultTarget.String()
	}
	switch t.Source {
	case "", "default":
		out.Source = "default"
	case "flag", "--target-version":
		out.Source = "--target-version"
	}
	if t.Pos != nil {
		l := loc(*t.Pos, *t.Pos)
		out.At = &l
		// The source without its position: the location says where.
		out.Source = strings.TrimSuffix(out.Source, " at "+t.Pos.String())
	}
	return out
}

// mapRendered moves every location in a chart rendering's virtual files to where it is
// written (the values file or template), as findings are moved: no row names a virtual path.
func mapRendered(ws *checker.Workspace, r *Report) {
	if len(ws.Rendered) == 0 {
		return
	}
	m := func(l *Location) {
		if l == nil || ws.RenderedFile(l.File) == nil {
			return
		}
		pos := checker.Position{Filename: l.File, Line: l.Line, Column: l.Column}
		if f := ws.RenderedFile(l.File); f != nil && f.Lines != nil {
			pos.Offset = f.Lines.Offset(l.Line, l.Column)
		}
		mp := ws.MapPosition(pos)
		*l = Location{File: mp.Filename, Line: mp.Line, Column: mp.Column}
	}
	for i := range r.Scopes {
		s := &r.Scopes[i]
		m(s.Target.At)
		for j := range s.Replaced {
			m(&s.Replaced[j].At)
		}
		for j := range s.Instances {
			in := &s.Instances[j]
			m(in.ModeAt)
			for k := range in.Sources {
				m(&in.Sources[k].At)
			}
		}
		for j := range s.Groups {
			g := &s.Groups[j]
			for k := range g.Blockers {
				m(&g.Blockers[k].At)
			}
			for k := range g.Advisories {
				m(&g.Advisories[k].At)
			}
		}
	}
}

func loc(pos, end checker.Position) Location {
	l := Location{File: pos.Filename, Line: pos.Line, Column: pos.Column}
	if end.IsValid() && end.Filename == pos.Filename && (end.Line > pos.Line || (end.Line == pos.Line && end.Column > pos.Column)) {
		l.EndLine, l.EndColumn = end.Line, end.Column
	}
	return l
}

// anchor is where an instance is shown from.
func anchor(in *checker.Instance) checker.Position {
	for _, s := range sources(in) {
		return checker.Position{Filename: s.At.File, Line: s.At.Line, Column: s.At.Column}
	}
	return checker.Position{}
}

func (b *builder) instance(in *checker.Instance, nodes *Nodes) Instance {
	t := b.ws.InstanceTarget(in)
	out := Instance{Label: in.Label, Kind: kindName(in.Kind), Target: target(t), Sources: sources(in), Disabled: in.IsDisabled()}
	if in.Installer != nil {
		out.Installer = in.Installer.Name
	}
	if out.Sources == nil {
		out.Sources = []Source{}
	}
	m := in.Mode(t.Version)
	out.Mode, out.Origin = m.Value, m.Origin.String()
	if m.Origin == checker.OriginUnknown {
		out.Mode = ""
	}
	if pos, end, ok := m.Where(); ok {
		l := loc(pos, end)
		out.ModeAt = &l
	}
	for _, st := range in.Timeline(t.Version) {
		out.Timeline = append(out.Timeline, cell(kernelStep(st, nodes)))
	}
	return out
}

func kindName(k checker.InstanceKind) string {
	switch k {
	case checker.InstanceWorkload:
		return "workload"
	case checker.InstanceConfig:
		return "config"
	case checker.InstanceCommand:
		return "command"
	}
	return "installer"
}

// sources lists where an instance is configured: its workload, command line or installer, its
// mode, the --config chain to the ConfigMap key and the configuration, and its other flags.
func sources(in *checker.Instance) []Source {
	var out []Source
	add := func(role, text string, pos, end checker.Position) {
		if pos.IsValid() {
			out = append(out, Source{Role: role, Text: text, At: loc(pos, end)})
		}
	}
	switch {
	case in.Workload != nil:
		pos, end, ok := in.Workload.KeyPos(in.Container.Append("name"))
		if !ok {
			pos, end = in.Workload.KindPos()
		}
		add("workload", in.Label, pos, end)
	case in.Program.IsValid():
		add("command", "kube-proxy command line", in.Program, in.ProgramEnd)
	case in.Installer != nil:
		add("installer", in.Installer.Describe(), in.Installer.Anchor, in.Installer.AnchorEnd)
	}
	if in.Installer != nil && in.Installer.Mode != nil {
		s := in.Installer.Mode
		add("mode", in.Installer.Name+" "+s.Key+": "+s.Value, s.Pos, s.End)
	}
	if in.Installer != nil && in.Installer.Disabled != nil {
		s := in.Installer.Disabled
		add("disabled", in.Installer.Name+" "+s.Key+": "+s.Value, s.Pos, s.End)
	}
	if f := in.Flag("config"); f != nil {
		add("config-flag", "--config="+f.Value, f.Pos, f.End)
	}
	for _, r := range in.ConfigVia {
		add("configmap", r.Message, r.Pos, r.End)
	}
	if in.Config != nil {
		pos, end := in.Config.KindPos()
		text := "KubeProxyConfiguration"
		if in.Config.Parent != nil {
			text += " in " + in.Config.Parent.Ref().String()
		}
		add("config", text, pos, end)
		if p, e, ok := in.Config.KeyPos(checker.Path{"mode"}); ok {
			add("mode", "mode: "+in.Config.Str(checker.Path{"mode"}), p, e)
		}
	}
	var names []string
	var first *checker.Flag
	for i := range in.Flags {
		f := &in.Flags[i]
		if f.Name == "config" {
			continue
		}
		if first == nil {
			first = f
		}
		if f.HasValue {
			names = append(names, "--"+f.Name+"="+f.Value)
		} else {
			names = append(names, "--"+f.Name)
		}
	}
	if first != nil {
		text := strings.Join(names, " ")
		if r := []rune(text); len(r) > 160 {
			text = string(r[:160]) + "…"
		}
		add("flags", text, first.Pos, first.End)
	}
	return out
}

func cell(s checker.Step) Cell {
	return Cell{Version: s.Version.String(), Mode: s.Mode, State: s.State, Why: s.Why}
}

// kernelStep turns a step in nftables mode into an exit when nodes of the scope run a kernel
// older than 5.13.
func kernelStep(s checker.Step, nodes *Nodes) checker.Step {
	if nodes == nil || nodes.NotReady == 0 || s.Mode != checker.ModeNFTables || s.State.Rank() >= checker.StateExits.Rank() {
		return s
	}
	s.State = checker.StateExits
	s.Why = fmt.Sprintf("nftables mode needs Linux %s; %d of %d nodes run an older kernel", checker.NFTablesMinKernel, nodes.NotReady, nodes.Total)
	return s
}

// scopeTimeline is the worst state of the scope's kube-proxies at each version, with the
// number of blockers that arrive there.
func scopeTimeline(from checker.Version, ins []*checker.Instance, nodes *Nodes, groups []Group, quiet bool) []Cell {
	arrive := map[string]int{}
	for _, g := range groups {
		for _, it := range g.Blockers {
			arrive[it.Arrives]++
		}
	}
	vs := checker.TimelineVersions(from)
	var out []Cell
	lines := make([][]checker.Step, len(ins))
	for i, in := range ins {
		lines[i] = in.Timeline(from)
	}
	for j, v := range vs {
		c := Cell{Version: v.String()}
		if quiet {
			c.State, c.Why = checker.StateReplaced, "kube-proxy is replaced in this scope"
		} else {
			modes := map[string]bool{}
			var worst checker.Step
			for i := range ins {
				st := kernelStep(lines[i][j], nodes)
				if st.State == checker.StateOff {
					continue
				}
				modes[modeName(st.Mode)] = true
				if worst.State == "" || st.State.Rank() > worst.State.Rank() {
					worst = st
				}
			}
			c.State, c.Why = worst.State, worst.Why
			c.Mode = strings.Join(sortedKeys(modes), "/")
			if c.State == "" {
				c.State = checker.StateOff
			}
		}
		key := v.String()
		if j == 0 {
			key = ""
		}
		c.Blockers = arrive[key]
		out = append(out, c)
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func nodeReadiness(nodes []checker.Node) *Nodes {
	out := &Nodes{Pools: []Pool{}}
	for _, p := range checker.Pools(nodes) {
		pl := Pool{Name: p.Name, Label: p.Label}
		if pl.Name == "" {
			pl.Name = "(no pool label)"
		}
		pl.Total = len(p.Nodes)
		pl.Ready = p.Ready()
		pl.NotReady = pl.Total - pl.Ready
		var old []checker.KernelVersion
		seen := map[checker.KernelVersion]bool{}
		for _, n := range p.Nodes {
			if n.NFTablesReady() {
				continue
			}
			if pl.At == nil {
				l := loc(n.Pos, n.End)
				pl.At = &l
			}
			if !seen[n.KernelVersion] {
				seen[n.KernelVersion] = true
				old = append(old, n.KernelVersion)
			}
		}
		sort.Slice(old, func(i, j int) bool { return old[i].Less(old[j]) })
		for _, k := range old {
			pl.OldKernels = append(pl.OldKernels, fmt.Sprintf("%d.%d.%d", k.Major, k.Minor, k.Patch))
		}
		out.Total += pl.Total
		out.Ready += pl.Ready
		out.NotReady += pl.NotReady
		out.Pools = append(out.Pools, pl)
	}
	return out
}
