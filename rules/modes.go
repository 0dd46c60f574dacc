package rules

import (
	"path"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// The proxy mode: fixes that pin or replace it (and the line edits they make), the ipvs
// feature gates, and kube-proxies that run on Windows. Used by KP101, KP103, KP104 and others.

// The ipvs feature gates. KP104 owns both names: KP105 (feature-gate-invalid) must skip them
// (use isIPVSGate), so a KubeProxyIPVS or SupportIPVSProxyMode setting is reported once.
const (
	gateKubeProxyIPVS        = "KubeProxyIPVS"
	gateSupportIPVSProxyMode = "SupportIPVSProxyMode"
)

// isIPVSGate reports whether KP104 owns feature gate name; KP105 skips these.
func isIPVSGate(name string) bool {
	return name == gateKubeProxyIPVS || name == gateSupportIPVSProxyMode
}

// runsOnWindows reports whether kube-proxy instance in runs on Windows. The loader sets
// Instance.Windows from a kubernetes.io/os: windows nodeSelector only; this also recognises a
// kube-proxy.exe command line, and a standalone configuration that only makes sense on
// Windows (mode kernelspace or winkernel values other than the defaults kubeadm writes).
func runsOnWindows(in *checker.Instance) bool {
	if in.Windows {
		return true
	}
	if in.Workload != nil {
		for _, field := range []string{"command", "args"} {
			_, seq := in.Workload.Lookup(in.Container.Append(field))
			if seq == nil || seq.Kind != yaml.SequenceNode {
				continue
			}
			for _, n := range seq.Content {
				if n.Kind == yaml.ScalarNode && windowsCommandWord(n.Value) {
					return true
				}
			}
		}
		return false
	}
	if in.Config == nil {
		return false
	}
	return checker.IsWindowsConfig(in.Config)
}

// windowsCommandWord reports whether a command or argument only runs on Windows: the
// kube-proxy.exe binary, a PowerShell script or PowerShell itself.
func windowsCommandWord(s string) bool {
	s = strings.ToLower(s)
	return strings.Contains(s, "kube-proxy.exe") || strings.Contains(s, ".ps1") ||
		strings.Contains(s, "powershell") || strings.Contains(s, "pwsh.exe")
}

// findingKeys remembers reported findings so that a configuration shared by several
// kube-proxy instances (two DaemonSets mounting one ConfigMap) is reported once. Its keys
// hold the finding's own strings: a key made of the position's text and the message was
// 12 MB for KP401's 41,000 findings at 100,000 files (issue 24).
type findingKeys map[findingKey]struct{}

// findingKey is a reported finding's place (file, line and column; the file alone for a
// position that names no line) and message.
type findingKey struct {
	file         string
	line, column int
	msg          string
}

// first reports whether (pos, msg) is seen for the first time, and records it.
func (s findingKeys) first(pos checker.Position, msg string) bool {
	k := findingKey{file: pos.Filename, msg: msg}
	if pos.IsValid() {
		k.line, k.column = pos.Line, pos.Column
	}
	if _, ok := s[k]; ok {
		return false
	}
	s[k] = struct{}{}
	return true
}

// outerEOL returns the line ending used by line of the real file f ("\r\n" or "\n").
func outerEOL(f *checker.File, line int) string {
	end := f.Lines.LineStart(line + 1)
	if end >= 2 && end <= len(f.Content) && f.Content[end-1] == '\n' && f.Content[end-2] == '\r' {
		return "\r\n"
	}
	for i := 0; i+1 < len(f.Content); i++ {
		if f.Content[i] == '\n' {
			if i > 0 && f.Content[i-1] == '\r' {
				return "\r\n"
			}
			return "\n"
		}
	}
	return "\n"
}

// insertLineAfterEdit returns an edit that inserts text as a new line right after line of the
// real file f, prefixed with indent.
func insertLineAfterEdit(f *checker.File, line int, indent, text string) checker.TextEdit {
	eol := outerEOL(f, line)
	at := f.Lines.LineStart(line + 1)
	newText := indent + text + eol
	if line >= f.Lines.Lines() {
		// Last line: it may lack a line ending.
		at = len(f.Content)
		if at > 0 && f.Content[at-1] != '\n' {
			newText = eol + indent + text
		}
	}
	p := f.Lines.Position(f.Path, at)
	return checker.TextEdit{Pos: p, End: p, NewText: newText}
}

// blankPrefix returns the text of pos's line before pos when it is only spaces.
func blankPrefix(f *checker.File, pos checker.Position) (string, bool) {
	start := f.Lines.LineStart(pos.Line)
	if pos.Offset < start || pos.Offset > len(f.Content) {
		return "", false
	}
	prefix := string(f.Content[start:pos.Offset])
	if strings.Trim(prefix, " ") != "" {
		return "", false
	}
	return prefix, true
}

// pinModeFix returns a fix that sets mode to value in the configuration document doc whose
// mode is absent, empty or null: a "mode: value" line after the kind line (indented like the
// kind key, which also gives the block indentation inside a ConfigMap block scalar), or the
// value written into the existing empty field. ok is false when no safe edit exists (flow
// mappings, JSON).
func pinModeFix(doc *checker.Document, value, msg string) (checker.Fix, bool) {
	f := doc.File.Outer()
	k, v := doc.Lookup(checker.Path{"mode"})
	if k == nil || v == nil {
		pos, _, ok := doc.KeyPos(checker.Path{"kind"})
		if !ok {
			return checker.Fix{}, false
		}
		if _, m := doc.Lookup(nil); m == nil || m.Kind != yaml.MappingNode || m.Style&yaml.FlowStyle != 0 {
			return checker.Fix{}, false
		}
		indent, ok := blankPrefix(f, pos)
		if !ok {
			return checker.Fix{}, false
		}
		return checker.Fix{Message: msg, Edits: []checker.TextEdit{insertLineAfterEdit(f, pos.Line, indent, "mode: "+value)}}, true
	}
	if v.Kind != yaml.ScalarNode {
		return checker.Fix{}, false
	}
	switch {
	case v.Style&(yaml.DoubleQuotedStyle|yaml.SingleQuotedStyle) != 0:
		// mode: "" -> mode: "value", keeping the quotes.
		p, e := doc.SubPos(v, 0, len(v.Value))
		return checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: p, End: e, NewText: value}}}, true
	case v.Value == "":
		// "mode:" with nothing after the colon: yaml.v3 puts the null right after it.
		p := doc.NodePos(v)
		if p.Offset < 1 || p.Offset > len(f.Content) || f.Content[p.Offset-1] != ':' {
			return checker.Fix{}, false
		}
		return checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: p, End: p, NewText: " " + value}}}, true
	default:
		// mode: null, mode: ~
		p, e := doc.NodePos(v), doc.NodeEnd(v)
		if e.Offset-p.Offset != len(v.Value) {
			return checker.Fix{}, false
		}
		return checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: p, End: e, NewText: value}}}, true
	}
}

// replaceScalarFix returns a fix that replaces the whole value of scalar n of doc with value,
// keeping its quotes.
func replaceScalarFix(doc *checker.Document, n *yaml.Node, value, msg string) (checker.Fix, bool) {
	if n == nil || n.Kind != yaml.ScalarNode || strings.Contains(n.Value, "\n") {
		return checker.Fix{}, false
	}
	p, e := doc.SubPos(n, 0, len(n.Value))
	if !p.IsValid() || e.Offset < p.Offset {
		return checker.Fix{}, false
	}
	return checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: p, End: e, NewText: value}}}, true
}

// replaceFlagValueFix returns a fix that replaces the value of flag f with value.
func replaceFlagValueFix(f *checker.Flag, value, msg string) (checker.Fix, bool) {
	if !f.HasValue || !f.ValuePos.IsValid() || f.ValueEnd.Offset < f.ValuePos.Offset {
		return checker.Fix{}, false
	}
	return checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: f.ValuePos, End: f.ValueEnd, NewText: value}}}, true
}

// isKubeProxyProgram reports whether an argv word runs the kube-proxy binary.
func isKubeProxyProgram(s string) bool {
	b := path.Base(strings.ReplaceAll(s, `\`, "/"))
	return b == "kube-proxy" || b == "kube-proxy.exe"
}

// isShellProgram reports whether an argv word is a shell that kube-proxy may be started from.
func isShellProgram(s string) bool {
	switch path.Base(s) {
	case "sh", "bash", "ash", "dash", "zsh", "busybox":
		return true
	}
	return false
}

// shellCommandPrefixes run the next word as the command.
var shellCommandPrefixes = map[string]bool{
	"exec": true, "env": true, "command": true, "nice": true, "nohup": true, "time": true,
	"sudo": true, "ionice": true, "setsid": true, "stdbuf": true,
}

// shellProgramSpan finds the kube-proxy program word in a shell script: the first word in
// command position (after a separator, exec, env or variable assignments) whose base name is
// kube-proxy. It returns the word's byte range in script.
func shellProgramSpan(script string) (from, to int, ok bool) {
	cmdPos, afterPrefix := true, false
	s := script
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
			continue
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			i += 2
			continue
		case c == '\n' || c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '{' || c == '}':
			cmdPos, afterPrefix = true, false
			i++
			continue
		case c == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t' || s[i-1] == '\n'):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		start := i
		var w strings.Builder
		for i < len(s) {
			c := s[i]
			if c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' || c == '|' || c == ')' {
				break
			}
			switch c {
			case '\'', '"':
				j := strings.IndexByte(s[i+1:], c)
				if j < 0 {
					w.WriteString(s[i+1:])
					i = len(s)
					continue
				}
				w.WriteString(s[i+1 : i+1+j])
				i += j + 2
			case '\\':
				if i+1 < len(s) {
					w.WriteByte(s[i+1])
				}
				i += 2
			default:
				w.WriteByte(c)
				i++
			}
		}
		i = min(i, len(s))
		word := w.String()
		if !cmdPos {
			continue
		}
		switch {
		case isKubeProxyProgram(word):
			return start, i, true
		case shellCommandPrefixes[word]:
			afterPrefix = true
		case strings.Contains(word, "=") && !strings.HasPrefix(word, "-"):
			// VAR=value before the command.
		case afterPrefix && strings.HasPrefix(word, "-"):
			// Options of exec/env/nice.
		default:
			cmdPos = false
		}
	}
	return 0, 0, false
}

// kubeProxyArgv describes where a workload container starts kube-proxy.
type kubeProxyArgv struct {
	// Field is "command" or "args"; Seq is that sequence and Index the program item, or -1
	// when the container has no program item (args for a kube-proxy image).
	Field string
	Seq   *yaml.Node
	Index int
	// Script is the shell -c script item when kube-proxy is started from a shell.
	Script *yaml.Node
	// ScriptIndex is Script's index in Seq.
	ScriptIndex int
	Shell       bool
}

// findKubeProxyArgv locates the kube-proxy program in the container of instance in, in the
// same way the loader recognises it: an argv item naming the kube-proxy binary, a shell -c
// script, or the args of a container without command.
func findKubeProxyArgv(in *checker.Instance) (kubeProxyArgv, bool) {
	if in.Workload == nil {
		return kubeProxyArgv{}, false
	}
	type item struct {
		field string
		seq   *yaml.Node
		idx   int
	}
	var argv []item
	for _, field := range []string{"command", "args"} {
		_, seq := in.Workload.Lookup(in.Container.Append(field))
		if seq == nil || seq.Kind != yaml.SequenceNode {
			continue
		}
		for i := range seq.Content {
			argv = append(argv, item{field, seq, i})
		}
	}
	node := func(it item) *yaml.Node { return it.seq.Content[it.idx] }
	for i, it := range argv {
		n := node(it)
		if n.Kind != yaml.ScalarNode {
			continue
		}
		if i == 0 && isShellProgram(n.Value) {
			for j := 1; j+1 < len(argv); j++ {
				if node(argv[j]).Value == "-c" {
					s := argv[j+1]
					return kubeProxyArgv{Field: s.field, Seq: s.seq, Index: -1, Script: node(s), ScriptIndex: s.idx, Shell: true}, true
				}
			}
			return kubeProxyArgv{Field: it.field, Seq: it.seq, Index: -1, Shell: true}, true
		}
		if isKubeProxyProgram(n.Value) {
			return kubeProxyArgv{Field: it.field, Seq: it.seq, Index: it.idx}, true
		}
	}
	_, cmd := in.Workload.Lookup(in.Container.Append("command"))
	_, args := in.Workload.Lookup(in.Container.Append("args"))
	if cmd == nil && args != nil && args.Kind == yaml.SequenceNode {
		return kubeProxyArgv{Field: "args", Seq: args, Index: -1}, true
	}
	return kubeProxyArgv{}, false
}

// seqItemText formats text as a sequence item quoted like model.
func seqItemText(model *yaml.Node, text string) string {
	switch {
	case model != nil && model.Style&yaml.DoubleQuotedStyle != 0:
		return `"` + text + `"`
	case model != nil && model.Style&yaml.SingleQuotedStyle != 0:
		return "'" + text + "'"
	}
	return text
}

// insertSeqItemEdit returns an edit that inserts text as a new item of sequence seq of doc,
// after item at (or before the first item when at is -1), in the sequence's own style: a new
// "- text" line with the same indentation in block style, ", text" in flow style.
func insertSeqItemEdit(doc *checker.Document, seq *yaml.Node, at int, text string) (checker.TextEdit, bool) {
	if seq == nil || seq.Kind != yaml.SequenceNode || len(seq.Content) == 0 || at >= len(seq.Content) {
		return checker.TextEdit{}, false
	}
	f := doc.File.Outer()
	if doc.File.Parent != nil {
		return checker.TextEdit{}, false
	}
	ref := seq.Content[max(at, 0)]
	if ref.Kind != yaml.ScalarNode || strings.Contains(ref.Value, "\n") {
		return checker.TextEdit{}, false
	}
	text = seqItemText(ref, text)
	pos, end := doc.NodePos(ref), doc.NodeEnd(ref)
	if pos.Line != end.Line {
		return checker.TextEdit{}, false
	}
	if seq.Style&yaml.FlowStyle != 0 {
		if at < 0 {
			return checker.TextEdit{Pos: pos, End: pos, NewText: text + ", "}, true
		}
		return checker.TextEdit{Pos: end, End: end, NewText: ", " + text}, true
	}
	start := f.Lines.LineStart(pos.Line)
	prefix := string(f.Content[start:pos.Offset])
	if strings.TrimSpace(prefix) != "-" || strings.Contains(prefix, "\t") {
		return checker.TextEdit{}, false
	}
	if at < 0 {
		p := f.Lines.Position(f.Path, start)
		return checker.TextEdit{Pos: p, End: p, NewText: prefix + text + outerEOL(f, pos.Line)}, true
	}
	return insertLineAfterEdit(f, pos.Line, prefix, text), true
}
