package shell

import "strings"

// maxNestedDepth bounds sh -c inside sh -c.
const maxNestedDepth = 4

// expandNested lexes the scripts that commands hand to another shell (sh -c 'SCRIPT',
// bash -lc "SCRIPT", also in a systemd ExecStart or a Dockerfile exec form) and appends their
// commands, with offsets mapped through the quoted word to the source. The nested commands
// keep the guard of the command that runs them.
func (s *Script) expandNested(from, depth int) {
	n := len(s.Commands)
	for i := from; i < n; i++ {
		c := &s.Commands[i]
		p := c.Program()
		if p >= len(c.Words) || !shellNames[baseName(c.Words[p].Text)] {
			continue
		}
		for j := p + 1; j+1 < len(c.Words); j++ {
			w := c.Words[j].Text
			if !strings.HasPrefix(w, "-") || strings.HasPrefix(w, "--") {
				break // the script file argument, or a long option: no -c
			}
			if strings.Contains(w, "c") {
				s.addNested(i, c.Words[j+1])
				break
			}
		}
	}
	if depth < maxNestedDepth && len(s.Commands) > n {
		s.expandNested(n, depth+1)
	}
}

// addNested lexes the text of word w (the script of command parent) and appends its commands.
func (s *Script) addNested(parent int, w Word) {
	src := []byte(w.Text)
	sub := Parse(src, 0, len(src), Options{NoHeredocs: true})
	guard := s.Commands[parent].Guard
	for _, c := range sub.Commands {
		for k := range c.Words {
			c.Words[k] = remapWord(c.Words[k], w)
		}
		for k := range c.Redirects {
			c.Redirects[k].Target = remapWord(c.Redirects[k].Target, w)
			c.Redirects[k].Heredoc = -1
		}
		if len(guard) > 0 {
			c.Guard = append(append([]string(nil), guard...), c.Guard...)
		}
		c.Substituted = c.Substituted || s.Commands[parent].Substituted
		s.Commands = append(s.Commands, c)
	}
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
