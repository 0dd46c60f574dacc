// Package shell splits shell scripts, systemd units, Dockerfiles, Makefiles and kube-proxy
// flag files into commands and words with exact byte offsets, so that the loader can find
// kube-proxy command lines and heredocs and the rules can find uses of iptables chains and
// ipvs state in real commands, never in comments.
//
// It is a lexer, not an interpreter: it knows quoting, comments, line continuations,
// operators, redirections, heredocs, command substitutions and the compound commands that
// guard other commands (if, case, &&). It is linear in the size of its input.
package shell

import (
	"slices"
	"strings"
)

// Word is one shell word.
type Word struct {
	// Text is the word after quote removal; expansions ($VAR, $(...)) stay as written.
	Text string
	// Pos and End are the word's byte span in the source (quotes included).
	Pos, End int
	// Offs maps each byte of Text to the source offset it came from; one extra entry maps
	// the end of Text.
	Offs []int
	// Quoted is true when any part of the word was quoted or escaped.
	Quoted bool
}

// Span returns the source offsets of Text[from:to].
func (w Word) Span(from, to int) (int, int) {
	if len(w.Offs) == 0 {
		return w.Pos, w.End
	}
	from = max(0, min(from, len(w.Offs)-1))
	to = max(from, min(to, len(w.Offs)-1))
	if to == from {
		return w.Offs[from], w.Offs[from]
	}
	return w.Offs[from], w.Offs[to-1] + 1
}

// Redirect is a redirection of a command.
type Redirect struct {
	// Op is the operator: ">", ">>", "<", "<<", "<<-", "<<<", ">&", "&>", ...
	Op string
	// Target is the file, descriptor, here-string or heredoc delimiter.
	Target Word
	// Heredoc is the index in Script.Heredocs for "<<" and "<<-", else -1.
	Heredoc int
}

// Heredoc is the body of a here-document.
type Heredoc struct {
	Delim string
	// Quoted delimiters ('EOF', "EOF", \EOF) turn off expansion in the body.
	Quoted bool
	// StripTabs is set for "<<-": leading tabs of body lines are removed.
	StripTabs bool
	// Body is the text the command reads; Offs maps each byte of it to the source, with one
	// extra entry for the end.
	Body []byte
	Offs []int
	// Start and End span the body lines in the source (without the delimiter line).
	Start, End int
	// Command is the index in Script.Commands of the command that reads the heredoc.
	Command int
}

// Command is one simple command.
type Command struct {
	// Words are the command's words in order, leading VAR=value assignments included,
	// redirections excluded.
	Words     []Word
	Redirects []Redirect
	// Guard holds the words of the conditions that must hold for the command to run: the
	// conditions of enclosing if/elif blocks (not their else branches), the subject and
	// pattern of enclosing case branches, and the commands before a "&&".
	Guard []string
	// Cond is true for the commands of an if/elif/while/until condition.
	Cond bool
	// PipeIn and PipeOut are set when the command reads from or writes to a pipe.
	PipeIn, PipeOut bool
	// Substituted is set for commands inside $(...) or backquotes.
	Substituted bool
}

// Program returns the index of the program word: after assignments and wrappers such as
// sudo, exec, env, nohup and their options. It returns len(Words) when there is none.
func (c *Command) Program() int {
	i := 0
	wrapper := false
	for i < len(c.Words) {
		w := c.Words[i].Text
		switch baseName(w) {
		case "exec", "env", "nohup", "nice", "sudo", "command", "time", "chroot", "setsid",
			"tini", "dumb-init", "ionice", "stdbuf", "timeout", "doas", "xargs":
			if baseName(w) == "command" && i+1 < len(c.Words) && (c.Words[i+1].Text == "-v" || c.Words[i+1].Text == "-V") {
				// "command -v NAME" looks NAME up; it runs nothing.
				return len(c.Words)
			}
			i++
			wrapper = true
			continue
		}
		if wrapper && strings.HasPrefix(w, "-") {
			i++
			continue
		}
		if isAssignment(w) {
			i++
			continue
		}
		break
	}
	return i
}

// Name returns the base name of the program word, or "".
func (c *Command) Name() string {
	if i := c.Program(); i < len(c.Words) {
		return baseName(c.Words[i].Text)
	}
	return ""
}

func baseName(s string) string {
	s = strings.ReplaceAll(s, `\`, "/")
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		s = s[i+1:]
	}
	return s
}

// isAssignment reports whether w is NAME=value.
func isAssignment(w string) bool {
	k, _, ok := strings.Cut(w, "=")
	k = strings.TrimSuffix(k, "+") // NAME+=value appends
	if !ok || k == "" {
		return false
	}
	for i, c := range k {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// IsAssignment reports whether w is a NAME=value assignment word.
func IsAssignment(w string) bool { return isAssignment(w) }

// Script is a lexed file or region.
type Script struct {
	Commands []Command
	Heredocs []Heredoc
	// runners are the functions the script defines that run their argument as a command
	// (see scriptRunners); defined are all the functions it defines.
	runners, defined map[string]bool
	// substLeft is how many more bytes of substitutions nested in substitutions may be lexed
	// as commands (substitution).
	substLeft int
}

// Options tune the lexer to a dialect.
type Options struct {
	// NoComments turns off "#" comments (systemd values, where "#" is literal).
	NoComments bool
	// UnitComments skips lines starting with "#" or ";" inside continued values, as systemd does.
	UnitComments bool
	// NoHeredocs leaves "<<" alone (systemd, Dockerfile exec values).
	NoHeredocs bool
}

type frame struct {
	kind       string // "if", "case", "loop", "group"
	cond       []string
	collecting bool // reading the condition (until then/do)
	active     bool // the guard applies (a positive if branch, a case branch)
	pattern    string
	patAcc     []string
	inBranch   bool
	// outer is the guard of the frames around this one (capped at maxGuardWords), taken when
	// it is pushed: only the innermost frame changes, so a guard costs the same however deep
	// the nesting.
	outer []string
}

// lexer state.
type lexer struct {
	src      []byte
	end      int
	opts     Options
	s        *Script
	words    []Word
	redirs   []Redirect
	pending  []int // heredocs waiting for their body
	frames   []*frame
	andGuard []string // words of the commands before "&&"
	pipeIn   bool
	subst    bool
	subs     [][2]int // backquoted regions to lex afterwards
	depth    int      // nesting of $(...)
	parens   int      // open "(" operators, to find the ")" that ends a $(...)
	// test is how far inTest has read the current command's words.
	test testScan
	// lastGuard is the guard given to the previous command: an equal guard is shared.
	lastGuard, guardBuf []string
}

// testScan is the state of inTest over the words of the current command, so that each word
// is looked at once however often inTest is asked.
type testScan struct {
	read  int // words read
	state int // testBefore, testOpen or testNone
}

const (
	testBefore = iota // only reserved words so far
	testOpen          // in a [[ ... ]] not yet closed
	testNone          // not a test, or a closed one
)

// maxGuardWords bounds a command's guard: a chain of thousands of commands joined by "&&"
// or deeply nested conditions would otherwise give each command a copy of all the words
// before it. The conditions that decide anything come first and are kept.
const maxGuardWords = 256

// Parse lexes src[start:end] as a shell script.
func Parse(src []byte, start, end int, opts Options) *Script {
	s := &Script{}
	ParseInto(s, src, start, end, opts)
	return s
}

// ParseInto lexes src[start:end] and appends its commands and heredocs to s.
func ParseInto(s *Script, src []byte, start, end int, opts Options) {
	first := len(s.Commands)
	runners, defined := scriptRunners(src[max(0, start):min(end, len(src))])
	for name := range runners {
		if s.runners == nil {
			s.runners = map[string]bool{}
		}
		s.runners[name] = true
	}
	for name := range defined {
		if s.defined == nil {
			s.defined = map[string]bool{}
		}
		s.defined[name] = true
	}
	defer s.expandNested(first, 0)
	s.substLeft += max(0, min(end, len(src))-max(0, start)) + 4096
	lx := &lexer{src: src, end: min(end, len(src)), opts: opts, s: s}
	lx.run(max(0, start))
	// Backquoted substitutions, lexed after the outer text; nested ones are appended in turn.
	for k := 0; k < len(lx.subs) && k < 10000; k++ {
		r := lx.subs[k]
		sub := &lexer{src: src, end: r[1], opts: opts, s: s, subst: true}
		sub.run(r[0])
		lx.subs = append(lx.subs, sub.subs...)
	}
}

func (lx *lexer) guard() []string {
	g := lx.guardBuf[:0]
	add := func(ws ...string) {
		g = append(g, ws[:min(len(ws), maxGuardWords-len(g))]...)
	}
	if top := lx.top(); top != nil {
		add(top.outer...)
		top.addOwn(add)
	}
	add(lx.andGuard...)
	lx.guardBuf = g
	if len(g) == 0 {
		return nil
	}
	if len(g) == len(lx.lastGuard) {
		same := true
		for i := range g {
			if g[i] != lx.lastGuard[i] {
				same = false
				break
			}
		}
		if same {
			return lx.lastGuard
		}
	}
	lx.lastGuard = append([]string(nil), g...)
	return lx.lastGuard
}

// addOwn adds the guard words of frame f itself: its condition when active, and for a case
// branch "= pattern" (a case branch reads as "subject = pattern").
func (f *frame) addOwn(add func(...string)) {
	if f.active {
		add(f.cond...)
		if f.pattern != "" {
			add("=", f.pattern)
		}
	}
}

// push opens frame f inside the current ones.
func (lx *lexer) push(f *frame) {
	if top := lx.top(); top != nil {
		f.outer = top.outer
		if top.active && (len(top.cond) > 0 || top.pattern != "") && len(top.outer) < maxGuardWords {
			// Copied only while it grows: deep nesting shares the capped slice, so the
			// open frames hold at most maxGuardWords copies.
			outer := append(make([]string, 0, min(len(top.outer)+len(top.cond)+2, maxGuardWords)), top.outer...)
			add := func(ws ...string) {
				outer = append(outer, ws[:min(len(ws), maxGuardWords-len(outer))]...)
			}
			top.addOwn(add)
			f.outer = outer
		}
	}
	lx.frames = append(lx.frames, f)
}

// flush ends the current command. sep is the operator that ended it.
func (lx *lexer) flush(sep string) {
	words := lx.words
	lx.words = nil
	lx.test = testScan{}
	redirs := lx.redirs
	lx.redirs = nil
	// Case patterns: "ipvs|IPVS)" arrives as words ended by "|" and ")".
	if top := lx.top(); top != nil && top.kind == "case" && !top.inBranch && (sep == "|" || sep == ")") &&
		(len(words) == 0 || words[0].Quoted || words[0].Text != "esac") {
		for _, w := range words {
			top.patAcc = append(top.patAcc, w.Text)
		}
		if sep == ")" {
			top.pattern = strings.Join(top.patAcc, "|")
			top.patAcc, top.inBranch, top.active = nil, true, true
		}
		return
	}
	pipeIn := lx.pipeIn
	lx.pipeIn = sep == "|"
	// Reserved words at the start of the command.
	for len(words) > 0 && !words[0].Quoted {
		top := lx.top()
		w := words[0].Text
		consumed := true
		switch w {
		case "if", "while", "until":
			kind := "if"
			if w != "if" {
				kind = "loop"
			}
			lx.push(&frame{kind: kind, collecting: true})
		case "elif":
			if top != nil {
				top.cond, top.collecting, top.active = nil, true, false
			}
		case "then":
			if top != nil {
				top.collecting = false
				top.active = top.kind == "if"
			}
		case "else":
			if top != nil {
				top.collecting, top.active = false, false
			}
		case "do":
			if top != nil {
				top.collecting = false
			} else {
				lx.push(&frame{kind: "loop"})
			}
		case "fi", "done", "esac", "}":
			if len(lx.frames) > 0 {
				lx.frames = lx.frames[:len(lx.frames)-1]
			}
		case "{", "!":
			if w == "{" {
				lx.push(&frame{kind: "group"})
			}
		case "for", "select":
			// for NAME in WORDS; do: the words are not a command.
			lx.push(&frame{kind: "loop", collecting: true})
			words = nil
			consumed = false
		case "case":
			f := &frame{kind: "case"}
			if len(words) > 1 {
				f.cond = []string{words[1].Text}
			}
			lx.push(f)
			words = nil
			consumed = false
		case "function":
			words = nil
			consumed = false
		default:
			consumed = false
		}
		if !consumed {
			break
		}
		words = words[1:]
	}
	// A function definition "name() {": the name is not a command.
	if len(words) == 1 && sep == "(" {
		words = nil
	}
	cond := false
	if top := lx.top(); top != nil && top.collecting {
		cond = true
	}
	if len(words) > 0 || len(redirs) > 0 {
		c := Command{Words: words, Redirects: redirs, Guard: lx.guard(), Cond: cond, PipeIn: pipeIn, PipeOut: sep == "|", Substituted: lx.subst}
		idx := len(lx.s.Commands)
		for _, r := range redirs {
			if r.Heredoc >= 0 && r.Heredoc < len(lx.s.Heredocs) {
				lx.s.Heredocs[r.Heredoc].Command = idx
			}
		}
		lx.s.Commands = append(lx.s.Commands, c)
		if top := lx.top(); top != nil && top.collecting && top.kind == "if" {
			for _, w := range words {
				top.cond = append(top.cond, w.Text)
			}
		}
	}
	switch sep {
	case "&&":
		for _, w := range words {
			lx.andGuard = append(lx.andGuard, w.Text)
		}
	case "|":
		// A pipeline keeps the guard of its first command.
	default:
		lx.andGuard = nil
	}
	if sep == ";;" || sep == ";&" || sep == ";;&" {
		if top := lx.top(); top != nil && top.kind == "case" {
			top.pattern, top.active, top.inBranch = "", false, false
		}
	}
}

func (lx *lexer) top() *frame {
	if len(lx.frames) == 0 {
		return nil
	}
	return lx.frames[len(lx.frames)-1]
}

func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

func isOpChar(c byte) bool {
	return c == ';' || c == '&' || c == '|' || c == '(' || c == ')' || c == '<' || c == '>'
}

// maxSubstDepth bounds the nesting of $(...) that is lexed as commands; deeper ones stay text.
const maxSubstDepth = 32

// substitution lexes the commands of the $(...) whose "(" is at i, in the same pass, and
// returns the offset after its ")". Each byte is lexed once, so nesting stays linear.
//
// The text of a substitution nested in another is also part of a word of each one around it:
// nested $( in a 3.9 MB script, lexed 32 levels deep, copied the script into the words of
// every level (5.7 GB allocated, issue 22 item 14). Nested substitutions are lexed as commands
// up to the script's size in all; beyond that they stay text, so a script's words hold at
// most about twice its text.
func (lx *lexer) substitution(i int) int {
	if lx.depth >= maxSubstDepth {
		return lx.matchParen(i)
	}
	if lx.depth > 0 {
		j := lx.matchParen(i)
		if j-i > lx.s.substLeft {
			return j
		}
		lx.s.substLeft -= j - i
	}
	sub := &lexer{src: lx.src, end: lx.end, opts: lx.opts, s: lx.s, subst: true, depth: lx.depth + 1}
	j := sub.run(i + 1)
	lx.subs = append(lx.subs, sub.subs...)
	return j
}

// run lexes from i; inside a $(...) it stops after the ")" that closes it and returns the
// offset after it, else it returns the end.
func (lx *lexer) run(i int) int {
	src, end := lx.src, lx.end
	lineStart := true
	for i < end {
		c := src[i]
		if lineStart && lx.opts.UnitComments {
			j := i
			for j < end && isBlank(src[j]) {
				j++
			}
			if j < end && (src[j] == '#' || src[j] == ';') {
				for j < end && src[j] != '\n' {
					j++
				}
				i = j + 1
				continue
			}
		}
		lineStart = false
		switch {
		case isBlank(c):
			i++
			continue
		case c == '\\' && i+1 < end && src[i+1] == '\n':
			i += 2
			lineStart = true
			continue
		case c == '\\' && i+2 < end && src[i+1] == '\r' && src[i+2] == '\n':
			i += 3
			lineStart = true
			continue
		case c == '\n':
			lx.flush("\n")
			i++
			lineStart = true
			if len(lx.pending) > 0 {
				i = lx.readHeredocs(i)
			}
			continue
		case c == '#' && !lx.opts.NoComments:
			for i < end && src[i] != '\n' {
				i++
			}
			continue
		}
		if c != ';' && lx.inTest() {
			// Inside [[ ... ]], "&&" and "||" join conditions, and "|", "(", ")", "<" and
			// ">" belong to patterns, regular expressions and comparisons: none ends the
			// command, opens a pipe or a subshell, or redirects.
			if i+1 < end && (c == '&' || c == '|') && src[i+1] == c {
				lx.words = append(lx.words, Word{Text: string(src[i : i+2]), Pos: i, End: i + 2, Offs: []int{i, i + 1, i + 2}})
				i += 2
				continue
			}
			w, next := lx.testWord(i)
			lx.words = append(lx.words, w)
			i = next
			continue
		}
		// Redirections, with an optional descriptor number before them.
		if j, op := lx.redirOp(i); op != "" {
			i = lx.redirect(j, op)
			continue
		}
		if isOpChar(c) {
			op := string(c)
			if i+1 < end {
				two := string(src[i : i+2])
				switch two {
				case "&&", "||", ";;", ";&", "|&":
					op = two
					if two == ";;" && i+2 < end && src[i+2] == '&' {
						op = ";;&"
					}
				}
			}
			if op == ")" && lx.subst && lx.parens == 0 {
				lx.flush(op)
				lx.finish(i + 1)
				return i + 1
			}
			switch op {
			case "(":
				lx.parens++
			case ")":
				lx.parens = max(0, lx.parens-1)
			}
			lx.flush(op)
			i += len(op)
			continue
		}
		w, next := lx.word(i)
		lx.words = append(lx.words, w)
		i = next
	}
	lx.finish(end)
	return end
}

// inTest reports whether the current command is a [[ ... ]] test that has not been closed.
func (lx *lexer) inTest() bool {
	t := &lx.test
	for ; t.read < len(lx.words) && t.state != testNone; t.read++ {
		w := lx.words[t.read]
		switch t.state {
		case testBefore:
			if !w.Quoted {
				switch w.Text {
				case "!", "if", "elif", "while", "until", "then", "do", "else", "{", "time":
					continue
				case "[[":
					t.state = testOpen
					continue
				}
			}
			t.state = testNone
		case testOpen:
			if w.Text == "]]" && !w.Quoted {
				t.state = testNone
			}
		}
	}
	return t.state == testOpen
}

// testWord reads one word of a [[ ... ]] test: up to a blank, a newline, "&&", "||" or ";",
// with "|()<>&" as ordinary characters; quotes and expansions are read as in word.
func (lx *lexer) testWord(i int) (Word, int) {
	src, end := lx.src, lx.end
	w := Word{Pos: i}
	var b []byte
	var offs []int
	for i < end {
		c := src[i]
		if isBlank(c) || c == '\n' || c == ';' || (c == '&' && i+1 < end && src[i+1] == '&') || (c == '|' && i+1 < end && src[i+1] == '|') {
			break
		}
		if strings.IndexByte("|()<>&", c) >= 0 {
			b, offs = append(b, c), append(offs, i)
			i++
			continue
		}
		// Anything else (quotes, expansions, plain text) up to the next special character.
		x, next := lx.word(i)
		if next <= i {
			break
		}
		w.Quoted = w.Quoted || x.Quoted
		b = append(b, x.Text...)
		offs = append(offs, x.Offs[:len(x.Text)]...)
		i = next
	}
	w.End = i
	w.Text = string(b)
	w.Offs = sharedOffs(append(offs, i))
	return w, i
}

// finish ends the last command; a heredoc operator on the last line gets an empty body.
func (lx *lexer) finish(at int) {
	lx.flush("\n")
	if len(lx.pending) > 0 {
		lx.readHeredocs(at)
	}
}

// redirOp recognises a redirection operator at i (after optional digits): it returns the
// offset after the operator and the operator, or "".
func (lx *lexer) redirOp(i int) (int, string) {
	src, end := lx.src, lx.end
	j := i
	for j < end && src[j] >= '0' && src[j] <= '9' {
		j++
	}
	if j < end && (j == i || src[j] == '<' || src[j] == '>') {
		rest := string(src[j:min(end, j+3)])
		for _, op := range []string{"<<<", "<<-", "&>>", ">>", "<<", ">&", "<&", "&>", ">|", "<>", ">", "<"} {
			if strings.HasPrefix(rest, op) {
				if op[0] == '&' && j != i {
					continue
				}
				return j + len(op), op
			}
		}
	}
	return i, ""
}

func (lx *lexer) redirect(i int, op string) int {
	src, end := lx.src, lx.end
	for i < end && isBlank(src[i]) {
		i++
	}
	if i >= end || src[i] == '\n' || isOpChar(src[i]) {
		return i
	}
	w, next := lx.word(i)
	r := Redirect{Op: op, Target: w, Heredoc: -1}
	if (op == "<<" || op == "<<-") && !lx.opts.NoHeredocs {
		r.Heredoc = len(lx.s.Heredocs)
		lx.s.Heredocs = append(lx.s.Heredocs, Heredoc{Delim: w.Text, Quoted: w.Quoted, StripTabs: op == "<<-", Command: len(lx.s.Commands)})
		lx.pending = append(lx.pending, r.Heredoc)
	}
	lx.redirs = append(lx.redirs, r)
	return next
}

// readHeredocs reads the bodies of the pending heredocs starting at line offset i.
func (lx *lexer) readHeredocs(i int) int {
	src, end := lx.src, lx.end
	for _, hi := range lx.pending {
		h := &lx.s.Heredocs[hi]
		h.Start, h.End = i, i
		var body []byte
		var offs []int
		for i < end {
			ls := i
			le := ls
			for le < end && src[le] != '\n' {
				le++
			}
			j := ls
			if h.StripTabs {
				for j < le && src[j] == '\t' {
					j++
				}
			}
			line := strings.TrimSuffix(string(src[j:le]), "\r")
			if line == h.Delim {
				h.End = ls
				i = min(le+1, end)
				break
			}
			for k := j; k < le; k++ {
				body = append(body, src[k])
				offs = append(offs, k)
			}
			if le < end {
				body = append(body, '\n')
				offs = append(offs, le)
			}
			i = min(le+1, end)
			h.End = i
		}
		h.Body = body
		h.Offs = append(offs, h.End)
		if len(offs) > 0 && len(body) > 0 {
			h.Offs[len(body)] = offs[len(offs)-1] + 1
		}
		h.Offs = sharedOffs(h.Offs)
	}
	lx.pending = nil
	return i
}

// word reads one word starting at i.
func (lx *lexer) word(i int) (Word, int) {
	src, end := lx.src, lx.end
	w := Word{Pos: i}
	var b []byte
	var offs []int
	add := func(c byte, at int) {
		b = append(b, c)
		offs = append(offs, at)
	}
	// addSpan adds src[from:to] as written (a substitution or process substitution): grown
	// once, not byte by byte, since such a span may be most of the script.
	addSpan := func(from, to int) {
		b = append(b, src[from:to]...)
		offs = slices.Grow(offs, to-from+1)
		for k := from; k < to; k++ {
			offs = append(offs, k)
		}
	}
	for i < end {
		c := src[i]
		if isBlank(c) || c == '\n' || isOpChar(c) {
			if (c == '<' || c == '>') && i+1 < end && src[i+1] == '(' {
				// Process substitution <(...) stays part of the word.
				j := lx.matchParen(i + 1)
				addSpan(i, j)
				i = j
				continue
			}
			if c == '(' && len(b) > 1 && b[len(b)-1] == '=' && isAssignment(string(b)) {
				// An array assignment "NAME=(a b c)": its elements are data, not commands,
				// but the command substitutions in them run.
				j := lx.arrayElements(i)
				addSpan(i, j)
				i = j
				continue
			}
			break
		}
		switch c {
		case '\'':
			w.Quoted = true
			j := i + 1
			for j < end && src[j] != '\'' {
				add(src[j], j)
				j++
			}
			i = min(j+1, end)
		case '"':
			w.Quoted = true
			j := i + 1
			for j < end && src[j] != '"' {
				if src[j] == '\\' && j+1 < end && strings.IndexByte("\"\\$`\n", src[j+1]) >= 0 {
					if src[j+1] != '\n' {
						add(src[j+1], j+1)
					}
					j += 2
					continue
				}
				if src[j] == '$' && j+1 < end && src[j+1] == '(' {
					var k int
					if j+2 < end && src[j+2] == '(' {
						k = lx.matchParen(j + 1)
					} else {
						k = lx.substitution(j + 1)
					}
					addSpan(j, k)
					j = k
					continue
				}
				if src[j] == '`' {
					// A backquoted substitution inside double quotes: its commands run too.
					k := j + 1
					for k < end && src[k] != '`' && src[k] != '"' {
						if src[k] == '\\' {
							k++
						}
						k++
					}
					if k < end && src[k] == '`' {
						lx.subs = append(lx.subs, [2]int{j + 1, k})
						for ; j <= k; j++ {
							add(src[j], j)
						}
						continue
					}
				}
				add(src[j], j)
				j++
			}
			i = min(j+1, end)
		case '\\':
			w.Quoted = true
			if i+1 < end && src[i+1] != '\n' {
				add(src[i+1], i+1)
			}
			i += 2
		case '`':
			j := i + 1
			for j < end && src[j] != '`' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, end)
			lx.subs = append(lx.subs, [2]int{i + 1, j})
			for k := i; k < min(j+1, end); k++ {
				add(src[k], k)
			}
			i = min(j+1, end)
		case '$':
			if i+1 < end && (src[i+1] == '(' || src[i+1] == '{') {
				var j int
				if src[i+1] == '(' {
					if i+2 < end && src[i+2] == '(' {
						j = lx.matchParen(i + 1) // $((arithmetic))
					} else {
						j = lx.substitution(i + 1)
					}
				} else {
					j = lx.paramExpansion(i + 1)
				}
				addSpan(i, j)
				i = j
				continue
			}
			add(c, i)
			i++
		default:
			add(c, i)
			i++
		}
	}
	w.End = min(i, end)
	w.Text = string(b)
	w.Offs = append(offs, w.End)
	if n := len(offs); n > 0 {
		w.Offs[n] = offs[n-1] + 1
	}
	w.Offs = sharedOffs(w.Offs)
	return w, w.End
}

// arrayElements returns the offset after the ")" that closes the array literal whose "(" is
// at i. Comments and quotes inside are skipped; the commands of $(...) and backquotes in the
// elements are lexed.
func (lx *lexer) arrayElements(i int) int {
	src, end := lx.src, lx.end
	for j := i + 1; j < end; j++ {
		switch c := src[j]; c {
		case ')':
			return j + 1
		case '#':
			if isBlank(src[j-1]) || src[j-1] == '\n' || src[j-1] == '(' {
				for j < end && src[j] != '\n' {
					j++
				}
			}
		case '\'':
			for j++; j < end && src[j] != '\''; j++ {
			}
		case '"':
			j = lx.doubleQuoted(j)
		case '\\':
			j++
		case '`':
			k := j + 1
			for k < end && src[k] != '`' {
				if src[k] == '\\' {
					k++
				}
				k++
			}
			lx.subs = append(lx.subs, [2]int{j + 1, min(k, end)})
			j = k
		case '$':
			if j+1 < end && src[j+1] == '(' {
				if j+2 < end && src[j+2] == '(' {
					j = lx.matchParen(j+1) - 1
				} else {
					j = lx.substitution(j+1) - 1
				}
			} else if j+1 < end && src[j+1] == '{' {
				j = lx.paramExpansion(j+1) - 1
			}
		}
	}
	return end
}

// doubleQuoted returns the offset of the '"' that closes the string opened at i (end when
// none), lexing the commands of the $(...) substitutions inside it.
func (lx *lexer) doubleQuoted(i int) int {
	src, end := lx.src, lx.end
	j := i + 1
	for ; j < end && src[j] != '"'; j++ {
		if src[j] == '\\' {
			j++
		} else if src[j] == '$' && j+1 < end && src[j+1] == '(' && (j+2 >= end || src[j+2] != '(') {
			j = lx.substitution(j+1) - 1
		}
	}
	return j
}

// paramExpansion returns the offset after the "}" that closes the ${...} whose "{" is at i.
// The commands of a $(...) inside (${VAR:-$(cmd)}) are lexed, and such a substitution may
// span lines; otherwise a ${...} never spans lines, and the scan gives up at the end of the
// line rather than swallow the script.
func (lx *lexer) paramExpansion(i int) int {
	src, end := lx.src, lx.end
	depth := 0
	for j := i; j < end; j++ {
		switch c := src[j]; c {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '\'':
			for j++; j < end && src[j] != '\'' && src[j] != '\n'; j++ {
			}
		case '"':
			j = lx.doubleQuoted(j)
		case '\\':
			j++
		case '$':
			if j+1 < end && src[j+1] == '(' {
				if j+2 < end && src[j+2] == '(' {
					j = lx.matchParen(j+1) - 1
				} else {
					j = lx.substitution(j+1) - 1
				}
			}
		case '\n':
			return j
		}
	}
	return end
}

// matchParen returns the offset after the ")" matching the "(" at i, skipping quotes.
func (lx *lexer) matchParen(i int) int {
	return lx.match(i, '(', ')')
}

func (lx *lexer) match(i int, open, closing byte) int {
	src, end := lx.src, lx.end
	depth := 0
	for i < end {
		c := src[i]
		switch c {
		case open:
			depth++
		case closing:
			depth--
			if depth == 0 {
				return i + 1
			}
		case '\'':
			j := i + 1
			for j < end && src[j] != '\'' {
				j++
			}
			i = j
		case '"':
			j := i + 1
			for j < end && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case '\\':
			i++
		}
		i++
	}
	return end
}
