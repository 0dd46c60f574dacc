package load

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// AKS in Bicep: networkProfile: { kubeProxyConfig: { mode: 'IPVS', enabled: true,
// ipvsConfig: { scheduler: 'LeastConnection' } } }. Bicep is not YAML or JSON; the block is
// found by brace matching and its literal values are read with positions. Values that are
// expressions (parameters, variables, interpolations) are placeholders.

func init() {
	nameFilters = append(nameFilters, isBicepName)
	textClassifiers = append(textClassifiers, func(name string, _ []byte) bool { return isBicepName(name) })
	wsInstallers = append(wsInstallers, bicepInstances)
}

func isBicepName(name string) bool { return strings.HasSuffix(strings.ToLower(name), ".bicep") }

var (
	bicepBlockRe = regexp.MustCompile(`\bkubeProxyConfig\s*:\s*\{`)
	// bicepPropRe matches "name: value" at the start of a line or after "{" or ",".
	bicepPropRe = regexp.MustCompile(`(?m)(?:^|[{,])[ \t]*([A-Za-z]+)[ \t]*:[ \t]*('[^'\n]*'|true|false|[0-9]+|\{|[A-Za-z_][\w.()']*)`)
)

func bicepInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	for _, f := range ws.Files {
		if f.Parent != nil || !isBicepName(f.Path) || !bytes.Contains(f.Content, []byte("kubeProxyConfig")) {
			continue
		}
		text := string(f.Content)
		for _, m := range bicepBlockRe.FindAllStringIndex(text, -1) {
			if commentedOut(text, m[0]) || strings.Contains(text[strings.LastIndexByte(text[:m[0]], '\n')+1:m[0]], "//") {
				continue
			}
			end := matchBrace(text, m[1]-1)
			if end < 0 {
				continue
			}
			ins := newAKSInstaller(f)
			ins.Anchor = f.Lines.Position(f.Path, m[0])
			ins.AnchorEnd = f.Lines.Position(f.Path, m[0]+len("kubeProxyConfig"))
			bicepProps(f, text, m[1], end, 0, ins)
			out = append(out, newInstallerInstance(ins, "AKS kubeProxyConfig in "+f.Path))
		}
	}
	return out
}

// bicepProps reads the properties of the object between from and to (depth 0: kubeProxyConfig,
// depth 1: ipvsConfig).
func bicepProps(f *checker.File, text string, from, to, depth int, ins *checker.Installer) {
	i := from
	for i < to {
		loc := bicepPropRe.FindStringSubmatchIndex(text[i:to])
		if loc == nil {
			return
		}
		ks, ke, vs, ve := i+loc[2], i+loc[3], i+loc[4], i+loc[5]
		key, val := text[ks:ke], text[vs:ve]
		if val == "{" {
			inner := matchBrace(text, vs)
			if inner < 0 {
				return
			}
			if depth == 0 && key == "ipvsConfig" {
				bicepProps(f, text, vs+1, inner, 1, ins)
			}
			i = inner + 1
			continue
		}
		i = ve
		if commentedOut(text, ks) {
			continue
		}
		s := &checker.InstallerSetting{Key: key, Value: val, Pos: f.Lines.Position(f.Path, ks), End: f.Lines.Position(f.Path, ke)}
		s.ValuePos, s.ValueEnd = f.Lines.Position(f.Path, vs), f.Lines.Position(f.Path, ve)
		if strings.HasPrefix(val, "'") {
			s.Value = strings.Trim(val, "'")
			s.ValuePos, s.ValueEnd = f.Lines.Position(f.Path, vs+1), f.Lines.Position(f.Path, ve-1)
			s.Placeholder = strings.Contains(s.Value, "${")
		} else if val != "true" && val != "false" && (val[0] < '0' || val[0] > '9') {
			s.Placeholder = true // a parameter or variable
		}
		switch {
		case depth == 1:
			if !s.Placeholder {
				ins.IPVS = append(ins.IPVS, *s)
			}
		case key == "mode":
			s.Normalized = ins.Modes[s.Value]
			ins.Mode = s
		case key == "enabled" && s.Value == "false":
			ins.Disabled = s
		}
	}
}

// matchBrace returns the index of the "}" closing the "{" at open, skipping strings and
// comments, or -1.
func matchBrace(text string, open int) int {
	depth := 0
	for i := open; i < len(text); i++ {
		switch text[i] {
		case '\'':
			j := strings.IndexByte(text[i+1:], '\'')
			if j < 0 {
				return -1
			}
			i += j + 1
		case '/':
			if i+1 < len(text) && text[i+1] == '/' {
				j := strings.IndexByte(text[i:], '\n')
				if j < 0 {
					return -1
				}
				i += j
			}
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
