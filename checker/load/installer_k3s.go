package load

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// k3s and RKE2: config.yaml and config.yaml.d/*.yaml (kube-proxy-arg lists, disable-kube-proxy)
// and install command lines (k3s server --kube-proxy-arg proxy-mode=ipvs,
// INSTALL_K3S_EXEC="... --kube-proxy-arg=proxy-mode=ipvs", --disable-kube-proxy) in scripts,
// cloud-init and other files. Both pass --proxy-mode=iptables to kube-proxy themselves.

func init() {
	docInstallers = append(docInstallers, k3sConfigInstances)
	wsInstallers = append(wsInstallers, k3sCommandInstances)
	nameFilters = append(nameFilters, func(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".sh") })
	textClassifiers = append(textClassifiers, isK3sCommandText)
}

var (
	k3sArgRe     = regexp.MustCompile(`--kube-proxy-arg(?:=|[ \t]+)(["']?)([^\s"'\\]+)`)
	k3sDisableRe = regexp.MustCompile(`--disable-kube-proxy\b(=\S+)?`)
	k3sMarkers   = [][]byte{[]byte("--kube-proxy-arg"), []byte("--disable-kube-proxy")}
)

func hasK3sMarker(b []byte) bool {
	for _, m := range k3sMarkers {
		if bytes.Contains(b, m) {
			return true
		}
	}
	return false
}

// isK3sCommandText claims scripts and other text files with k3s/RKE2 kube-proxy options.
func isK3sCommandText(name string, content []byte) bool {
	return !isYAMLName(name) && hasK3sMarker(content) && (bytes.Contains(content, []byte("k3s")) || bytes.Contains(content, []byte("rke2")))
}

func k3sName(file string, hasCNI bool) string {
	if strings.Contains(strings.ToLower(file), "rke2") || hasCNI {
		return checker.InstallerRKE2
	}
	return checker.InstallerK3s
}

func newK3sInstaller(name string, file *checker.File) *checker.Installer {
	return &checker.Installer{
		Name: name, File: file, ModeKey: "kube-proxy-arg proxy-mode",
		Modes: lowerModes, Defaults: fixedDefault(checker.ModeIPTables),
		DefaultWhy: name + " passes --proxy-mode=iptables to kube-proxy itself",
	}
}

func k3sConfigInstances(_ *checker.Workspace, d *checker.Document) []*checker.Instance {
	if d.Parent != nil || d.Kind != "" || d.APIVersion != "" {
		return nil
	}
	argKey := ""
	for _, k := range []string{"kube-proxy-arg", "kube-proxy-arg+"} {
		if d.Has(checker.Path{k}) {
			argKey = k
		}
	}
	if argKey == "" && !d.Has(checker.Path{"disable-kube-proxy"}) {
		return nil
	}
	ins := newK3sInstaller(k3sName(d.File.Path, d.Has(checker.Path{"cni"})), d.File.Outer())
	ins.Doc = d
	if argKey != "" {
		ins.Anchor, ins.AnchorEnd, _ = d.KeyPos(checker.Path{argKey})
	} else {
		ins.Anchor, ins.AnchorEnd, _ = d.KeyPos(checker.Path{"disable-kube-proxy"})
	}
	if s, b, ok := boolSetting(d, checker.Path{"disable-kube-proxy"}); ok && b {
		ins.Disabled = s
	}
	in := newInstallerInstance(ins, ins.Name+" config "+d.File.Path)
	if argKey != "" {
		in.Flags = seqFlags(d, checker.Path{argKey})
	}
	return []*checker.Instance{in}
}

// k3sCommandInstances finds install command lines: one instance per file.
func k3sCommandInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	for _, f := range ws.Files {
		if f.Parent != nil || !hasK3sMarker(f.Content) {
			continue
		}
		var flags []checker.Flag
		var disabled *checker.InstallerSetting
		var env map[string]envWord
		text := string(f.Content)
		for _, m := range k3sArgRe.FindAllStringSubmatchIndex(text, -1) {
			if commentedOut(text, m[0]) || !k3sContext(f, m[0]) {
				continue
			}
			if loc := k3dNodeFilterRe.FindStringIndex(text[m[4]:m[5]]); loc != nil {
				// k3d's --k3s-arg "--kube-proxy-arg=proxy-mode=ipvs@server:*": the node
				// filter is k3d's, not part of the value.
				m[5] = m[4] + loc[0]
			}
			arg := text[m[4]:m[5]]
			name, val, hasEq := strings.Cut(arg, "=")
			fl := checker.Flag{Name: strings.TrimLeft(name, "-"), Value: val, HasValue: hasEq}
			if !k3sLineContext(f, m[0]) {
				if use, ok := k3sVarUse(f, m[0]); ok {
					fl.Via = append(fl.Via, use)
				}
			}
			fl.Pos = f.Lines.Position(f.Path, m[4])
			fl.End = f.Lines.Position(f.Path, m[5])
			fl.ValuePos, fl.ValueEnd = fl.Pos, fl.End
			if hasEq {
				fl.ValuePos = f.Lines.Position(f.Path, m[4]+len(name)+1)
				k3sVarValue(f, &fl, &env)
			}
			flags = append(flags, fl)
		}
		for _, m := range k3sDisableRe.FindAllStringSubmatchIndex(text, -1) {
			if commentedOut(text, m[0]) || !k3sContext(f, m[0]) {
				continue
			}
			if m[2] >= 0 && strings.EqualFold(strings.Trim(text[m[2]+1:m[3]], `"'`), "false") {
				continue
			}
			disabled = &checker.InstallerSetting{Key: "--disable-kube-proxy", Value: text[m[0]:m[1]],
				Pos: f.Lines.Position(f.Path, m[0]), End: f.Lines.Position(f.Path, m[1])}
			disabled.ValuePos, disabled.ValueEnd = disabled.Pos, disabled.End
		}
		if len(flags) == 0 && disabled == nil {
			continue
		}
		ins := newK3sInstaller(k3sName(f.Path+" "+k3sLineText(f, flags, disabled), false), f)
		ins.Disabled = disabled
		if len(flags) > 0 {
			ins.Anchor, ins.AnchorEnd = flags[0].Pos, flags[0].End
		} else {
			ins.Anchor, ins.AnchorEnd = disabled.Pos, disabled.End
		}
		in := newInstallerInstance(ins, ins.Name+" command line in "+path.Clean(f.Path))
		in.Flags = flags
		out = append(out, in)
	}
	return out
}

// k3sLineText returns the text around the first finding, to tell k3s from RKE2.
func k3sLineText(f *checker.File, flags []checker.Flag, disabled *checker.InstallerSetting) string {
	line := 0
	if len(flags) > 0 {
		line = flags[0].Pos.Line
	} else if disabled != nil {
		line = disabled.Pos.Line
	}
	var b strings.Builder
	for l := max(1, line-5); l <= line; l++ {
		b.WriteString(f.Lines.LineText(l))
	}
	if strings.Contains(b.String(), "rke2") && !strings.Contains(b.String(), "k3s") {
		return "rke2"
	}
	return ""
}

// k3sContext reports whether the option at off belongs to a k3s or RKE2 command: the
// command (or the lines it continues) names k3s or rke2.
func k3sContext(f *checker.File, off int) bool {
	return k3sLineContext(f, off) || k3sWordContext(f, off)
}

// k3sLineContext is k3sContext for the option's own line and the lines it continues.
func k3sLineContext(f *checker.File, off int) bool {
	line := f.Lines.Position(f.Path, off).Line
	for l := line; l >= max(1, line-8); l-- {
		t := strings.ToLower(f.Lines.LineText(l))
		if l < line && !strings.HasSuffix(strings.TrimSpace(t), "\\") {
			return false
		}
		if strings.Contains(t, "k3s") || strings.Contains(t, "rke2") {
			return true
		}
	}
	return false
}

// commentedOut reports whether off is inside a # comment of its line.
func commentedOut(text string, off int) bool {
	ls := strings.LastIndexByte(text[:off], '\n') + 1
	line := text[ls:off]
	i := strings.IndexByte(line, '#')
	return i >= 0 && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t')
}
