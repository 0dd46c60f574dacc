package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// KP402 flags commands that depend on state only ipvs mode creates: the kube-ipvs0 dummy
// interface, kube-proxy's ipvs virtual servers, and its KUBE-* ipsets.
var KP402 = &checker.Rule{
	ID:       "KP402",
	Name:     "ipvs-state-dependency",
	Severity: checker.SeverityWarning,
	Kinds:    []string{"shell script", "systemd unit", "Dockerfile", "Makefile", "DaemonSet", "Pod", "Ansible task", "ConfigMap"},
	Doc: withProse("kp402_ipvs_state_dependency.md", checker.Doc{
		Title: "a command depends on state that only kube-proxy's ipvs mode creates",
		Before: `#!/bin/sh
ip addr show dev kube-ipvs0 | grep -q 10.96.0.10 || exit 1
`,
		After: `#!/bin/sh
kubectl -n kube-system get service kube-dns -o jsonpath='{.spec.clusterIP}' | grep -q 10.96.0.10 || exit 1
`,
		Since:        "0.1.0",
		SeverityText: "warning; info when the command is guarded by an ipvs-mode condition, its failure is ignored (`|| true`, Ansible `ignore_errors`), it only probes (output to /dev/null, `command -v ipvsadm` in the file), or it sits in a teardown or diagnostics script (killall, uninstall, reset, cleanup, log collector)",
	}),
	Run: runKP402,
}

// kp402TeardownRe matches the paths of teardown and diagnostics scripts (killall, uninstall,
// reset, cleanup, log collectors): they touch ipvs state only if it is there.
var kp402TeardownRe = regexp.MustCompile(`(?i)(^|[/_.-])(killall|uninstall|reset|teardown|cleanup|clean-up|clean_up|destroy|log-collector|collect-logs|sosreport|must-gather)([/_.-]|$)`)

// kp402Tolerant reports whether a command runs where ipvs state may be absent without harm: a
// teardown or diagnostics script, a file that checks that ipvsadm exists before using it, a
// command whose failure is ignored (|| true, || :) or whose output is discarded to probe.
func kp402Tolerant(c *shell.Command, f *checker.File, pos checker.Position) bool {
	if kp402TeardownRe.MatchString(pos.Filename) {
		return true
	}
	for _, r := range c.Redirects {
		if r.Target.Text == "/dev/null" && (r.Op == ">" || r.Op == "&>" || r.Op == ">>") {
			return true
		}
	}
	if f == nil {
		return false
	}
	if f.Memo(kp402ExistsKey{}, func() any { return kp402ChecksExistence(f.Content) }).(bool) {
		return true
	}
	if pos.Line >= 1 && pos.Line <= f.Lines.Lines() {
		line := f.Lines.LineText(pos.Line)
		if strings.Contains(line, "|| true") || strings.Contains(line, "|| :") || strings.Contains(line, "||true") {
			return true
		}
	}
	return false
}

// kp402ChecksExistence reports whether a script checks that the ipvs tooling or interface is
// there at all: (command -v|which|type|hash)\s+ipvsadm, -[edf]\s+"?/sys/class/net/kube-ipvs0
// or ip link show kube-ipvs0. It searches for the names and looks back from them, as that
// regular expression (kept in the tests to check it) would find no literal to skip to and
// read every byte of a big script several times.
func kp402ChecksExistence(b []byte) bool {
	if bytes.Contains(b, []byte("ip link show kube-ipvs0")) {
		return true
	}
	// (command -v|which|type|hash)\s+ipvsadm
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("ipvsadm"))
		if j < 0 {
			break
		}
		at := i + j
		k := at
		for k > 0 && isRegexpSpace(b[k-1]) {
			k--
		}
		if k < at {
			for _, w := range []string{"command -v", "which", "type", "hash"} {
				if bytes.HasSuffix(b[:k], []byte(w)) {
					return true
				}
			}
		}
		i = at + 1
	}
	// -[edf]\s+"?/sys/class/net/kube-ipvs0
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte("/sys/class/net/kube-ipvs0"))
		if j < 0 {
			break
		}
		at := i + j
		k := at
		if k > 0 && b[k-1] == '"' {
			k--
		}
		sp := k
		for k > 0 && isRegexpSpace(b[k-1]) {
			k--
		}
		if k < sp && k >= 2 && b[k-2] == '-' && (b[k-1] == 'e' || b[k-1] == 'd' || b[k-1] == 'f') {
			return true
		}
		i = at + 1
	}
	return false
}

// isRegexpSpace reports whether c matches \s in Go's regexp: [\t\n\f\r ].
func isRegexpSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// kp402ExistsKey memoizes whether a file checks for the ipvs tooling (kp402ChecksExistence), read
// once per file, not once per command.
type kp402ExistsKey struct{}

// kp402NetPrograms take an interface name as an argument.
var kp402NetPrograms = map[string]bool{
	"ip": true, "ifconfig": true, "ethtool": true, "tcpdump": true, "arping": true, "brctl": true,
	"networkctl": true, "tc": true, "ifdown": true, "ifup": true, "nft": true, "conntrack": true,
}

func runKP402(p *checker.Pass) error {
	seen := findingKeys{}
	files := map[string]*checker.File{}
	for _, f := range p.Workspace.Files {
		files[f.Path] = f
	}
	kp4ForEachCommand(p.Workspace, kp402Needles, func(v *kp4CmdVisit) {
		guarded := v.guardedBy(checker.ModeIPVS)
		report := func(what string, pos, end checker.Position) {
			f := checker.Finding{Pos: pos, End: end, Object: v.obj, Path: v.path, Severity: checker.SeverityWarning,
				Message: what + ", which only kube-proxy's ipvs mode creates; it is gone in iptables and nftables mode"}
			switch {
			case guarded:
				f.Severity = checker.SeverityInfo
				f.Message = what + " under an ipvs-mode condition: fine while ipvs is in use, remove it after the migration"
			case v.bestEffort || kp402Tolerant(v.cmd, files[pos.Filename], pos):
				f.Severity = checker.SeverityInfo
				f.Message = what + " in a best-effort, guarded or teardown step that tolerates its absence: harmless after the migration, remove it then"
			}
			if seen.first(f.Pos, f.Message) {
				p.Report(f)
			}
		}
		c := v.cmd
		prog := c.Program()
		for _, w := range c.Words[:prog] {
			if name, val, ok := cutAssignment(w.Text); ok && val == "kube-ipvs0" {
				pos, end := v.span(w, len(name)+1, len(w.Text))
				report("variable "+name+" names the interface kube-ipvs0", pos, end)
			}
		}
		if prog >= len(c.Words) {
			return
		}
		name := c.Name()
		args := c.Words[prog+1:]
		ipt := kp4IptablesPrograms[name]
		switch name {
		case "ipvsadm":
			if !v.kube {
				return // a standalone LVS setup
			}
			w := c.Words[prog]
			pos, end := v.span(w, 0, len(w.Text))
			report("ipvsadm works on kube-proxy's ipvs virtual servers", pos, end)
			return
		case "ipset":
			for _, w := range args {
				kp402Sets(v, w, report)
			}
			return
		}
		for i, w := range args {
			if ipt && i > 0 && args[i-1].Text == "--match-set" {
				kp402Sets(v, w, report)
				continue
			}
			switch {
			case w.Text == "kube-ipvs0" && (kp402NetPrograms[name] || ipt || (kp4TextFilters[name] && c.PipeIn)):
				pos, end := v.span(w, 0, len(w.Text))
				report("the command uses the interface kube-ipvs0", pos, end)
			case name == "sysctl" && strings.Contains(w.Text, ".kube-ipvs0."):
				k := strings.Index(w.Text, "kube-ipvs0")
				pos, end := v.span(w, k, k+len("kube-ipvs0"))
				report("the sysctl key is for the interface kube-ipvs0", pos, end)
			}
		}
	})
	return nil
}

// kp402Sets reports KUBE-* ipset names in word w.
func kp402Sets(v *kp4CmdVisit, w shell.Word, report func(string, checker.Position, checker.Position)) {
	for _, t := range kp4KubeTokens(w.Text) {
		tok := w.Text[t[0]:t[1]]
		if tok == "KUBE-" {
			continue
		}
		pos, end := v.span(w, t[0], t[1])
		report(fmt.Sprintf("ipset %s is kube-proxy ipvs state", tok), pos, end)
	}
}
