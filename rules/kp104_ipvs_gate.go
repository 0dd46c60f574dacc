package rules

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP104 flags explicit settings of the ipvs feature gates.
var KP104 = &checker.Rule{
	ID:       "KP104",
	Name:     "ipvs-gate",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap", "DaemonSet", "Pod"},
	Doc: withProse("kp104_ipvs_gate.md", checker.Doc{
		Title: "KubeProxyIPVS feature gate set: it only defers the end of ipvs mode",
		Before: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
featureGates:
  KubeProxyIPVS: true
mode: ipvs
`,
		After: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: nftables
`,
		Since: "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Remove a ` + "`KubeProxyIPVS`" + ` setting that has no effect because the mode is not ipvs: the ` + "`--feature-gates`" + ` entry, the whole flag when it sets nothing else, or the ` + "`featureGates`" + ` key.`, Safety: checker.Safe, Preferred: true},
			{Text: `Remove a setting that makes kube-proxy exit (the gate does not exist at the target, ` + "`SupportIPVSProxyMode`" + `) or that does nothing once the ipvs code is gone (1.43).`, Safety: checker.Unsafe, Preferred: true},
		},
		SeverityText: "warning for `KubeProxyIPVS: true` from target 1.37 to 1.45; error for `KubeProxyIPVS` set at targets before 1.37 or from 1.46 (no such gate) or to a non-boolean value; error for `SupportIPVSProxyMode`",
	}),
	Run: runKP104,

	// KubeProxyIPVS: true is a warning while the gate exists (1.37 to 1.45), an error before
	// (no such gate yet) and after (removed): what `rules` shows at a target.
	SeverityAt: func(t checker.Version) checker.Severity {
		if t.AtLeast(37) && !t.AtLeast(46) {
			return checker.SeverityWarning
		}
		return checker.SeverityError
	},
}

func runKP104(p *checker.Pass) error {
	seen := findingKeys{}
	for _, in := range p.Workspace.Instances {
		p := p.ForInstance(in)
		for _, g := range in.FeatureGates() {
			if !isIPVSGate(g.Name) {
				continue
			}
			sev, msg, removable, safe := kp104Check(p.Target(), in, g)
			if msg == "" {
				continue
			}
			f := checker.Finding{Severity: sev, Message: msg, Related: instanceRelated(in)}
			var fix checker.Fix
			var canFix bool
			if g.Flag != nil {
				f, fix, canFix = kp104Flag(f, g)
			} else {
				f.Object, f.Path = g.Doc.Ref(), g.Path
				var ok bool
				if f.Pos, f.End, ok = g.Doc.KeyPos(g.Path); !ok {
					continue
				}
				fix, canFix = kp104RemoveKey(g.Doc, g.Name)
			}
			if removable && canFix {
				if safe {
					fix.Safety = checker.Safe
				}
				f.Fixes = []checker.Fix{fix}
			}
			if seen.first(f.Pos, f.Message) {
				p.Report(f)
			}
		}
	}
	return nil
}

// kp104Check returns the severity and message for gate setting g (empty message when it is
// fine), whether the fix may remove the setting, and whether that keeps what runs (the gate
// has no effect because the mode is not ipvs).
func kp104Check(t checker.Version, in *checker.Instance, g checker.GateSetting) (checker.Severity, string, bool, bool) {
	const exits = "kube-proxy exits at startup on an unknown feature gate"
	if g.Name == gateSupportIPVSProxyMode {
		return checker.SeverityError, "feature gate SupportIPVSProxyMode was removed in 1.20: " + exits + "; ipvs is selected with the mode alone", true, false
	}
	switch {
	case g.Invalid:
		return checker.SeverityError, fmt.Sprintf("feature gate KubeProxyIPVS has the non-boolean value %q: kube-proxy exits at startup", g.Raw), false, false
	case !t.AtLeast(37):
		return checker.SeverityError, fmt.Sprintf("feature gate KubeProxyIPVS does not exist before 1.37 (target %s): %s", t, exits), true, false
	case t.AtLeast(46):
		return checker.SeverityError, fmt.Sprintf("feature gate KubeProxyIPVS was removed in 1.46 (target %s): %s", t, exits), true, false
	case !g.Value:
		// Harmless unless the mode is ipvs, which KP103 reports.
		return checker.SeverityNone, "", false, false
	}
	if m := in.Mode(t); m.Origin != checker.OriginUnknown && strings.ToLower(strings.TrimSpace(m.Value)) != checker.ModeIPVS {
		// A gate of a mode that does not run does nothing, before or after the upgrade.
		return checker.SeverityWarning, fmt.Sprintf("feature gate KubeProxyIPVS=true has no effect: the mode at target %s is %s, not ipvs; setting the gate is fatal from 1.46", t, m.Value), true, todayMode(m, runsOnWindows(in)) != checker.ModeIPVS
	}
	switch {
	case t.AtLeast(43):
		return checker.SeverityWarning, fmt.Sprintf("feature gate KubeProxyIPVS=true has no effect at target %s: the ipvs code is removed in 1.43; setting the gate is fatal from 1.46", t), true, false
	case t.AtLeast(40):
		return checker.SeverityWarning, fmt.Sprintf("feature gate KubeProxyIPVS=true keeps ipvs mode starting at target %s only until 1.43, when the ipvs code is removed", t), false, false
	}
	return checker.SeverityWarning, fmt.Sprintf("feature gate KubeProxyIPVS=true only defers the end of ipvs mode: it keeps ipvs starting in 1.40–1.42, but from 1.43 no gate brings ipvs back (target %s)", t), false, false
}

// kp104Flag positions f at gate g's entry inside its --feature-gates value and returns a fix
// that deletes the entry (or the whole flag when it is the only entry).
func kp104Flag(f checker.Finding, g checker.GateSetting) (checker.Finding, checker.Fix, bool) {
	fl := g.Flag
	f.Pos, f.End, f.Object, f.Path = fl.Pos, fl.End, fl.Doc.Ref(), fl.NodePath
	if fl.Doc == nil {
		return kp104TextFlag(f, g)
	}
	d := fl.Doc
	n, from, to, ok := flagValueSpan(fl)
	if !ok {
		return f, checker.Fix{}, false
	}
	type entry struct{ from, to int }
	var entries []entry
	hit := -1
	val := n.Value
	for _, e := range commaEntries(val, from, to) {
		name, _, _ := strings.Cut(val[e[0]:e[1]], "=")
		if strings.TrimSpace(name) == g.Name && hit < 0 {
			hit = len(entries)
		}
		entries = append(entries, entry{e[0], e[1]})
	}
	if hit < 0 {
		return f, checker.Fix{}, false
	}
	e := entries[hit]
	f.Pos, f.End = d.SubPos(n, e.from, e.to)
	msg := "Remove " + g.Name + " from --feature-gates"
	if len(entries) == 1 {
		if len(fl.Remove) == 0 {
			return f, checker.Fix{}, false
		}
		return f, checker.Fix{Message: "Remove the --feature-gates flag, which only sets " + g.Name, Edits: fl.Remove}, true
	}
	var delFrom, delTo int
	if hit+1 < len(entries) {
		delFrom, delTo = e.from, entries[hit+1].from
	} else {
		delFrom, delTo = strings.LastIndexByte(val[:e.from], ','), e.to
	}
	p, q := d.SubPos(n, delFrom, delTo)
	return f, checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: p, End: q}}}, true
}

// kp104RemoveKey returns a fix deleting the line of featureGates.<name> in doc (and the
// featureGates line when nothing else is left under it), for block mappings only.
func kp104RemoveKey(doc *checker.Document, name string) (checker.Fix, bool) {
	gk, gates := doc.Lookup(checker.Path{"featureGates"})
	if gk == nil || gates == nil || gates.Kind != yaml.MappingNode || gates.Style&yaml.FlowStyle != 0 {
		return checker.Fix{}, false
	}
	var k, v *yaml.Node
	for i := 0; i+1 < len(gates.Content); i += 2 {
		if gates.Content[i].Value == name {
			k, v = gates.Content[i], gates.Content[i+1]
		}
	}
	if k == nil || v.Kind != yaml.ScalarNode {
		return checker.Fix{}, false
	}
	f := doc.File.Outer()
	kp, ve := doc.NodePos(k), doc.NodeEnd(v)
	if kp.Line != ve.Line {
		return checker.Fix{}, false
	}
	if _, ok := blankPrefix(f, kp); !ok {
		return checker.Fix{}, false
	}
	lineEnd := f.Lines.LineStart(kp.Line + 1)
	if rest := strings.TrimSpace(string(f.Content[ve.Offset:lineEnd])); rest != "" && !strings.HasPrefix(rest, "#") {
		return checker.Fix{}, false
	}
	start := f.Lines.LineStart(kp.Line)
	gp, ge := doc.NodePos(gk), doc.NodeEnd(gk)
	if len(gates.Content) == 2 && gp.Line == kp.Line-1 {
		rest := strings.TrimSpace(string(f.Content[ge.Offset:f.Lines.LineStart(gp.Line+1)]))
		if _, ok := blankPrefix(f, gp); ok && (rest == ":" || strings.HasPrefix(rest, ":") && strings.HasPrefix(strings.TrimSpace(rest[1:]), "#")) {
			start = f.Lines.LineStart(gp.Line)
		}
	}
	return checker.Fix{
		Message: "Remove the " + name + " feature gate setting",
		Edits:   []checker.TextEdit{{Pos: f.Lines.Position(f.Path, start), End: f.Lines.Position(f.Path, lineEnd)}},
	}, true
}
