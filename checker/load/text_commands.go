package load

import (
	"bytes"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

func init() {
	instanceFinders = append(instanceFinders, findCommandInstances)
}

// findCommandInstances finds kube-proxy command lines in text files: commands of shell
// scripts, systemd Exec*= lines (with continuations), Dockerfile RUN/CMD/ENTRYPOINT (shell and
// exec form), Makefile recipes, and flag files (one flag per line). Each becomes an
// InstanceCommand whose flags carry exact positions and removal edits, and whose --config is
// resolved to a heredoc that writes that path, or else to the only KubeProxyConfiguration
// file of that name in the workspace.
func findCommandInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	var configs *configIndex
	for _, f := range ws.Files {
		out = append(out, commandInstances(ws, f, &configs, nil)...)
	}
	return out
}

// commandInstances finds the kube-proxy command lines of text file f (findCommandInstances);
// byName are environment files of a unit resolved by base name in its cluster
// (pairEnvFilesByName), read after those resolved by path.
func commandInstances(ws *checker.Workspace, f *checker.File, configs **configIndex, byName []*checker.File) []*checker.Instance {
	if f.Format != checker.FormatText {
		return nil
	}
	d := shell.DialectOf(f.Path, f.Content)
	if d == shell.DialectNone || (d != shell.DialectFlags && !strings.Contains(string(f.Content), "kube-proxy")) {
		return nil
	}
	found := dialectInstances(ws, f, d, byName)
	for _, in := range found {
		if cf := in.Flag("config"); cf != nil {
			if *configs == nil {
				*configs = newConfigIndex(ws)
			}
			resolveTextConfig(*configs, in, cf)
		}
	}
	return found
}

// dialectInstances finds the kube-proxy command lines of f read in dialect d, without
// resolving their --config (commandInstances).
func dialectInstances(ws *checker.Workspace, f *checker.File, d shell.Dialect, byName []*checker.File) []*checker.Instance {
	s := lexScript(f, d)
	var found []*checker.Instance
	if d == shell.DialectFlags {
		var words []shell.Word
		for _, c := range s.Commands {
			words = append(words, c.Words...)
		}
		if len(words) == 0 {
			return nil
		}
		in := &checker.Instance{Kind: checker.InstanceCommand, Source: f, Label: "kube-proxy flags in " + f.Path}
		in.Program, in.ProgramEnd = f.PositionAt(words[0].Pos), f.PositionAt(words[0].End)
		in.Flags, _ = textFlags(f, words, true)
		found = append(found, in)
	} else {
		env := textEnv(d, f, s)
		if d == shell.DialectUnit {
			// EnvironmentFile= settings override Environment= ones.
			for name, w := range unitEnvFiles(ws, f) {
				env[name] = w
			}
			for _, ef := range byName {
				for name, w := range envAssignments(ef) {
					env[name] = w
				}
			}
		}
		for i := range s.Commands {
			c := &s.Commands[i]
			p := c.Program()
			if p >= len(c.Words) || !isKubeProxyBinary(c.Words[p].Text) {
				continue
			}
			prog := c.Words[p]
			pos := f.PositionAt(prog.Pos)
			in := &checker.Instance{
				Kind: checker.InstanceCommand, Source: f,
				Program: pos, ProgramEnd: f.PositionAt(prog.End),
				Label:   fmt.Sprintf("kube-proxy in %s %s line %d", d, f.Path, pos.Line),
				Windows: strings.HasSuffix(strings.ToLower(prog.Text), ".exe"),
			}
			var unknown bool
			in.Flags, unknown = envFlags(f, expandEnv(f, c.Words[p+1:], env))
			if unknown && in.Flag("config") == nil && in.Flag("proxy-mode") == nil {
				// "kube-proxy $KUBE_PROXY_ARGS": the flags that decide the mode are not
				// in the file, so nothing can be said about its defaults.
				continue
			}
			if in.Flag("version") != nil || in.Flag("help") != nil || in.Flag("h") != nil {
				// kube-proxy --version (a script checking what is installed) or --help
				// prints and exits: it runs no kube-proxy.
				continue
			}
			found = append(found, in)
		}
	}
	return found
}

// textFlags parses kube-proxy flags from words: --name=value, --name value, -v=2. lineMode
// (flag files) takes one flag per line, with everything after the name on the line as its
// value. unknown reports a word that is neither a flag nor a flag's value but an expansion
// ($ARGS, "$@"), which hides flags from the linter.
func textFlags(f *checker.File, words []shell.Word, lineMode bool) (flags []checker.Flag, unknown bool) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w.Text, "-") || w.Text == "-" || w.Text == "--" {
			if strings.Contains(w.Text, "$") || text.HasPlaceholder(w.Text) {
				// $ARGS, "$@", {{ kube_proxy_args }}: may carry any flag.
				unknown = true
			}
			continue
		}
		name := strings.TrimLeft(w.Text, "-")
		fl := checker.Flag{}
		last := w
		if k, v, ok := strings.Cut(name, "="); ok {
			fl.Name, fl.Value, fl.HasValue = k, v, true
			eq := strings.IndexByte(w.Text, '=') + 1
			a, b := w.Span(eq, len(w.Text))
			fl.ValuePos, fl.ValueEnd = f.PositionAt(a), f.PositionAt(b)
		} else {
			fl.Name = name
			if !boolFlags[name] && i+1 < len(words) && (!strings.HasPrefix(words[i+1].Text, "-") || isNegativeNumber(words[i+1].Text)) &&
				(!lineMode || sameLine(f, w.Pos, words[i+1].Pos)) {
				v := words[i+1]
				fl.Value, fl.HasValue = v.Text, true
				a, b := v.Span(0, len(v.Text))
				fl.ValuePos, fl.ValueEnd = f.PositionAt(a), f.PositionAt(b)
				last = v
				i++
			}
		}
		// The span leaves out quotes around the flag, as for YAML flags; Remove takes them.
		a, _ := w.Span(0, len(w.Text))
		_, b := last.Span(0, len(last.Text))
		fl.Pos, fl.End = f.PositionAt(a), f.PositionAt(b)
		if !fl.HasValue {
			fl.ValuePos, fl.ValueEnd = fl.Pos, fl.End
		}
		fl.Remove = removeTextEdits(f, w.Pos, last.End, lineMode)
		flags = append(flags, fl)
	}
	return flags, unknown
}

func sameLine(f *checker.File, a, b int) bool {
	return bytes.IndexByte(f.Content[min(a, b):max(a, b)], '\n') < 0
}

// removeTextEdits deletes the bytes [from, to) of a flag: its whole line when it stands alone
// on it (flag files, continued command lines), the preceding comma of a JSON exec-form item,
// or the blanks before it. It reads only the flag's neighbourhood, never the whole line or
// file, so that a command line of many flags costs linear time.
func removeTextEdits(f *checker.File, from, to int, lineMode bool) []checker.TextEdit {
	src := f.Content
	ls := nlLineStart(f, from)
	le := nlLineEnd(f, to)
	// What strings.TrimSpace would leave of the text before and after the flag on its line.
	beforeBlank := lenTrimSpaceRight(src[ls:from]) == 0
	a := to + leadingSpace(src[to:le])
	afterBlank := a == le
	afterComment := !afterBlank && src[a] == '#'
	afterContinuation := !afterBlank && src[a] == '\\' && leadingSpace(src[a+1:le]) == le-a-1
	edit := func(a, b int) []checker.TextEdit {
		return []checker.TextEdit{{Pos: f.PositionAt(a), End: f.PositionAt(b)}}
	}
	next := min(le+1, len(src))
	switch {
	case beforeBlank && (afterBlank || afterComment) && lineMode:
		return edit(ls, next)
	case beforeBlank && afterContinuation:
		// "    --flag=x \": the whole continued line goes.
		return edit(ls, next)
	case beforeBlank && afterBlank && ls > 0:
		// The last line of a continued command: drop it with the previous line's " \".
		pe := ls - 1
		if pe > 0 && src[pe-1] == '\r' {
			pe--
		}
		prev := trimBlanksRight(src, pe)
		if prev > 0 && src[prev-1] == '\\' {
			return edit(trimBlanksRight(src, prev-1), le)
		}
	}
	a = from
	for a > 0 && (src[a-1] == ' ' || src[a-1] == '\t') {
		a--
	}
	if a > 0 && src[a-1] == ',' && from < len(src) && src[from] == '"' {
		// An item of a JSON exec-form array: take the comma before it.
		return edit(a-1, to)
	}
	if a == ls {
		// First on its line: take the blanks after it instead.
		b := to
		for b < le && (src[b] == ' ' || src[b] == '\t') {
			b++
		}
		return edit(from, b)
	}
	return edit(a, to)
}

// nlLineStart returns the offset after the last "\n" before off. The line index finds it
// without reading the line, unless a lone CR or a Unicode line break starts the line.
func nlLineStart(f *checker.File, off int) int {
	src := f.Content
	if f.Lines != nil {
		if s := f.Lines.LineStart(f.Lines.Line(off)); s <= off && (s == 0 || src[s-1] == '\n') {
			return s
		}
	}
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// nlLineEnd returns the offset of the first "\n" at or after off, or the end of the content.
func nlLineEnd(f *checker.File, off int) int {
	src := f.Content
	if f.Lines != nil {
		line := f.Lines.Line(off)
		if line == f.Lines.Lines() {
			return len(src) // the last line has no break
		}
		if e := f.Lines.LineStart(line + 1); e > off && src[e-1] == '\n' {
			return e - 1
		}
	}
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(src)
}

// lenTrimSpaceRight returns the length of b without its trailing white space
// (len(bytes.TrimRightFunc(b, unicode.IsSpace))), reading only that white space.
func lenTrimSpaceRight(b []byte) int {
	n := len(b)
	for n > 0 {
		r, size := utf8.DecodeLastRune(b[:n])
		if !unicode.IsSpace(r) {
			break
		}
		n -= size
	}
	return n
}

// leadingSpace returns the length of the leading white space of b.
func leadingSpace(b []byte) int {
	n := 0
	for n < len(b) {
		r, size := utf8.DecodeRune(b[n:])
		if !unicode.IsSpace(r) {
			break
		}
		n += size
	}
	return n
}

// trimBlanksRight returns the offset before the spaces and tabs that end src[:end].
func trimBlanksRight(src []byte, end int) int {
	for end > 0 && (src[end-1] == ' ' || src[end-1] == '\t') {
		end--
	}
	return end
}

// configIndex finds the KubeProxyConfiguration a --config path names: the documents that
// heredocs and embedded blocks write to a path (heredocTargets, blockTargets), and the
// top-level configuration files by base name, in workspace order. It is built once, so that
// each --config is resolved without a pass over every document.
type configIndex struct {
	written, byBase map[string][]*checker.Document
}

func newConfigIndex(ws *checker.Workspace) *configIndex {
	x := &configIndex{written: heredocTargets(ws), byBase: map[string][]*checker.Document{}}
	blockTargets(ws, x.written)
	for _, d := range ws.Docs {
		if d.Kind == "KubeProxyConfiguration" && d.Parent == nil && d.File.Parent == nil {
			b := path.Base(d.File.Path)
			x.byBase[b] = append(x.byBase[b], d)
		}
	}
	return x
}

// resolveTextConfig points a command line's --config at a KubeProxyConfiguration in the
// workspace: a heredoc that writes that path, or else the only file of that base name
// holding one.
func resolveTextConfig(configs *configIndex, in *checker.Instance, cf *checker.Flag) {
	p := path.Clean(cf.Value)
	if text.HasPlaceholder(cf.Value) {
		in.ConfigUnresolved = "--config " + cf.Value + " is a placeholder"
		return
	}
	for _, d := range configs.written[p] {
		if d.Kind == "KubeProxyConfiguration" {
			in.Config = d
			pos, end := d.KindPos()
			in.ConfigVia = append(in.ConfigVia, checker.Related{Pos: pos, End: end, Message: "a heredoc writes the configuration to " + p})
			return
		}
	}
	cands := configs.byBase[path.Base(p)]
	if len(cands) == 1 {
		in.Config = cands[0]
		pos, end := cands[0].KindPos()
		in.ConfigVia = append(in.ConfigVia, checker.Related{Pos: pos, End: end, Message: "--config " + cf.Value + " is taken to be this file (same name)"})
		return
	}
	in.ConfigUnresolved = "--config " + cf.Value + " is not in the linted files"
}

// dropClaimedConfigs removes standalone-configuration instances whose document a command
// line or installer instance uses, so each configuration is one kube-proxy.
func dropClaimedConfigs(ins []*checker.Instance) []*checker.Instance {
	claimed := map[*checker.Document]bool{}
	for _, in := range ins {
		if in.Kind != checker.InstanceConfig && in.Config != nil {
			claimed[in.Config] = true
		}
		if in.Installer != nil {
			for _, d := range in.Installer.Patches {
				claimed[d] = true
			}
		}
	}
	if len(claimed) == 0 {
		return ins
	}
	out := ins[:0]
	for _, in := range ins {
		if in.Kind == checker.InstanceConfig && claimed[in.Config] {
			continue
		}
		out = append(out, in)
	}
	return out
}

// textEnv collects the variables a file assigns, for "kube-proxy $KUBE_PROXY_ARGS": shell
// assignments (NAME=value, export NAME=value) and systemd Environment= lines. The last
// assignment wins; the words keep their positions, so flags found through a variable point
// at the assignment.
func textEnv(d shell.Dialect, f *checker.File, s *shell.Script) map[string]envWord {
	env := map[string]envWord{}
	add := func(w shell.Word) {
		if name, _, ok := strings.Cut(w.Text, "="); ok && shell.IsAssignment(w.Text) {
			env[name] = envWord{w: paramDefault(w), f: f}
		}
	}
	switch d {
	case shell.DialectUnit:
		src := f.Content
		for ls := 0; ls < len(src); {
			le := ls
			for le < len(src) && src[le] != '\n' {
				le++
			}
			line := strings.TrimLeft(string(src[ls:le]), " \t")
			if v, ok := strings.CutPrefix(line, "Environment="); ok {
				start := le - len(v)
				for _, c := range shell.Parse(src, start, le, shell.Options{NoComments: true, NoHeredocs: true}).Commands {
					for _, w := range c.Words {
						add(w)
					}
				}
			}
			ls = le + 1
		}
	case shell.DialectShell, shell.DialectMakefile, shell.DialectDockerfile:
		for i := range s.Commands {
			c := &s.Commands[i]
			words := c.Words
			if len(words) > 0 && (words[0].Text == "export" || words[0].Text == "readonly" || words[0].Text == "declare" || words[0].Text == "local") {
				words = words[1:]
			}
			all := len(words) > 0
			for _, w := range words {
				if !shell.IsAssignment(w.Text) {
					all = false
				}
			}
			if all {
				for _, w := range words {
					add(w)
				}
			}
		}
	}
	return env
}

// paramDefaultRe is a value that is one parameter expansion with a literal default:
// ${NAME:-value}, ${NAME-value}, ${NAME:=value}, ${NAME=value}.
var paramDefaultRe = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*:?[-=]([^$\x60{}"'\\]+)\}$`)

// paramDefault turns the assignment MODE="${MODE:-ipvs}" into MODE=ipvs with the default's
// positions: the default is the setting unless the environment overrides it, which the
// repository does not show. Other assignments stay as they are.
func paramDefault(w shell.Word) shell.Word {
	name, val, _ := strings.Cut(w.Text, "=")
	m := paramDefaultRe.FindStringSubmatchIndex(val)
	k := len(name) + 1
	if m == nil || len(w.Offs) != len(w.Text)+1 {
		return w
	}
	from, to := k+m[2], k+m[3]
	offs := append(append([]int(nil), w.Offs[:k]...), w.Offs[from:to+1]...)
	return shell.Word{Text: name + "=" + w.Text[from:to], Pos: w.Pos, End: w.End, Offs: offs, Quoted: w.Quoted}
}

// envWord is a word and the file it is in: a variable's value may come from another file
// (an EnvironmentFile= of a unit).
type envWord struct {
	w shell.Word
	f *checker.File
	// via is the $NAME word that expanded to w; split marks a word whose flag name is
	// written at via and whose value at the assignment (--proxy-mode=$MODE).
	via   *shell.Word
	split bool
}

// wordVia is how a word of a command line came from a variable (envFlags).
type wordVia struct {
	via   *shell.Word
	whole bool
}

// expandEnv replaces $NAME and ${NAME} words by the words of NAME's value, when the file or
// its environment files assign it; other words stay, in f. Unquoted, the value splits into
// words as the shell splits it; quoted ("$MODE"), a value of one word is that word. The
// value of a flag written --name=$NAME is expanded the same way when f assigns NAME.
func expandEnv(f *checker.File, words []shell.Word, env map[string]envWord) []envWord {
	var out []envWord
	for _, w := range words {
		use := w
		if flag, ref, ok := strings.Cut(w.Text, "="); ok && strings.HasPrefix(flag, "-") {
			if x, ok := inlineDefaultWord(w, len(flag)+1, env); ok {
				out = append(out, envWord{w: x})
				continue
			}
			if a, ok := env[varRef(ref)]; ok {
				if vals := shell.SplitValue(a.w); len(vals) == 1 && a.f == f {
					// --proxy-mode=$MODE: the flag's name here, its value at the assignment.
					k := len(flag) + 1
					x := shell.Word{Text: flag + "=" + vals[0].Text, Pos: w.Pos, End: vals[0].End, Quoted: w.Quoted || vals[0].Quoted}
					if len(w.Offs) > k && len(vals[0].Offs) > 0 {
						x.Offs = append(append([]int(nil), w.Offs[:k]...), vals[0].Offs...)
						out = append(out, envWord{w: x, f: a.f, via: &use, split: true})
						continue
					}
				}
			}
			out = append(out, envWord{w: w})
			continue
		}
		if x, ok := inlineDefaultWord(w, 0, env); ok {
			out = append(out, envWord{w: x})
			continue
		}
		name := varRef(w.Text)
		if a, ok := env[name]; ok && name != "" {
			vals := shell.SplitValue(a.w)
			if w.Quoted && len(vals) != 1 {
				out = append(out, envWord{w: w})
				continue
			}
			for _, x := range vals {
				out = append(out, envWord{w: x, f: a.f, via: &use})
			}
			continue
		}
		out = append(out, envWord{w: w})
	}
	return out
}

// inlineDefaultWord expands w's text from byte k on when it is exactly ${NAME:-value} (or
// ${NAME-value}) with a literal value and NAME assigned nowhere in env: the default, written
// at the use, is the value (--proxy-mode=${MODE:-ipvs}), at its own position. A NAME the
// file assigns is left to the assignment's expansion.
func inlineDefaultWord(w shell.Word, k int, env map[string]envWord) (shell.Word, bool) {
	if len(w.Offs) != len(w.Text)+1 || k > len(w.Text) {
		return w, false
	}
	name, def, at, ok := inlineDefault(w.Text[k:])
	if !ok || !strings.HasSuffix(w.Text, "}") || !shell.IsAssignment(name+"=") || !literalValueRe.MatchString(def) {
		return w, false
	}
	if _, assigned := env[name]; assigned {
		return w, false
	}
	from := k + at
	offs := append(append([]int(nil), w.Offs[:k]...), w.Offs[from:from+len(def)+1]...)
	return shell.Word{Text: w.Text[:k] + def, Pos: w.Pos, End: w.End, Offs: offs, Quoted: w.Quoted}, true
}

// varRef returns NAME when text is exactly $NAME or ${NAME}, else "".
func varRef(text string) string {
	name := ""
	switch {
	case strings.HasPrefix(text, "${") && strings.HasSuffix(text, "}"):
		name = text[2 : len(text)-1]
	case strings.HasPrefix(text, "$"):
		name = text[1:]
	}
	if name == "" || !shell.IsAssignment(name+"=") {
		return ""
	}
	return name
}

// envFlags parses flags from expanded words, each run of words with the positions of the file
// it comes from (f for the command line's own words). A flag whose name or value came from a
// variable notes where the command line expands it (Flag.Via): the finding points at the
// value in the assignment.
func envFlags(f *checker.File, words []envWord) (flags []checker.Flag, unknown bool) {
	fileOf := func(w envWord) *checker.File {
		if w.f == nil {
			return f
		}
		return w.f
	}
	for i := 0; i < len(words); {
		// The command line's own words and the values of its own variables are one run:
		// "--proxy-mode $MODE" is a flag and its value.
		src := fileOf(words[i])
		j := i
		var run []shell.Word
		vias := map[checker.Position]wordVia{}
		for ; j < len(words) && fileOf(words[j]) == src; j++ {
			w := words[j]
			run = append(run, w.w)
			if w.via != nil {
				a, _ := w.w.Span(0, len(w.w.Text))
				vias[src.PositionAt(a)] = wordVia{via: w.via, whole: !w.split}
			}
		}
		fl, u := textFlags(src, run, false)
		for k := range fl {
			name, value := vias[fl[k].Pos], vias[fl[k].ValuePos]
			via := name.via
			if !name.whole && (value.via != nil || name.via != nil) {
				// The name is written here and the value at an assignment (--proxy-mode
				// "$MODE", --proxy-mode=$MODE): the setting is the value; removing the flag
				// would need edits in two places.
				if value.via != nil {
					via = value.via
				}
				fl[k].Pos, fl[k].End, fl[k].Remove = fl[k].ValuePos, fl[k].ValueEnd, nil
			}
			if via == nil {
				continue
			}
			from := 0
			if i := strings.IndexByte(via.Text, '='); i >= 0 && strings.HasPrefix(via.Text, "-") {
				from = i + 1
			}
			a, b := via.Span(from, len(via.Text))
			msg := via.Text[from:] + " is expanded here"
			if src != f {
				msg += ", from " + src.Path
			}
			fl[k].Via = append(fl[k].Via, checker.Related{Pos: f.PositionAt(a), End: f.PositionAt(b), Message: msg})
		}
		flags, unknown = append(flags, fl...), unknown || u
		i = j
	}
	return flags, unknown
}
