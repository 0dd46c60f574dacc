package rules

import (
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// KP401 flags commands that read or write kube-proxy's iptables chains, which nftables mode
// does not create.
var KP401 = &checker.Rule{
	ID:       "KP401",
	Name:     "iptables-chain-dependency",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"shell script", "systemd unit", "Dockerfile", "Makefile", "DaemonSet", "Pod", "Ansible task", "ConfigMap"},
	Doc: withProse("kp401_iptables_chain_dependency.md", checker.Doc{
		Title: "a command depends on kube-proxy's iptables chains, which nftables mode does not create",
		Before: `#!/bin/sh
iptables -t nat -I KUBE-SERVICES -s 10.0.0.0/8 -j RETURN
`,
		After: `#!/bin/sh
iptables -t nat -N MY-PREROUTING 2>/dev/null || true
iptables -t nat -I PREROUTING -j MY-PREROUTING
iptables -t nat -A MY-PREROUTING -s 10.0.0.0/8 -j RETURN
`,
		Since:        "0.1.0",
		SeverityText: "warning; error when a kube-proxy of the same cluster scope runs in nftables mode at the target; info when the command is guarded by a mode condition",
	}),
	Run: runKP401,
}

func runKP401(p *checker.Pass) error {
	seen := findingKeys{}
	modes := &kp4Modes{p: p}
	kp4ForEachCommand(p.Workspace, kp401Needles, func(v *kp4CmdVisit) {
		report := func(tok string, pos, end checker.Position) {
			chainModes := kp4ChainModes(tok)
			if chainModes == "" {
				return
			}
			p := p.At(pos.Filename)
			f := checker.Finding{Pos: pos, End: end, Object: v.obj, Path: v.path}
			in, m, ok := modes.nftables(pos.Filename)
			var ipvsIn *checker.Instance
			var ipvsMode checker.Setting
			ipvs := false
			if !ok && !strings.Contains(chainModes, checker.ModeIPVS) {
				ipvsIn, ipvsMode, ipvs = modes.running(pos.Filename, checker.ModeIPVS)
			}
			switch {
			case v.guardedBy(checker.ModeIPVS, checker.ModeIPTables):
				f.Severity = checker.SeverityInfo
				f.Message = fmt.Sprintf("%s is a kube-proxy chain of %s mode; this command runs only under a mode condition, so it is harmless in nftables mode", tok, chainModes)
			case ok:
				f.Severity = checker.SeverityError
				f.Message = fmt.Sprintf("%s is a kube-proxy chain of %s mode, but kube-proxy runs in nftables mode at target %s and creates no such chain", tok, chainModes, p.Target())
				f.Related = kp4ModeRelated(in, m, p.Target())
			case ipvs:
				// The chain is missing already: the command finds or changes nothing today.
				f.Message = fmt.Sprintf("%s is a kube-proxy chain of %s mode, but kube-proxy runs in ipvs mode at target %s, which creates no such chain: the command already finds nothing today, and nftables mode (the default from 1.40) creates none either", tok, chainModes, p.Target())
				f.Severity = checker.SeverityWarning
				f.Related = kp4ModeRelatedIn(ipvsIn, ipvsMode, p.Target(), checker.ModeIPVS)
			default:
				f.Severity = checker.SeverityWarning
				f.Message = fmt.Sprintf("%s is a kube-proxy chain of %s mode: nftables mode (the default from 1.40) creates no such chain", tok, chainModes)
			}
			if seen.first(f.Pos, f.Message) {
				p.Report(f)
			}
		}
		scanWord := func(w shell.Word) {
			for _, t := range kp4KubeTokens(w.Text) {
				pos, end := v.span(w, t[0], t[1])
				report(w.Text[t[0]:t[1]], pos, end)
			}
		}
		c := v.cmd
		prog := c.Program()
		// NAME=KUBE-SERVICES: the script keeps a chain name to use it.
		for _, w := range c.Words[:prog] {
			if _, val, ok := cutAssignment(w.Text); ok && kp4ChainModes(val) != "" && len(kp4KubeTokens(val)) == 1 && kp4KubeTokens(val)[0] == [2]int{0, len(val)} {
				off := len(w.Text) - len(val)
				pos, end := v.span(w, off, len(w.Text))
				report(val, pos, end)
			}
		}
		if prog >= len(c.Words) {
			return
		}
		name := c.Name()
		ipt := kp4IptablesPrograms[name]
		feeds := (name == "echo" || name == "printf") && v.next != nil && kp4IptablesPrograms[v.next.Name()]
		if !ipt && !kp4TextFilters[name] && !feeds {
			return
		}
		args := c.Words[prog+1:]
		for i, w := range args {
			if ipt && i > 0 && args[i-1].Text == "--match-set" {
				continue // an ipset: KP402
			}
			scanWord(w)
		}
		if !ipt {
			return
		}
		for _, r := range c.Redirects {
			switch {
			case r.Op == "<<<":
				scanWord(r.Target)
			case r.Heredoc >= 0 && r.Heredoc < len(v.script.Heredocs) && v.bodySpan != nil:
				h := &v.script.Heredocs[r.Heredoc]
				kp4ScanBody(h, func(tok string, a, b int) {
					pos, end := v.bodySpan(h, a, b)
					report(tok, pos, end)
				})
			}
		}
	})
	return nil
}

// kp4ScanBody finds chain tokens in an iptables-restore heredoc body, outside comment lines.
func kp4ScanBody(h *shell.Heredoc, fn func(tok string, a, b int)) {
	body := string(h.Body)
	for ls := 0; ls < len(body); {
		le := ls
		for le < len(body) && body[le] != '\n' {
			le++
		}
		line := body[ls:le]
		trimmed := len(line) - len(trimLeftBlanks(line))
		if trimmed >= len(line) || line[trimmed] != '#' {
			for _, t := range kp4KubeTokens(line) {
				fn(line[t[0]:t[1]], ls+t[0], ls+t[1])
			}
		}
		ls = le + 1
	}
}

func trimLeftBlanks(s string) string {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return s[i:]
}

// cutAssignment splits NAME=value.
func cutAssignment(w string) (name, value string, ok bool) {
	if !shell.IsAssignment(w) {
		return "", "", false
	}
	name, value, _ = strings.Cut(w, "=")
	return name, value, true
}
