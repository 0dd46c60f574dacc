package rules

import (
	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP101 flags kube-proxies whose mode comes from the default, which changes in 1.40.
var KP101 = &checker.Rule{
	ID:       "KP101",
	Name:     "mode-unset",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap", "DaemonSet", "Pod"},
	Doc: withProse("kp101_mode_unset.md", checker.Doc{
		Title: "kube-proxy mode is left to the default, which changes in 1.40",
		Before: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clusterCIDR: 10.244.0.0/16
`,
		After: `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: iptables
clusterCIDR: 10.244.0.0/16
`,
		Since: "0.1.0",
		Fixes: []checker.FixDoc{
			{Text: `Pin the mode that runs today: ` + "`mode: iptables`" + ` in the configuration (or a KubeProxyConfiguration document appended to a kubeadm config), ` + "`--proxy-mode=iptables`" + ` on a command line without ` + "`--config`" + `.`, Safety: checker.Safe, Preferred: true},
			{Text: `Set the mode to ` + "`nftables`" + `, the default from 1.40, instead.`, Safety: checker.Unsafe},
		},
		SeverityText: "warning up to target 1.39; error from target 1.40 on Linux, where the default switches the data plane from iptables to nftables",
	}),
	Run: runKP101,

	// An error from 1.40, where the default mode changes (what `rules` shows at a target).
	SeverityAt: checker.ErrorFrom(40),
}

// Fix messages of KP101; the first fix is the default.
const (
	kp101FixIPTables = "Pin mode to iptables, the default through 1.39 (keeps today's data plane)"
	kp101FixNFTables = "Set mode to nftables, the default from 1.40"
	kp101FlagIPT     = "Add --proxy-mode=iptables, the default through 1.39 (keeps today's data plane)"
	kp101FlagNFT     = "Add --proxy-mode=nftables, the default from 1.40"
)

// kp101Fix marks a KP101 fix: pinning iptables, the mode that runs today, changes nothing
// and is the preferred fix; nftables changes the data plane.
func kp101Fix(mode string, fix checker.Fix) checker.Fix {
	if mode == checker.ModeIPTables {
		fix.Safety, fix.Preferred = checker.Safe, true
	}
	return fix
}

// kp101NoProxyFlags make kube-proxy do something else than proxying and exit.
var kp101NoProxyFlags = []string{"cleanup", "version", "help", "h", "write-config-to"}

func runKP101(p *checker.Pass) error {
	seen := findingKeys{}
	for _, in := range p.Workspace.Instances {
		if runsOnWindows(in) || in.IsDisabled() {
			continue
		}
		p := p.ForInstance(in)
		sev := checker.SeverityWarning
		if p.Target().AtLeast(40) {
			sev = checker.SeverityError
		}
		if installerOnly(in) {
			kp101Installer(p, in, seen)
			continue
		}
		m := in.Mode(p.Target())
		if m.Origin != checker.OriginDefault || kp101NotProxying(in) {
			continue
		}
		var f checker.Finding
		var ok bool
		if m.Doc != nil {
			f, ok = kp101Config(p, m.Doc)
		} else {
			f, ok = kp101CommandLine(p, in)
		}
		if !ok || !seen.first(f.Pos, f.Message) {
			continue
		}
		f.Severity = sev
		f.Related = instanceRelated(in)
		p.Report(f)
	}
	return nil
}

func kp101NotProxying(in *checker.Instance) bool {
	if in.Workload == nil && in.Kind != checker.InstanceCommand {
		return false
	}
	for _, name := range kp101NoProxyFlags {
		if fl := in.Flag(name); fl != nil && fl.Value != "false" {
			return true
		}
	}
	return false
}

// kp101Default says (after a subject) which default kube-proxy uses at the target and the
// release that changes it; the cluster clause says which release the cluster is at.
func kp101Default(t checker.Version) string {
	if t.AtLeast(40) {
		return "runs the default nftables from 1.40 instead of iptables (the default through 1.39): the data plane changes"
	}
	return "runs the default iptables; the default becomes nftables in 1.40"
}

// kp101Config reports a KubeProxyConfiguration without a mode.
func kp101Config(p *checker.Pass, doc *checker.Document) (checker.Finding, bool) {
	mp := checker.Path{"mode"}
	k, v := doc.Lookup(mp)
	var pos, end checker.Position
	var what string
	switch {
	case k == nil || v == nil:
		pos, end = doc.KindPos()
		what = "mode is not set"
	case v.Kind != yaml.ScalarNode:
		// A mapping or sequence is a type error: KP001 reports the file.
		return checker.Finding{}, false
	case v.Value == "" && v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) == 0:
		// "mode:" with nothing after it: the key is the visible thing to point at.
		pos, end, _ = doc.KeyPos(mp)
		what = "mode is empty"
	case v.Value == "":
		pos, end, _ = doc.ValuePos(mp)
		what = `mode is ""`
	default:
		pos, end, _ = doc.ValuePos(mp)
		what = "mode is " + v.Value
	}
	f := checker.Finding{
		Message: what + ", so kube-proxy " + kp101Default(p.Target()),
		Pos:     pos, End: end, Object: doc.Ref(), Path: mp,
	}
	for _, fx := range [][2]string{{checker.ModeIPTables, kp101FixIPTables}, {checker.ModeNFTables, kp101FixNFTables}} {
		if fix, ok := pinModeFix(doc, fx[0], fx[1]); ok {
			f.Fixes = append(f.Fixes, kp101Fix(fx[0], fix))
		}
	}
	return f, true
}

// kp101CommandLine reports a kube-proxy command line with neither --config nor --proxy-mode
// (or an empty --proxy-mode).
func kp101CommandLine(p *checker.Pass, in *checker.Instance) (checker.Finding, bool) {
	if fl := in.Flag("proxy-mode"); fl != nil {
		f := checker.Finding{
			Message: "--proxy-mode is empty, so kube-proxy " + kp101Default(p.Target()),
			Pos:     fl.Pos, End: fl.End, Object: fl.Doc.Ref(), Path: fl.NodePath,
			Related: append([]checker.Related(nil), fl.Via...),
		}
		for _, fx := range [][2]string{{checker.ModeIPTables, kp101FixIPTables}, {checker.ModeNFTables, kp101FixNFTables}} {
			if fix, ok := replaceFlagValueFix(fl, fx[0], fx[1]); ok {
				f.Fixes = append(f.Fixes, kp101Fix(fx[0], fix))
			}
		}
		return f, true
	}
	if in.Kind == checker.InstanceCommand {
		return kp101TextCommand(p, in)
	}
	d := in.Workload
	if d == nil {
		return checker.Finding{}, false
	}
	f := checker.Finding{
		Message: "kube-proxy has neither --config nor --proxy-mode, so it " + kp101Default(p.Target()),
		Object:  d.Ref(),
	}
	a, ok := findKubeProxyArgv(in)
	switch {
	case !ok:
		f.Path = in.Container.Append("name")
		f.Pos, f.End, ok = d.KeyPos(f.Path)
		return f, ok
	case a.Script != nil:
		f.Path = in.Container.Append(a.Field, a.ScriptIndex)
		if from, to, found := shellProgramSpan(a.Script.Value); found {
			f.Pos, f.End = d.SubPos(a.Script, from, to)
		} else {
			f.Pos, f.End = d.NodePos(a.Script), d.NodeEnd(a.Script)
		}
		// No fix: editing a shell script safely needs its quoting and continuations.
		return f, true
	case a.Shell:
		f.Path = in.Container.Append(a.Field)
		f.Pos, f.End, ok = d.KeyPos(f.Path)
		return f, ok
	case a.Index >= 0:
		f.Path = in.Container.Append(a.Field, a.Index)
		n := a.Seq.Content[a.Index]
		f.Pos, f.End = d.NodePos(n), d.NodeEnd(n)
	default:
		// A kube-proxy image started with args only.
		f.Path = in.Container.Append(a.Field)
		f.Pos, f.End, _ = d.KeyPos(f.Path)
	}
	for _, fx := range [][2]string{{checker.ModeIPTables, kp101FlagIPT}, {checker.ModeNFTables, kp101FlagNFT}} {
		if e, ok := insertSeqItemEdit(d, a.Seq, a.Index, "--proxy-mode="+fx[0]); ok {
			f.Fixes = append(f.Fixes, kp101Fix(fx[0], checker.Fix{Message: fx[1], Edits: []checker.TextEdit{e}}))
		}
	}
	return f, true
}
