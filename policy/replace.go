package policy

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// replacements maps the workspace's replacement signs (checker.Workspace.Replaced, the one
// implementation the engine's quiet step also uses) to the view.
func (c *viewCtx) replacements() []Replacement {
	rp := c.ws.Replaced()
	out := make([]Replacement, 0, len(rp.All))
	for i := range rp.All {
		r := &rp.All[i]
		v := Replacement{By: r.By, Message: r.Message, Path: r.Path, Location: loc(r.Pos, r.End),
			Conflicting: rp.Conflicting[i], Unit: checker.UnitOf(r.File), Managed: r.Managed}
		v.Doc, v.File, v.Scope = c.docRefPtr(r.Doc), r.File, c.scope(r.File)
		if r.Workload != nil {
			v.Workload = docID(r.Workload)
		}
		if r.Instance != nil {
			v.Installer = r.Instance.Label
		}
		out = append(out, v)
	}
	return out
}

// installerView is the installer object of an installer instance.
func installerView(c *viewCtx, in *checker.Instance, target checker.Version) *InstallerView {
	ins := in.Installer
	if ins == nil {
		return nil
	}
	v := &InstallerView{
		Name: ins.Name, ModeKey: ins.ModeKey, DefaultMode: ins.DefaultMode(target),
		Mode: c.installerSetting(ins.Mode), Disabled: c.installerSetting(ins.Disabled),
		IPVS: []InstallerSettingView{}, Anchor: loc(ins.Anchor, ins.AnchorEnd),
		Remains: in.KubeProxyRemains(),
	}
	if ins.Doc != nil {
		v.Doc = docID(ins.Doc)
	}
	if ins.File != nil {
		v.File = ins.File.Outer().Path
	}
	for i := range ins.IPVS {
		v.IPVS = append(v.IPVS, *c.installerSetting(&ins.IPVS[i]))
	}
	return v
}

func (c *viewCtx) installerSetting(s *checker.InstallerSetting) *InstallerSettingView {
	if s == nil {
		return nil
	}
	v := &InstallerSettingView{Key: s.Key, Value: s.Value, Normalized: s.Normalized,
		Placeholder: s.Placeholder, Location: loc(s.Pos, s.End), ValueLocation: loc(s.ValuePos, s.ValueEnd)}
	if s.Doc != nil {
		d, p := c.listed(s.Doc, s.Path)
		v.Doc, v.Path = docID(d), p
	}
	return v
}

// listed returns the nearest document that policies are evaluated on, and the path into it:
// an installer may decode a string value as a document of its own (EKS configurationValues)
// that the workspace does not list, and then the setting is at the string in the outer
// document (Location still spans the setting itself).
func (c *viewCtx) listed(d *checker.Document, p checker.Path) (*checker.Document, checker.Path) {
	if c.docs == nil {
		c.docs = make(map[*checker.Document]bool, len(c.ws.Docs))
		for _, x := range c.ws.Docs {
			c.docs[x] = true
		}
	}
	for !c.docs[d] && d.Parent != nil {
		d, p = d.Parent, d.ParentPath
	}
	return d, p
}
