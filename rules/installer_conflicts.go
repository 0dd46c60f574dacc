package rules

import (
	"fmt"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Mode conflicts between an installer's settings and the installer's own extra args, or a
// kube-proxy ConfigMap or DaemonSet of the same cluster scope (KP106).

// kp106Installers reports installer settings that disagree with the installer's own extra
// args, or with a kube-proxy ConfigMap or DaemonSet of the same scope.
func kp106Installers(p *checker.Pass) {
	for _, in := range p.Workspace.Instances {
		if !installerOnly(in) || in.IsDisabled() {
			continue
		}
		p := p.ForInstance(in)
		ins := in.Installer
		fl := in.Flag("proxy-mode")
		if s := ins.Mode; s != nil && fl != nil && !s.Placeholder && fl.Value != "" && !text.HasPlaceholder(fl.Value) {
			if want := s.Normalized; want != "" && want != fl.Value {
				msg := fmt.Sprintf("proxy-mode=%s in the %s extra args conflicts with %s %s: the extra arg wins and kube-proxy runs in mode %s", fl.Value, ins.Name, ins.ModeKey, s.Value, fl.Value)
				f := checker.Finding{Message: msg, Pos: fl.Pos, End: fl.End, Object: fl.Doc.Ref(), Path: fl.NodePath,
					Related: []checker.Related{{Pos: s.Pos, End: s.End, Message: fmt.Sprintf("%s sets %s", ins.ModeKey, s.Value)}}}
				p.Report(f)
			}
		}
		if ins.Name == checker.InstallerKubeadm || in.Source == nil {
			continue // kubeadm vs its ConfigMap: kp106Kubeadm and KP205
		}
		im := in.Mode(p.Target())
		if im.Origin == checker.OriginUnknown || im.Value == "" {
			continue
		}
		for _, o := range p.Workspace.Instances {
			if o.Installer != nil || o.Kind == checker.InstanceCommand || runsOnWindows(o) {
				continue
			}
			if !p.Workspace.SameScope(in.Source.Path, installerScopeFile(o)) {
				continue
			}
			om := o.Mode(p.Target())
			if (om.Origin != checker.OriginConfig && om.Origin != checker.OriginFlag) || om.Value == im.Value {
				continue
			}
			rp, re := ins.Anchor, ins.AnchorEnd
			if pos, end, ok := im.Where(); ok {
				rp, re = pos, end
			}
			msg := fmt.Sprintf("kube-proxy mode %s here conflicts with the %s configuration in %s, where %s", om.Value, ins.Name, in.Source.Path, installerModeSource(in, im, p.Target()))
			f := checker.Finding{Message: msg, Related: []checker.Related{{Pos: rp, End: re, Message: installerModeSource(in, im, p.Target())}}}
			if om.Flag != nil {
				f.Pos, f.End, f.Object, f.Path = om.Flag.Pos, om.Flag.End, om.Flag.Doc.Ref(), om.Flag.NodePath
			} else if om.Doc != nil {
				var ok bool
				if f.Pos, f.End, ok = om.Doc.ValuePos(om.Path); !ok {
					continue
				}
				f.Object, f.Path = om.Doc.Ref(), om.Path
			}
			p.Report(f)
		}
	}
}
