package load

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// quoteSpans sets the token span of every quoted installer setting: the value with its quotes,
// where findings point, while ValuePos keeps the inside for edits that keep the quoting. One
// pass for every installer and source format (YAML, INI, Terraform, Bicep, install lines).
func quoteSpans(ws *checker.Workspace) {
	files := map[string]*checker.File{}
	for _, f := range ws.Files {
		if f.Parent == nil {
			files[f.Path] = f
		}
	}
	set := func(s *checker.InstallerSetting) {
		if s == nil || !s.ValuePos.IsValid() || s.ValueEnd.Filename != s.ValuePos.Filename {
			return
		}
		f := files[s.ValuePos.Filename]
		if f == nil {
			return
		}
		c := f.Content
		from, to := s.ValuePos.Offset, s.ValueEnd.Offset
		if from < 1 || to >= len(c) || to < from {
			return
		}
		if q := c[from-1]; (q == '"' || q == '\'') && c[to] == q {
			s.TokenPos, s.TokenEnd = f.PositionAt(from-1), f.PositionAt(to+1)
		}
	}
	for _, in := range ws.Instances {
		ins := in.Installer
		if ins == nil {
			continue
		}
		set(ins.Mode)
		set(ins.Disabled)
		set(ins.NodePortAddresses)
		for i := range ins.IPVS {
			set(&ins.IPVS[i])
		}
		for i := range ins.Gates {
			set(ins.Gates[i].Installer)
		}
	}
}
