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
		}
	}
	if depth < maxNestedDepth && len(s.Commands) > n {
		s.expandNested(n, depth+1)
	}
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
// command (exec_remote() { ssh "$HOST" "$1"; }): a call's string argument is a script. A
// function runs its argument when a line of its body (up to the closing brace, at most 40
// lines) passes "$1", "$@" or "$*" to ssh, eval, sh -c, sudo or exec.
func scriptRunners(src []byte) map[string]bool {
	if !bytes.Contains(src, []byte("$")) || !bytes.Contains(src, []byte("()")) && !bytes.Contains(src, []byte("function")) {
		return nil
	}
	var out map[string]bool
	lines := bytes.Split(src, []byte("\n"))
	for i, l := range lines {
		name, rest, ok := functionDef(l)
		if !ok {
			continue
		}
		body := append([][]byte{rest}, lines[i+1:min(len(lines), i+41)]...)
		for k, b := range body {
			if runsArgument(b) {
				if out == nil {
					out = map[string]bool{}
				}
				out[name] = true
				break
			}
			if t := bytes.TrimSpace(b); k > 0 && len(t) > 0 && t[0] == '}' || k == 0 && bytes.HasSuffix(t, []byte("}")) {
				break
			}
		}
	}
	return out
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

// runsArgument reports whether a line passes the function's arguments to a command runner.
func runsArgument(l []byte) bool {
	if !bytes.Contains(l, []byte("$1")) && !bytes.Contains(l, []byte("$@")) && !bytes.Contains(l, []byte("$*")) &&
		!bytes.Contains(l, []byte("${1}")) && !bytes.Contains(l, []byte("${@}")) {
		return false
	}
	for _, r := range [][]byte{[]byte("ssh"), []byte("eval"), []byte("sudo"), []byte("exec"), []byte("sh -c"), []byte("sh -lc")} {
		for i := bytes.Index(l, r); i >= 0; {
			end := i + len(r)
			if (i == 0 || !isWordChar(l[i-1])) && (end == len(l) || !isWordChar(l[end])) {
				return true
			}
			j := bytes.Index(l[end:], r)
			if j < 0 {
				break
			}
			i = end + j
		}
	}
	return false
}

func isWordChar(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// addNested lexes the text of word w (the script of command parent) and appends its commands
// and heredocs.
func (s *Script) addNested(parent int, w Word) {
	if strings.HasPrefix(w.Text, "$") && !strings.ContainsAny(w.Text, " \t\n") {
		return // "$1", "$CMD": the script is not in the file
	}
	src := []byte(w.Text)
	sub := Parse(src, 0, len(src), Options{})
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
