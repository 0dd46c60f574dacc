package load

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// Scripted switches: scripts that change a running cluster's kube-proxy mode, the way
// MetalLB's install docs taught it:
//
//	kubectl get configmap kube-proxy -n kube-system -o yaml | sed -e 's/mode: ""/mode: "ipvs"/' | kubectl apply -f -
//	sed -i 's/mode: ""/mode: "ipvs"/' kube-proxy-configmap.yaml
//	kubectl -n kube-system patch ds kube-proxy --type=json -p '[{"op":"add","path":"...","value":"--proxy-mode=ipvs"}]'
//
// The substituted value is the setting: each switch is an instance of installer "script"
// whose mode points at it, so KP102 reports it there and the fix rewrites it. A sed counts when
// its pipeline reads the kube-proxy ConfigMap or DaemonSet, or when it edits a file named after
// kube-proxy; kubectl edit and prose do not count. Only switches to ipvs, or to a value that is
// not a mode, are instances: a switch to iptables or nftables sets nothing else of the
// configuration, which stays unknown here.

func init() {
	wsInstallers = append(wsInstallers, switchInstances)
}

var (
	// switchModeRe finds the mode a substitution or patch sets: "mode: ipvs", "mode: \"ipvs\"",
	// "mode":"ipvs", --proxy-mode=ipvs. The value is the last group that matched.
	switchModeRe = regexp.MustCompile(`(?:(?:^|[^-\w])mode\\?["']?\s*:\s*(?:\\?["'])?([A-Za-z]+)|--proxy-mode[= ]([A-Za-z]+))`)
	// kubectlResources are the resource names under which kube-proxy's ConfigMap and
	// DaemonSet are patched.
	kubectlResources = map[string]bool{"cm": true, "configmap": true, "configmaps": true, "ds": true, "daemonset": true, "daemonsets": true, "daemonset.apps": true}
)

func switchInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	for _, f := range ws.Files {
		if f.Format != checker.FormatText || f.Parent != nil {
			continue
		}
		d := shell.DialectOf(f.Path, f.Content)
		if d == shell.DialectNone || d == shell.DialectFlags || d == shell.DialectUnit || !strings.Contains(string(f.Content), "kube-proxy") {
			continue
		}
		s := lexScript(f, d)
		for i := 0; i < len(s.Commands); i++ {
			// The pipeline of command i: commands joined by pipes.
			from, to := i, i
			for from > 0 && s.Commands[from].PipeIn && s.Commands[from-1].PipeOut {
				from--
			}
			for to+1 < len(s.Commands) && s.Commands[to].PipeOut && s.Commands[to+1].PipeIn {
				to++
			}
			c := &s.Commands[i]
			var set *checker.InstallerSetting
			var how string
			switch c.Name() {
			case "sed":
				set, how = sedSwitch(f, s.Commands[from:to+1], c)
			case "kubectl", "oc":
				set, how = patchSwitch(f, c)
			}
			if set == nil {
				continue
			}
			set.Normalized = lowerModes[set.Value]
			if set.Normalized != "" && set.Normalized != checker.ModeIPVS {
				continue
			}
			ins := &checker.Installer{
				Name: checker.InstallerScript, File: f, ModeKey: "kube-proxy mode that " + how + " sets",
				Modes: lowerModes, Defaults: upstreamDefaults, Mode: set,
				DefaultWhy: "kube-proxy's default", Anchor: set.Pos, AnchorEnd: set.End,
			}
			out = append(out, newInstallerInstance(ins, fmt.Sprintf("kube-proxy mode switch in %s line %d", f.Path, set.Pos.Line)))
		}
	}
	return out
}

// sedSwitch reads a sed command that rewrites kube-proxy's mode.
func sedSwitch(f *checker.File, pipeline []shell.Command, c *shell.Command) (*checker.InstallerSetting, string) {
	args := c.Words[c.Program()+1:]
	var exprs, files []shell.Word
	explicit := false
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "-e" || t == "--expression":
			if i+1 < len(args) {
				exprs = append(exprs, args[i+1])
				explicit = true
				i++
			}
		case t == "-f" || t == "--file":
			i++
		case strings.HasPrefix(t, "-") && len(t) > 1:
		case !explicit && len(exprs) == 0:
			exprs = append(exprs, args[i])
		default:
			files = append(files, args[i])
		}
	}
	context := false
	for _, w := range files {
		if kubeProxyName(w.Text) {
			context = true
		}
	}
	for k := range pipeline {
		p := &pipeline[k]
		if p.Name() == "kubectl" || p.Name() == "oc" {
			for _, w := range p.Words {
				if strings.Contains(w.Text, "kube-proxy") {
					context = true
				}
			}
		}
	}
	if !context {
		return nil, ""
	}
	for _, w := range exprs {
		for _, sub := range sedSubstitutions(w.Text) {
			if !strings.Contains(w.Text[sub[0]:sub[1]], "mode") {
				continue // the pattern does not touch the mode
			}
			if s := modeIn(f, w, sub[2], sub[3]); s != nil {
				return s, "sed"
			}
		}
	}
	return nil, ""
}

// patchSwitch reads kubectl patch of the kube-proxy ConfigMap or DaemonSet.
func patchSwitch(f *checker.File, c *shell.Command) (*checker.InstallerSetting, string) {
	args := c.Words[c.Program()+1:]
	patch, target := false, false
	var body *shell.Word
	var bodyFrom int
	for i := 0; i < len(args); i++ {
		t := args[i].Text
		switch {
		case t == "patch":
			patch = true
		case t == "-p" || t == "--patch":
			if i+1 < len(args) {
				body, bodyFrom = &args[i+1], 0
				i++
			}
		case strings.HasPrefix(t, "-p=") || strings.HasPrefix(t, "--patch="):
			body, bodyFrom = &args[i], strings.IndexByte(t, '=')+1
		case t == "kube-proxy" && i > 0 && kubectlResources[strings.ToLower(args[i-1].Text)]:
			target = true
		case strings.HasSuffix(t, "/kube-proxy") && kubectlResources[strings.ToLower(strings.TrimSuffix(t, "/kube-proxy"))]:
			target = true
		}
	}
	if !patch || !target || body == nil {
		return nil, ""
	}
	if s := modeIn(f, *body, bodyFrom, len(body.Text)); s != nil {
		return s, "kubectl patch"
	}
	return nil, ""
}

// modeIn finds the mode set in w.Text[from:to] and returns it as a setting whose value spans
// the mode in the source.
func modeIn(f *checker.File, w shell.Word, from, to int) *checker.InstallerSetting {
	m := switchModeRe.FindStringSubmatchIndex(w.Text[from:to])
	if m == nil {
		return nil
	}
	g := 2
	if m[2] < 0 {
		g = 4
	}
	vs, ve := from+m[g], from+m[g+1]
	if vs > 0 && w.Text[vs-1] == '$' {
		return nil
	}
	a, b := w.Span(vs, ve)
	ks, ke := w.Span(from+m[0], ve)
	s := &checker.InstallerSetting{Key: "mode", Value: w.Text[vs:ve],
		Pos: f.PositionAt(ks), End: f.PositionAt(ke), ValuePos: f.PositionAt(a), ValueEnd: f.PositionAt(b)}
	return s
}

// sedSubstitutions finds the s commands of a sed script: for each, the byte ranges of its
// pattern and its replacement.
func sedSubstitutions(script string) [][4]int {
	var out [][4]int
	for i := 0; i+1 < len(script); i++ {
		if script[i] != 's' || (i > 0 && !strings.ContainsRune(" \t;{}/\n", rune(script[i-1]))) {
			continue
		}
		delim := script[i+1]
		if delim == '\\' || delim == '\n' || delim == ' ' || isWordByte(delim) {
			continue
		}
		patEnd, repEnd := -1, -1
		for j := i + 2; j < len(script); j++ {
			if script[j] == '\\' {
				j++
				continue
			}
			if script[j] == delim {
				if patEnd < 0 {
					patEnd = j
					continue
				}
				repEnd = j
				break
			}
		}
		if repEnd < 0 {
			continue
		}
		out = append(out, [4]int{i + 2, patEnd, patEnd + 1, repEnd})
		i = repEnd
	}
	return out
}

func isWordByte(b byte) bool {
	return b == '_' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

// kubeProxyName reports whether a file argument is named after kube-proxy.
func kubeProxyName(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "kube-proxy") || strings.Contains(s, "kubeproxy") || strings.Contains(s, "kube_proxy")
}
