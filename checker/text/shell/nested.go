package shell

import (
	"bytes"
	"strings"
)

// maxNestedDepth bounds sh -c inside sh -c.
const maxNestedDepth = 4

// expandNested lexes the scripts that commands hand to another shell and appends their
// commands and heredocs, with offsets mapped through the quoted word to the source: sh -c
// 'SCRIPT' and bash -lc "SCRIPT" (also in a systemd ExecStart or a Dockerfile exec form),
// ssh HOST 'SCRIPT', eval 'SCRIPT', and the string arguments of the script's own helper
// functions that run their argument (exec_remote() { ssh "$NODE" "$1"; }). The nested commands
// keep the guard of the command that runs them.
func (s *Script) expandNested(from, depth int) {
	n := len(s.Commands)
	for i := from; i < n; i++ {
		c := &s.Commands[i]
		p := c.Program()
		if p >= len(c.Words) {
			continue
		}
		name := baseName(c.Words[p].Text)
		args := c.Words[p+1:]
		switch {
		case shellNames[name]:
			for j := 0; j+1 < len(args); j++ {
				w := args[j].Text
				if !strings.HasPrefix(w, "-") || strings.HasPrefix(w, "--") {
					break // the script file argument, or a long option: no -c
				}
				if strings.Contains(w, "c") {
					s.addNested(i, args[j+1])
					break
				}
			}
		case name == "ssh":
			if w, ok := sshCommand(args); ok {
				s.addNested(i, w)
			}
		case name == "eval" && len(args) == 1:
			s.addNested(i, args[0])
		case s.runners[name]:
			for _, w := range args {
				if w.Quoted && strings.ContainsAny(w.Text, " \n") {
					s.addNested(i, w)
				}
			}
		default:
			// A function from elsewhere (a sourced library: run_remote node1 "cat <<EOF ...")
			// may run its argument: a quoted multi-line argument is its script when it holds
			// a closed heredoc or a kube-proxy command line. The arguments are looked at
			// first: most commands have no multi-line one.
			for _, w := range args {
				if w.Quoted && strings.Contains(w.Text, "\n") && (strings.Contains(w.Text, "<<") || strings.Contains(w.Text, "kube-proxy")) &&
					!s.defined[name] && maybeRunner(name) {
					s.addNestedIf(i, w, looksLikeScript)
				}
			}
		}
	}
	if depth < maxNestedDepth && len(s.Commands) > n {
		s.expandNested(n, depth+1)
	}
}

// dataCommands take strings as data, never as a script to run (their multi-line messages
// may name kube-proxy or show a heredoc).
var dataCommands = map[string]bool{
	"echo": true, "printf": true, "print": true, "logger": true, "read": true, "local": true,
	"export": true, "declare": true, "typeset": true, "readonly": true, "cat": true, "tee": true,
	"grep": true, "egrep": true, "fgrep": true, "rg": true, "sed": true, "awk": true, "gawk": true,
	"jq": true, "yq": true, "git": true, "gh": true, "glab": true, "curl": true, "wget": true,
	"test": true, "[": true, "[[": true, "python": true, "python2": true, "python3": true,
	"perl": true, "ruby": true, "node": true, "php": true, "mail": true, "sendmail": true,
	"notify-send": true, "whiptail": true, "dialog": true, "zenity": true, "exit": true,
	"return": true, "trap": true, "alias": true, "set": true, "helm": true,
}

// dataWords are parts of the names of functions that print or log their arguments.
var dataWords = []string{"log", "msg", "echo", "print", "info", "warn", "err", "debug", "fatal",
	"die", "note", "say", "banner", "usage", "title", "header", "comment", "message", "notify",
	"fail", "abort", "panic", "trace", "verbose", "status", "step", "heading", "section", "show"}

// DataCommand reports whether command name takes its arguments as data (echo, printf, grep,
// a function named like a logger): an expansion in its arguments is printed, not run.
func DataCommand(name string) bool {
	return name != "" && !strings.HasPrefix(name, "$") && !maybeRunner(name)
}

// maybeRunner reports whether a command the script does not define may be a function that
// runs its argument: neither a command known to take data nor named like a logger.
func maybeRunner(name string) bool {
	if name == "" || dataCommands[name] || strings.HasPrefix(name, "$") {
		return false
	}
	lower := strings.ToLower(name)
	for _, d := range dataWords {
		if strings.Contains(lower, d) {
			return false
		}
	}
	return true
}

// looksLikeScript reports whether sub, lexed from src, is a script rather than a message: it
// has a heredoc closed by its delimiter line, or a kube-proxy command with a flag.
func looksLikeScript(sub *Script, src []byte) bool {
	for _, h := range sub.Heredocs {
		if h.Delim == "" || h.End >= len(src) || h.Command < 0 || h.Command >= len(sub.Commands) {
			continue
		}
		line := src[h.End:]
		if k := bytes.IndexByte(line, '\n'); k >= 0 {
			line = line[:k]
		}
		if h.StripTabs {
			line = bytes.TrimLeft(line, "\t")
		}
		if string(bytes.TrimSuffix(line, []byte("\r"))) == h.Delim {
			return true
		}
	}
	for k := range sub.Commands {
		c := &sub.Commands[k]
		if c.Name() != "kube-proxy" {
			continue
		}
		for _, w := range c.Words[c.Program()+1:] {
			if strings.HasPrefix(w.Text, "--") {
				return true
			}
		}
	}
	return false
}

// sshOptionsWithArg are the ssh options that take a value.
const sshOptionsWithArg = "BbcDEeFIiJLlmOoPpQRSWw"

// sshCommand returns the remote command of an ssh command line when it is one word
// (ssh -p 22 root@node 'cat <<EOF ...'): the word after the destination.
func sshCommand(args []Word) (Word, bool) {
	for j := 0; j < len(args); j++ {
		t := args[j].Text
		if strings.HasPrefix(t, "-") && len(t) > 1 {
			if len(t) == 2 && strings.IndexByte(sshOptionsWithArg, t[1]) >= 0 {
				j++
			}
			continue
		}
		if j+2 == len(args) {
			return args[j+1], true
		}
		return Word{}, false
	}
	return Word{}, false
}

// scriptRunners returns the names of the functions src defines that run their argument as a
// command (exec_remote() { ssh "$HOST" "$1"; }), so that a call's string argument is a
// script, and the names of all the functions it defines. A function runs its argument when a
// line of its body (up to the closing brace, at most 40 lines) passes "$1", "$@", "$*", or a
// variable assigned from them (local cmd="$*" after a shift), to ssh, eval, sh -c, bash -c,
// sudo, exec or another such function of the script.
func scriptRunners(src []byte) (runners, defined map[string]bool) {
	if !bytes.Contains(src, []byte("()")) && !bytes.Contains(src, []byte("function")) {
		return nil, nil
	}
	type fn struct {
		name string
		body [][]byte
	}
	var fns []fn
	lines := bytes.Split(src, []byte("\n"))
	for i, l := range lines {
		name, rest, ok := functionDef(l)
		if !ok {
			continue
		}
		if defined == nil {
			defined = map[string]bool{}
		}
		defined[name] = true
		if !bytes.Contains(src, []byte("$")) {
			continue
		}
		f := fn{name: name}
		for k, b := range append([][]byte{rest}, lines[i+1:min(len(lines), i+41)]...) {
			f.body = append(f.body, b)
			if t := bytes.TrimSpace(b); k > 0 && len(t) > 0 && t[0] == '}' || k == 0 && bytes.HasSuffix(t, []byte("}")) {
				break
			}
		}
		fns = append(fns, f)
	}
	// A function that hands its arguments to a runner of the script is one too: a few rounds
	// reach the chains scripts build (run_on_all -> run_on -> ssh).
	for round := 0; round < 4; round++ {
		added := false
		for _, f := range fns {
			if runners[f.name] {
				continue
			}
			var vars []string
			for _, b := range f.body {
				if runsArgument(b, vars, runners) {
					if runners == nil {
						runners = map[string]bool{}
					}
					runners[f.name] = true
					added = true
					break
				}
				if v := argumentVar(b); v != "" {
					vars = append(vars, v)
				}
			}
		}
		if !added {
			break
		}
	}
	return runners, defined
}

// functionDef recognises "name() {", "function name {", "function name() {" and returns the
// name and the rest of the line.
func functionDef(l []byte) (string, []byte, bool) {
	t := bytes.TrimLeft(l, " \t")
	kw := bytes.HasPrefix(t, []byte("function "))
	if kw {
		t = bytes.TrimLeft(t[len("function "):], " \t")
	}
	n := 0
	for n < len(t) && (t[n] == '_' || t[n] == '-' || t[n] >= '0' && t[n] <= '9' || t[n] >= 'a' && t[n] <= 'z' || t[n] >= 'A' && t[n] <= 'Z') {
		n++
	}
	if n == 0 || t[0] >= '0' && t[0] <= '9' {
		return "", nil, false
	}
	rest := bytes.TrimLeft(t[n:], " \t")
	switch {
	case bytes.HasPrefix(rest, []byte("()")):
		rest = rest[2:]
	case !kw:
		return "", nil, false
	}
	return string(t[:n]), rest, true
}

// argRefs are the ways a function body names its arguments.
var argRefs = [][]byte{[]byte("$1"), []byte("$@"), []byte("$*"), []byte("${1}"), []byte("${@}"), []byte("${*}")}

// hasArgRef reports whether l names the function's arguments or one of the variables vars.
func hasArgRef(l []byte, vars []string) bool {
	for _, r := range argRefs {
		if bytes.Contains(l, r) {
			return true
		}
	}
	for _, v := range vars {
		if hasWord(l, "$"+v) || bytes.Contains(l, []byte("${"+v+"}")) {
			return true
		}
	}
	return false
}

// argumentVar returns NAME when line l assigns the function's arguments to a variable
// (cmd="$*", local script=$1, declare -r c="$@"), else "".
func argumentVar(l []byte) string {
	if !hasArgRef(l, nil) {
		return ""
	}
	t := bytes.TrimLeft(l, " \t")
	for _, kw := range []string{"local ", "declare ", "typeset ", "readonly ", "export "} {
		if bytes.HasPrefix(t, []byte(kw)) {
			t = bytes.TrimLeft(t[len(kw):], " \t")
			for bytes.HasPrefix(t, []byte("-")) {
				k := bytes.IndexAny(t, " \t")
				if k < 0 {
					return ""
				}
				t = bytes.TrimLeft(t[k:], " \t")
			}
			break
		}
	}
	name, _, ok := bytes.Cut(t, []byte("="))
	if !ok || !isAssignment(string(name)+"=") {
		return ""
	}
	return string(name)
}

// runsArgument reports whether a line passes the function's arguments (or a variable vars
// holds them in) to a command runner or to one of the functions extra.
func runsArgument(l []byte, vars []string, extra map[string]bool) bool {
	if !hasArgRef(l, vars) {
		return false
	}
	for _, r := range []string{"ssh", "eval", "sudo", "exec", "sh -c", "sh -lc", "bash -c", "bash -lc"} {
		if hasWord(l, r) {
			return true
		}
	}
	for r := range extra {
		if hasWord(l, r) {
			return true
		}
	}
	return false
}

// hasWord reports whether r occurs in l between non-word bytes.
func hasWord(l []byte, r string) bool {
	for i := 0; i+len(r) <= len(l); {
		j := bytes.Index(l[i:], []byte(r))
		if j < 0 {
			return false
		}
		b, e := i+j, i+j+len(r)
		if (b == 0 || !isWordChar(l[b-1]) || r[0] == '$') && (e == len(l) || !isWordChar(l[e])) {
			return true
		}
		i = b + 1
	}
	return false
}

func isWordChar(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// addNested lexes the text of word w (the script of command parent) and appends its commands
// and heredocs.
func (s *Script) addNested(parent int, w Word) { s.addNestedIf(parent, w, nil) }

// addNestedIf is addNested for a script that accept (when not nil) takes.
func (s *Script) addNestedIf(parent int, w Word, accept func(*Script, []byte) bool) {
	if strings.HasPrefix(w.Text, "$") && !strings.ContainsAny(w.Text, " \t\n") {
		return // "$1", "$CMD": the script is not in the file
	}
	src := []byte(w.Text)
	sub := Parse(src, 0, len(src), Options{})
	if accept != nil && !accept(sub, src) {
		return
	}
	guard := s.Commands[parent].Guard
	base := len(s.Commands)
	for _, c := range sub.Commands {
		for k := range c.Words {
			c.Words[k] = remapWord(c.Words[k], w)
		}
		for k := range c.Redirects {
			c.Redirects[k].Target = remapWord(c.Redirects[k].Target, w)
			if c.Redirects[k].Heredoc >= 0 {
				c.Redirects[k].Heredoc += len(s.Heredocs)
			}
		}
		if len(guard) > 0 {
			g := append(make([]string, 0, min(len(guard)+len(c.Guard), maxGuardWords)), guard...)
			c.Guard = append(g, c.Guard[:min(len(c.Guard), maxGuardWords-len(g))]...)
		}
		c.Substituted = c.Substituted || s.Commands[parent].Substituted
		s.Commands = append(s.Commands, c)
	}
	for _, h := range sub.Heredocs {
		h.Offs = remapOffsets(h.Offs, w)
		h.Start, h.End = remapOffset(h.Start, w), remapOffset(h.End, w)
		h.Command += base
		s.Heredocs = append(s.Heredocs, h)
	}
}

// remapOffset maps an offset of outer.Text to outer's source.
func remapOffset(o int, outer Word) int {
	if len(outer.Offs) == 0 {
		return outer.Pos
	}
	return outer.Offs[max(0, min(o, len(outer.Offs)-1))]
}

// remapOffsets maps offsets of outer.Text to outer's source.
func remapOffsets(offs []int, outer Word) []int {
	out := make([]int, len(offs))
	for k, o := range offs {
		out[k] = remapOffset(o, outer)
	}
	return out
}

// remapWord maps a word lexed from outer.Text to offsets of outer's source.
func remapWord(x, outer Word) Word {
	m := func(o int) int {
		if len(outer.Offs) == 0 {
			return outer.Pos
		}
		return outer.Offs[max(0, min(o, len(outer.Offs)-1))]
	}
	offs := make([]int, len(x.Offs))
	for k, o := range x.Offs {
		offs[k] = m(o)
	}
	if n := len(x.Text); n > 0 && n < len(offs) {
		offs[n] = m(x.Offs[n-1]) + 1
	}
	pos, end := m(x.Pos), m(x.Pos)
	if x.End > x.Pos {
		end = m(x.End-1) + 1
	}
	return Word{Text: x.Text, Pos: pos, End: end, Offs: offs, Quoted: true}
}

// SplitValue splits the value of assignment word w (NAME=value) into shell words whose
// offsets point into w's source, as the shell does when it expands an unquoted $NAME.
func SplitValue(w Word) []Word {
	_, val, ok := strings.Cut(w.Text, "=")
	if !ok {
		return nil
	}
	k := len(w.Text) - len(val)
	inner := Word{Text: val, Pos: w.Pos, End: w.End, Offs: w.Offs[min(k, len(w.Offs)):], Quoted: w.Quoted}
	if len(inner.Offs) > 0 {
		inner.Pos = inner.Offs[0]
	}
	src := []byte(val)
	s := &Script{}
	lx := &lexer{src: src, end: len(src), opts: Options{NoComments: true, NoHeredocs: true}, s: s}
	lx.run(0)
	var out []Word
	for _, c := range s.Commands {
		for _, x := range c.Words {
			out = append(out, remapWord(x, inner))
		}
	}
	return out
}
