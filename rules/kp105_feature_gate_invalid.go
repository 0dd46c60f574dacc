package rules

import (
	"fmt"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// KP105 flags feature gates that make kube-proxy exit at the target version: unknown or removed
// gates, gates set to the other value of their lock, and values that are not booleans.
var KP105 = &checker.Rule{
	ID:       "KP105",
	Name:     "feature-gate-invalid",
	Severity: checker.SeverityError,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap", "DaemonSet", "Pod"},
	Doc: withProse("kp105_feature_gate_invalid.md", checker.Doc{
		Title: "feature gate unknown, removed or locked at the target version: kube-proxy exits",
		Before: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
featureGates:
  NFTablesProxyMode: true
  KubeProxyNFTablesLocalhostNodeports: true
mode: nftables
`,
		After: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
featureGates:
  KubeProxyNFTablesLocalhostNodePorts: true
mode: nftables
`,
		Since: "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: "Remove a gate that kube-proxy no longer knows when it is set to the value it was locked to (`NFTablesProxyMode: true`): it has no effect where the gate exists.", Safety: checker.Safe, Preferred: true},
			{Text: "Remove any other rejected gate setting (unknown name, a gate of a later release, a locked gate set to its other value, a value that is not a boolean): kube-proxy exits on it, so the fix changes what runs.", Safety: checker.Unsafe, Preferred: true},
		},
		SeverityText: "error; warning for a name that is in no release up to 1.37 and not close to a known gate, at a target after 1.37 (it may be a gate added later)",
	}),
	Run: runKP105,
}

func runKP105(p *checker.Pass) error {
	seen := reportOnce{}
	for _, in := range p.Workspace.Instances {
		p := p.ForInstance(in)
		report := func(f checker.Finding) {
			if seen.first(f) {
				p.Report(f)
			}
		}
		if in.Installer != nil {
			kp105InstallerGates(p, in, report)
		}
		if in.HasConfigFlag() {
			if in.Config != nil {
				kp105Config(p, in.Config, report)
			}
			continue
		}
		for i := range in.Flags {
			if in.Flags[i].Name == "feature-gates" {
				kp105Flag(p, &in.Flags[i], report)
			}
		}
	}
	return nil
}

// kp105Skip reports whether KP104 owns the gate.
func kp105Skip(name string) bool { return name == "KubeProxyIPVS" || name == "SupportIPVSProxyMode" }

// kp105Config checks the featureGates map of a KubeProxyConfiguration.
func kp105Config(p *checker.Pass, doc *checker.Document, report func(checker.Finding)) {
	path := checker.Path{"featureGates"}
	_, m := doc.Lookup(path)
	if m == nil || m.ShortTag() == "!!null" {
		return
	}
	if m.Kind != yaml.MappingNode {
		pos, end, _ := doc.ValuePos(path)
		report(checker.Finding{Severity: checker.SeverityError, Pos: pos, End: end, Object: doc.Ref(), Path: path,
			Message: fmt.Sprintf("featureGates is %s, not a map of gate names to true or false: kube-proxy cannot decode the configuration and exits", kp105Describe(m))})
		return
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		name := k.Value
		if kp105Skip(name) {
			continue
		}
		gpath := path.Append(name)
		value, known := false, true
		switch {
		case v.Kind == yaml.ScalarNode && v.ShortTag() == "!!null":
			// null decodes as false.
		default:
			var ok bool
			if value, ok = yaml11Bool(v); !ok {
				known = false
				report(checker.Finding{Severity: checker.SeverityError, Pos: doc.NodePos(v), End: doc.NodeEnd(v), Object: doc.Ref(), Path: gpath,
					Message: fmt.Sprintf("feature gate %s is set to %s, not to true or false: kube-proxy cannot decode the configuration and exits", name, kp105Describe(v))})
			}
		}
		sev, msg, onValue := kp105Check(p.Target(), name, value, known)
		if msg == "" {
			continue
		}
		n := k
		if onValue {
			n = v
		}
		f := checker.Finding{Severity: sev, Message: msg, Pos: doc.NodePos(n), End: doc.NodeEnd(n), Object: doc.Ref(), Path: gpath}
		if fix, ok := kp104RemoveKey(doc, name); ok {
			f.Fixes = []checker.Fix{kp105Removal(p.Target(), name, value, known, fix)}
		}
		report(f)
	}
}

// kp105Describe says what a non-boolean node holds, for messages.
func kp105Describe(n *yaml.Node) string {
	switch {
	case n.Kind == yaml.MappingNode:
		return "a map"
	case n.Kind == yaml.SequenceNode:
		return "a list"
	case n.Kind != yaml.ScalarNode:
		return "not a value"
	case n.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		return fmt.Sprintf("the string %q", n.Value)
	}
	return strconv.Quote(n.Value)
}

// kp105Flag checks the entries of a --feature-gates flag that kube-proxy honours.
func kp105Flag(p *checker.Pass, fl *checker.Flag, report func(checker.Finding)) {
	for _, it := range flagListItems(fl) {
		f := checker.Finding{Severity: checker.SeverityError, Pos: it.Pos, End: it.End, Object: fl.Doc.Ref(), Path: fl.NodePath}
		name, raw, hasEq := strings.Cut(it.Text, "=")
		name, raw = strings.TrimSpace(name), strings.TrimSpace(raw)
		if kp105Skip(name) || text.HasPlaceholder(it.Text) {
			continue // a placeholder is unknown, never invalid
		}
		if !hasEq {
			f.Message = fmt.Sprintf("--feature-gates entry %q has no =true or =false: kube-proxy rejects the flag and exits", it.Text)
			report(f)
			continue
		}
		value, err := strconv.ParseBool(raw)
		known := err == nil
		if !known {
			f.Message = fmt.Sprintf("feature gate %s is set to %q, not to true or false: kube-proxy rejects --feature-gates and exits", name, raw)
			report(f)
		}
		if sev, msg, _ := kp105Check(p.Target(), name, value, known); msg != "" {
			f.Severity, f.Message = sev, msg
			g := checker.GateSetting{Name: name, Value: value, Setting: checker.Setting{Flag: fl}}
			var fix checker.Fix
			var ok bool
			if fl.Doc != nil {
				_, fix, ok = kp104Flag(f, g)
			} else {
				_, fix, ok = kp104TextFlag(f, g)
			}
			if ok {
				f.Fixes = []checker.Fix{kp105Removal(p.Target(), name, value, known, fix)}
			}
			report(f)
		}
	}
}

// kp105Removal marks the fix that removes gate name. Removing a gate that was removed from
// kube-proxy, set to the value it was locked to before, changes nothing where the gate
// exists and stops the exit where it does not: safe. Any other removal changes what runs (an
// unknown name, a gate of a later release, a locked gate set to the other value).
func kp105Removal(t checker.Version, name string, value, known bool, fix checker.Fix) checker.Fix {
	if g, ok := lookupGate(name); ok && known && g.Locked != 0 && g.Removed != 0 && t.AtLeast(g.Removed) && value == g.LockedTo {
		fix.Safety = checker.Safe
	}
	return fix
}

// kp105Check returns the severity and message for gate name set to value at target (empty
// message when kube-proxy accepts it), and whether the problem is the value rather than the name.
func kp105Check(t checker.Version, name string, value, valueKnown bool) (checker.Severity, string, bool) {
	const exits = `kube-proxy exits with "unrecognized feature gate"`
	v := t.Minor
	if t.Major > 1 {
		v = 1 << 20
	}
	g, ok := lookupGate(name)
	if !ok {
		if v < gateTableFloor {
			return checker.SeverityNone, "", false
		}
		if s := suggestGate(name, func(g *gateInfo) bool { return g.knownAt(v) }); s != "" {
			if strings.EqualFold(s, name) {
				return checker.SeverityError, fmt.Sprintf("unknown feature gate %s: gate names are case-sensitive and %s; did you mean %s?", name, exits, s), false
			}
			return checker.SeverityError, fmt.Sprintf("unknown feature gate %s: %s; did you mean %s?", name, exits, s), false
		}
		if s := suggestGate(name, func(g *gateInfo) bool { return g.Added <= v }); s != "" {
			g, _ := lookupGate(s)
			return checker.SeverityError, fmt.Sprintf("unknown feature gate %s: %s; it resembles %s, which was removed in 1.%d", name, exits, s, g.Removed), false
		}
		if v > gateTableComplete {
			return checker.SeverityWarning, fmt.Sprintf("unknown feature gate %s: no Kubernetes release up to 1.%d has it; unless it was added later, %s", name, gateTableComplete, exits), false
		}
		return checker.SeverityError, fmt.Sprintf("unknown feature gate %s: no Kubernetes %s component has it and %s", name, t, exits), false
	}
	switch {
	case g.Removed != 0 && v >= g.Removed:
		return checker.SeverityError, fmt.Sprintf("feature gate %s was removed in 1.%d: at target %s %s", name, g.Removed, t, exits), false
	case v < g.Added:
		return checker.SeverityError, fmt.Sprintf("feature gate %s does not exist before 1.%d: at target %s %s", name, g.Added, t, exits), false
	case valueKnown && g.lockedAt(v) && value != g.LockedTo:
		return checker.SeverityError, fmt.Sprintf("feature gate %s is locked to %t since 1.%d: setting it to %t makes kube-proxy exit at target %s", name, g.LockedTo, g.Locked, value, t), true
	}
	return checker.SeverityNone, "", false
}
