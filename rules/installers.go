package rules

import (
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Shared helpers for rules that speak through installer configurations (kind, kops,
// kubespray, k3s, Talos, EKS, Gardener, AKS; see checker.Installer).

// installerOnly reports whether in is an installer instance whose mode comes from the
// installer's own settings rather than from an embedded KubeProxyConfiguration (kubeadm's
// document is checked like any configuration).
func installerOnly(in *checker.Instance) bool {
	return in.Installer != nil && in.Config == nil
}

// installerFinding builds a finding at an installer setting, or at the installer's anchor
// when s is nil.
func installerFinding(in *checker.Instance, s *checker.InstallerSetting, atValue bool, sev checker.Severity, msg string) checker.Finding {
	ins := in.Installer
	f := checker.Finding{Severity: sev, Message: msg, Pos: ins.Anchor, End: ins.AnchorEnd}
	if ins.Doc != nil {
		f.Object = ins.Doc.Ref()
	}
	if s != nil {
		f.Pos, f.End = s.Pos, s.End
		if atValue && s.ValuePos.IsValid() {
			f.Pos, f.End = s.Span()
		}
		if s.Doc != nil {
			f.Object, f.Path = s.Doc.Ref(), s.Path
		}
	}
	return f
}

// installerModeSource describes where an installer instance's mode comes from, in the
// installer's own words: "kind networking.kubeProxyMode is ipvs", "kubespray does not set
// kube_proxy_mode and kubespray's role default for kube_proxy_mode is ipvs".
func installerModeSource(in *checker.Instance, m checker.Setting, t checker.Version) string {
	ins := in.Installer
	switch {
	case m.Flag != nil:
		return fmt.Sprintf("%s passes proxy-mode=%s to kube-proxy", ins.Name, m.Flag.Value)
	case m.Installer != nil:
		return fmt.Sprintf("%s %s is %s", ins.Name, ins.ModeKey, m.Installer.Value)
	}
	return fmt.Sprintf("%s does not set %s, and %s (%s at target %s)", ins.Name, ins.ModeKey, ins.DefaultWhy, ins.DefaultMode(t), t)
}

// installerModeFix returns a fix that sets the installer's explicit mode (setting or
// proxy-mode flag) to kube-proxy mode to, in the installer's spelling.
func installerModeFix(in *checker.Instance, m checker.Setting, to string) (checker.Fix, bool) {
	ins := in.Installer
	switch {
	case m.Flag != nil:
		return replaceFlagValueFix(m.Flag, to, "Set proxy-mode to "+to)
	case m.Installer != nil:
		spelled := ins.ModeSpelling(to)
		if spelled == "" {
			return checker.Fix{}, false
		}
		e, ok := m.Installer.ValueEdit(spelled)
		if !ok {
			return checker.Fix{}, false
		}
		return checker.Fix{Message: fmt.Sprintf("Set %s to %s", ins.ModeKey, spelled), Edits: []checker.TextEdit{e}}, true
	}
	return checker.Fix{}, false
}

// installerModeAccepted lists the installer's mode values for messages.
func installerModeAccepted(ins *checker.Installer) string {
	return strings.Join(ins.Accepted(), ", ")
}

// reportInstallerMode reports a finding about the mode of installer instance in at the
// mode's source: the proxy-mode flag, the installer's mode value, or the anchor for a default.
func reportInstallerMode(p *checker.Pass, in *checker.Instance, m checker.Setting, sev checker.Severity, msg string, fixes ...checker.Fix) {
	var f checker.Finding
	if m.Flag != nil {
		fl := m.Flag
		f = checker.Finding{Severity: sev, Message: msg, Pos: fl.Pos, End: fl.End, Object: fl.Doc.Ref(), Path: fl.NodePath, Related: append([]checker.Related(nil), fl.Via...)}
	} else {
		f = installerFinding(in, m.Installer, true, sev, msg)
	}
	f.Fixes = fixes
	p.Report(f)
}

// kubeadmProxyDoc is the document the KP101 fix appends to a kubeadm configuration.
const kubeadmProxyDoc = "---\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: %s\n"

// kp101Installer reports an installer instance whose mode is the installer's default when
// that default changes with the target version (kubeadm without a KubeProxyConfiguration).
func kp101Installer(p *checker.Pass, in *checker.Instance, seen findingKeys) {
	m := in.Mode(p.Target())
	if m.Origin != checker.OriginInstallerDefault {
		return
	}
	ins := in.Installer
	before, at, changes := ins.DefaultChanges(p.Target())
	if !changes || hasProxyConfigInScope(p.Workspace, in) {
		return
	}
	sev := checker.SeverityWarning
	var msg string
	subject := fmt.Sprintf("%s does not set %s", ins.Describe(), ins.ModeKey)
	if ins.Name == checker.InstallerKubeadm {
		subject = "kubeadm config has no KubeProxyConfiguration document"
	}
	if at != before {
		sev = checker.SeverityError
		msg = fmt.Sprintf("%s, so %s writes the default mode %s from 1.40 instead of %s (its default through 1.39): the data plane changes", subject, ins.Name, at, before)
	} else {
		msg = fmt.Sprintf("%s, so kube-proxy runs %s's default %s; the default becomes nftables in 1.40", subject, ins.Name, at)
	}
	f := installerFinding(in, nil, false, sev, msg)
	if ins.Name == checker.InstallerKubeadm && ins.Doc != nil && ins.Doc.Parent == nil && kp101CanAppend(ins.Doc.File) {
		file := ins.Doc.File
		for _, fx := range [][2]string{{checker.ModeIPTables, kp101FixIPTables}, {checker.ModeNFTables, kp101FixNFTables}} {
			text := fmt.Sprintf(kubeadmProxyDoc, fx[0])
			if n := len(file.Content); n > 0 && file.Content[n-1] != '\n' {
				text = "\n" + text
			}
			end := file.PositionAt(len(file.Content))
			f.Fixes = append(f.Fixes, kp101Fix(fx[0], checker.Fix{Message: fx[1] + " in a KubeProxyConfiguration document", Edits: []checker.TextEdit{{Pos: end, End: end, NewText: text}}}))
		}
	}
	if seen.first(f.Pos, f.Message) {
		p.Report(f)
	}
}

// kp101CanAppend reports whether a document can be appended at the end of file f: a real
// file, or the heredoc body of a script (the end maps to the start of the delimiter line). A
// heredoc of a script inside YAML (a CI step) would need the YAML's indentation: no fix; nor
// would a Terraform heredoc whose body is indented (<<-EOT strips the common indentation, which
// an unindented document would cancel).
func kp101CanAppend(f *checker.File) bool {
	if f.Parent != nil && strings.HasSuffix(strings.ToLower(f.Parent.Path), ".tf") && len(f.ParentOffsets) > 0 {
		return f.Parent.Parent == nil && f.Parent.PositionAt(f.ParentOffsets[0]).Column == 1
	}
	return f.Parent == nil || f.Parent.Parent == nil && f.Parent.Format == checker.FormatText
}

// hasProxyConfigInScope reports whether the scope of installer instance in also holds a
// kube-proxy that is not an installer's (a ConfigMap, a DaemonSet): that one is what the
// cluster runs, and KP205/KP106 compare the two.
func hasProxyConfigInScope(ws *checker.Workspace, in *checker.Instance) bool {
	if in.Source == nil {
		return false
	}
	for _, o := range ws.Instances {
		if o.Installer == nil && o.Kind != checker.InstanceCommand && (o.Workload != nil || o.Config != nil) {
			if ws.SameScope(in.Source.Path, installerScopeFile(o)) {
				return true
			}
		}
	}
	return false
}

// installerScopeFile returns the path of the real file that holds an instance.
func installerScopeFile(in *checker.Instance) string {
	switch {
	case in.Workload != nil:
		return in.Workload.File.Outer().Path
	case in.Config != nil:
		return in.Config.File.Outer().Path
	case in.Source != nil:
		return in.Source.Path
	}
	return ""
}

// kp102Installer reports ipvs mode set by (or defaulted by) an installer.
func kp102Installer(p *checker.Pass, in *checker.Instance, m checker.Setting, sev checker.Severity, msg string) {
	var fixes []checker.Fix
	for _, mode := range []string{checker.ModeNFTables, checker.ModeIPTables} {
		fx, ok := installerModeFix(in, m, mode)
		if !ok && m.Origin == checker.OriginInstallerDefault {
			fx, ok = kubesprayModeFix(p.Workspace, in, mode)
		}
		if !ok {
			fx, ok = setModeFix(in, mode)
		}
		if ok {
			fx.Preferred = mode == checker.ModeNFTables
			fixes = append(fixes, fx)
		}
	}
	reportInstallerMode(p, in, m, sev, installerModeSource(in, m, p.Target())+": "+msg, fixes...)
}

// kp103Installer reports an installer mode value outside the installer's vocabulary.
func kp103Installer(p *checker.Pass, in *checker.Instance, m checker.Setting, seen findingKeys) {
	s := m.Installer
	ins := in.Installer
	if s == nil || s.Placeholder || s.Normalized != "" {
		return
	}
	if _, ok := ins.ModeValue(s.Value); ok {
		return // "none" style values: disabled, not invalid
	}
	msg := fmt.Sprintf("%s %s %q is not a mode %s accepts (%s)", ins.Name, ins.ModeKey, s.Value, ins.Name, installerModeAccepted(ins))
	var fixes []checker.Fix
	for _, v := range ins.Accepted() {
		if strings.EqualFold(v, strings.TrimSpace(s.Value)) {
			msg += "; modes are case-sensitive: use " + v
			if e, ok := s.ValueEdit(v); ok {
				// kube-proxy (or the installer) rejects the value today: any repair changes
				// what runs.
				fixes = append(fixes, checker.Fix{Message: "Change " + ins.ModeKey + " to " + v, Edits: []checker.TextEdit{e}, Preferred: len(fixes) == 0})
			}
		}
	}
	if strings.EqualFold(s.Value, "userspace") {
		msg += "; userspace was removed in 1.26"
	}
	f := installerFinding(in, s, true, checker.SeverityError, msg)
	f.Fixes = fixes
	if seen.first(f.Pos, f.Message) {
		p.Report(f)
	}
}

// kp202Installer reports installer ipvs knobs and ipvs-* extra args of an installer whose
// kube-proxy does not run in ipvs mode.
func kp202Installer(p *checker.Pass, in *checker.Instance) {
	if in.IsDisabled() {
		return
	}
	m := in.Mode(p.Target())
	if !ipvsUnused(m) {
		return
	}
	ins := in.Installer
	reason := installerModeSource(in, m, p.Target())
	for i := range ins.IPVS {
		s := &ins.IPVS[i]
		msg := fmt.Sprintf("%s %s %s has no effect: %s, and only ipvs mode reads it", ins.Name, s.Key, s.Value, reason)
		f := installerFinding(in, s, false, checker.SeverityWarning, msg)
		if len(s.Remove) > 0 {
			f.Fixes = []checker.Fix{{Message: "Delete " + s.Key, Edits: s.Remove, Safety: checker.Safe}}
		}
		p.Report(f)
	}
	for i := range in.Flags {
		fl := &in.Flags[i]
		if !ipvsFlags[fl.Name] {
			continue
		}
		msg := fmt.Sprintf("%s=%s has no effect: %s, and --ipvs-* flags apply only in ipvs mode", fl.Name, fl.Value, reason)
		var fixes []checker.Fix
		if len(fl.Remove) > 0 {
			fixes = append(fixes, checker.Fix{Message: "Remove " + fl.Name, Edits: fl.Remove, Safety: checker.Safe})
		}
		p.ReportFlag(fl, checker.SeverityWarning, msg, fixes...)
	}
}

// kp105InstallerGates checks feature gates set through installer fields (kops and Gardener
// featureGates); gates in extra args are flags and checked as such.
func kp105InstallerGates(p *checker.Pass, in *checker.Instance, report func(checker.Finding)) {
	for _, g := range in.Installer.Gates {
		if kp105Skip(g.Name) || g.Doc == nil {
			continue
		}
		sev, msg, _ := kp105Check(p.Target(), g.Name, g.Value, !g.Invalid)
		if msg == "" {
			continue
		}
		pos, end, ok := g.Doc.KeyPos(g.Path)
		if !ok {
			continue
		}
		report(checker.Finding{Severity: sev, Message: msg, Pos: pos, End: end, Object: g.Doc.Ref(), Path: g.Path})
	}
}

// setModeFix returns the installer's own edit for mode (Installer.SetMode), in its spelling.
func setModeFix(in *checker.Instance, mode string) (checker.Fix, bool) {
	ins := in.Installer
	spelled := ins.ModeSpelling(mode)
	if ins.SetMode == nil || spelled == "" {
		return checker.Fix{}, false
	}
	e, ok := ins.SetMode(spelled)
	if !ok {
		return checker.Fix{}, false
	}
	return checker.Fix{Message: fmt.Sprintf("Set %s to %s", ins.ModeKey, spelled), Edits: []checker.TextEdit{e}}, true
}

// kubesprayModeFix returns a fix that sets kube_proxy_mode where kubespray's role default
// (ipvs) applies because no inventory sets it: a new variable right above the first
// kube_proxy_* variable of the inventory (the finding's anchor), in the file's syntax
// ("kube_proxy_mode: nftables" in group_vars, "kube_proxy_mode=nftables" in an INI inventory).
func kubesprayModeFix(ws *checker.Workspace, in *checker.Instance, mode string) (checker.Fix, bool) {
	ins := in.Installer
	if ins.Name != checker.InstallerKubespray || !ins.Anchor.IsValid() || ins.Anchor.Column != 1 {
		return checker.Fix{}, false
	}
	f := ws.File(ins.Anchor.Filename)
	if f == nil {
		return checker.Fix{}, false
	}
	line := f.Lines.LineText(ins.Anchor.Line)
	key := strings.TrimLeft(line, "abcdefghijklmnopqrstuvwxyz_0123456789")
	sep := ": "
	switch t := strings.TrimLeft(key, " \t"); {
	case strings.HasPrefix(t, "="):
		sep = "="
	case !strings.HasPrefix(t, ":"):
		return checker.Fix{}, false
	}
	at := f.Lines.Position(f.Path, f.Lines.LineStart(ins.Anchor.Line))
	text := ins.ModeKey + sep + mode + outerEOL(f, ins.Anchor.Line)
	return checker.Fix{Message: fmt.Sprintf("Set %s to %s (kubespray's default is ipvs)", ins.ModeKey, mode),
		Edits: []checker.TextEdit{{Pos: at, End: at, NewText: text}}}, true
}
