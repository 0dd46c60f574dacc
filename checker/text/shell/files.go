package shell

import (
	"bytes"
	"path"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Dialect is the kind of text file a command lexer understands.
type Dialect int

// Dialects.
const (
	// DialectNone is a file holding no commands this package reads.
	DialectNone Dialect = iota
	// DialectShell is a shell script (.sh, .bash, a shell shebang).
	DialectShell
	// DialectUnit is a systemd unit or drop-in: only Exec*= values are commands.
	DialectUnit
	// DialectDockerfile is a Dockerfile: RUN, CMD and ENTRYPOINT are commands.
	DialectDockerfile
	// DialectMakefile is a Makefile: recipe lines are commands.
	DialectMakefile
	// DialectFlags is a kube-proxy flag file: one flag per line, no program.
	DialectFlags
)

// String names the dialect for messages and labels.
func (d Dialect) String() string {
	return [...]string{"file", "shell script", "systemd unit", "Dockerfile", "Makefile", "flag file"}[d]
}

// templateExts are extensions of template files whose inner name tells the real type
// (kube-proxy.service.j2, install.sh.tmpl).
var templateExts = map[string]bool{
	".j2": true, ".jinja": true, ".jinja2": true, ".tmpl": true, ".tpl": true, ".erb": true,
	".template": true, ".tftpl": true, ".gotmpl": true,
}

// StripTemplateExt removes a template extension: "kube-proxy.service.j2" -> "kube-proxy.service".
func StripTemplateExt(name string) string {
	for {
		ext := strings.ToLower(path.Ext(name))
		if !templateExts[ext] || len(name) == len(ext) {
			return name
		}
		name = name[:len(name)-len(ext)]
	}
}

var shellNames = map[string]bool{"sh": true, "bash": true, "dash": true, "ash": true, "ksh": true, "zsh": true, "busybox": true}

// HasShellShebang reports whether content starts with a shell interpreter line.
func HasShellShebang(content []byte) bool {
	if !bytes.HasPrefix(content, []byte("#!")) {
		return false
	}
	line := content[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	fields := strings.Fields(string(line))
	if len(fields) == 0 {
		return false
	}
	prog := path.Base(fields[0])
	if prog == "env" {
		for _, f := range fields[1:] {
			if !strings.HasPrefix(f, "-") {
				prog = path.Base(f)
				break
			}
		}
	}
	return shellNames[prog]
}

// DialectOf classifies a file by name, then by content (shebang, flag-file shape). name is a
// slash path.
func DialectOf(name string, content []byte) Dialect {
	base := StripTemplateExt(path.Base(name))
	lower := strings.ToLower(base)
	ext := path.Ext(lower)
	switch {
	case lower == "dockerfile" || lower == "containerfile" || strings.HasPrefix(lower, "dockerfile.") || ext == ".dockerfile" || ext == ".containerfile":
		return DialectDockerfile
	case lower == "makefile" || lower == "gnumakefile" || ext == ".mk":
		return DialectMakefile
	case ext == ".service" || (ext == ".conf" && strings.HasSuffix(path.Dir(name), ".service.d")):
		return DialectUnit
	case ext == ".sh" || ext == ".bash" || ext == ".ksh" || ext == ".zsh":
		return DialectShell
	}
	if HasShellShebang(content) {
		return DialectShell
	}
	if isFlagFileName(lower) && looksLikeFlagFile(content) {
		return DialectFlags
	}
	return DialectNone
}

// isFlagFileName: kube-proxy flag files are named after kube-proxy or end in .flags/.args.
func isFlagFileName(lower string) bool {
	ext := path.Ext(lower)
	if ext == ".flags" || ext == ".args" {
		return true
	}
	if !strings.Contains(lower, "kube-proxy") && !strings.Contains(lower, "kube_proxy") && !strings.Contains(lower, "kubeproxy") {
		return false
	}
	switch ext {
	case "", ".conf", ".cfg", ".txt", ".env", ".opts", ".options":
		return true
	}
	return false
}

// looksLikeFlagFile reports whether every line that is not blank or a comment is a flag.
func looksLikeFlagFile(content []byte) bool {
	n := 0
	for _, line := range strings.Split(string(content), "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		if !strings.HasPrefix(t, "-") || strings.HasPrefix(t, "---") || strings.HasPrefix(t, "- ") {
			return false
		}
		n++
	}
	return n > 0
}

// MemoKey is the key under which a file's parsed Script is shared (checker.File.Memo): the
// loader and the rules parse each text file once per dialect.
type MemoKey struct{ Dialect Dialect }

// ParseFile lexes the commands of a text file of dialect d. Template placeholders are
// neutralised first (see Neutralize), so offsets are those of content.
func ParseFile(d Dialect, content []byte) *Script {
	src := content
	if n := Neutralize(content); n != nil {
		src = n
		s := parseFile(d, src)
		s.restore(content, src)
		return s
	}
	return parseFile(d, src)
}

// restore gives words and heredoc bodies lexed from the neutralised text src their true text
// from content: placeholders were masked only to lex the commands around them, and a rule or
// message never sees masked text.
func (s *Script) restore(content, src []byte) {
	fix := func(text string, offs []int) string {
		var b []byte
		for j := 0; j < len(text) && j < len(offs); j++ {
			o := offs[j]
			if o >= 0 && o < len(src) && o < len(content) && src[o] != content[o] {
				if b == nil {
					b = []byte(text)
				}
				b[j] = content[o]
			}
		}
		if b == nil {
			return text
		}
		return string(b)
	}
	for i := range s.Commands {
		c := &s.Commands[i]
		for k := range c.Words {
			c.Words[k].Text = fix(c.Words[k].Text, c.Words[k].Offs)
		}
		for k := range c.Redirects {
			r := &c.Redirects[k].Target
			r.Text = fix(r.Text, r.Offs)
		}
	}
	for i := range s.Heredocs {
		h := &s.Heredocs[i]
		h.Body = []byte(fix(string(h.Body), h.Offs))
	}
}

func parseFile(d Dialect, src []byte) *Script {
	s := &Script{}
	switch d {
	case DialectShell, DialectFlags:
		ParseInto(s, src, 0, len(src), Options{})
	case DialectUnit:
		forLines(src, func(ls, le int) int {
			line := src[ls:le]
			t := bytes.TrimLeft(line, " \t")
			if !bytes.HasPrefix(t, []byte("Exec")) {
				return le
			}
			eq := bytes.IndexByte(t, '=')
			if eq < 0 {
				return le
			}
			key := strings.TrimSpace(string(t[:eq]))
			if strings.ContainsAny(key, " \t\"'") {
				return le
			}
			start := ls + (len(line) - len(t)) + eq + 1
			for start < le && (src[start] == ' ' || src[start] == '\t') {
				start++
			}
			for start < le && strings.IndexByte("-@:+!|", src[start]) >= 0 {
				start++
			}
			end := logicalEnd(src, ls, true)
			ParseInto(s, src, start, end, Options{NoComments: true, UnitComments: true, NoHeredocs: true})
			return end
		})
	case DialectDockerfile:
		forLines(src, func(ls, le int) int {
			t := bytes.TrimLeft(src[ls:le], " \t")
			if len(t) == 0 || t[0] == '#' {
				return le
			}
			kw, _, _ := bytes.Cut(t, []byte(" "))
			end := logicalEnd(src, ls, true)
			switch strings.ToUpper(string(bytes.TrimRight(kw, "\t\r"))) {
			case "RUN", "CMD", "ENTRYPOINT":
			default:
				return end
			}
			start := ls + (le - ls - len(t)) + len(kw)
			for start < end && (src[start] == ' ' || src[start] == '\t') {
				start++
			}
			if start < end && src[start] == '[' {
				if c, ok := parseExecForm(src, start, end); ok {
					s.Commands = append(s.Commands, c)
					s.expandNested(len(s.Commands)-1, 0)
					return end
				}
			}
			n := len(s.Commands)
			ParseInto(s, src, start, end, Options{UnitComments: true, NoHeredocs: true})
			// RUN options such as --mount=... come before the command.
			for k := n; k < len(s.Commands) && k == n; k++ {
				c := &s.Commands[k]
				for len(c.Words) > 0 && strings.HasPrefix(c.Words[0].Text, "--") {
					c.Words = c.Words[1:]
				}
			}
			return end
		})
	case DialectMakefile:
		forLines(src, func(ls, le int) int {
			if ls >= le || src[ls] != '\t' {
				return le
			}
			start := ls + 1
			for start < le && strings.IndexByte("@-+ \t", src[start]) >= 0 {
				start++
			}
			end := logicalEnd(src, ls, false)
			ParseInto(s, src, start, end, Options{})
			return end
		})
	}
	return s
}

// forLines calls fn with the span of each line (without its newline); fn returns the offset
// where its region ended, so continued lines are not visited twice.
func forLines(src []byte, fn func(ls, le int) int) {
	for i := 0; i < len(src); {
		le := i
		for le < len(src) && src[le] != '\n' {
			le++
		}
		next := max(fn(i, le), le)
		if next < len(src) && src[next] == '\n' {
			next++
		}
		i = max(next, i+1)
	}
}

// logicalEnd returns the end of the line starting at ls, following backslash continuations.
// With skipComments, comment lines inside the continuation (systemd, Dockerfile) are skipped.
func logicalEnd(src []byte, ls int, skipComments bool) int {
	i := ls
	for {
		le := i
		for le < len(src) && src[le] != '\n' {
			le++
		}
		t := bytes.TrimRight(src[i:le], " \t\r")
		if i != ls && skipComments {
			if tt := bytes.TrimLeft(t, " \t"); len(tt) > 0 && (tt[0] == '#' || tt[0] == ';') {
				if le >= len(src) {
					return le
				}
				i = le + 1
				continue
			}
		}
		if !bytes.HasSuffix(t, []byte(`\`)) || le >= len(src) {
			return le
		}
		i = le + 1
	}
}

// parseExecForm reads a JSON array of strings (Dockerfile exec form) as one command.
func parseExecForm(src []byte, start, end int) (Command, bool) {
	var c Command
	i := start + 1
	for i < end {
		switch src[i] {
		case ' ', '\t', '\r', '\n', ',', '\\':
			i++
			continue
		case ']':
			return c, len(c.Words) > 0
		case '"':
		default:
			return Command{}, false
		}
		w := Word{Pos: i, Quoted: true}
		var b []byte
		var offs []int
		j := i + 1
		for j < end && src[j] != '"' {
			if src[j] == '\\' && j+1 < end {
				e := src[j+1]
				switch e {
				case 'n':
					e = '\n'
				case 't':
					e = '\t'
				case 'u':
					// Not needed for command lines: keep the escape as written.
					b = append(b, '\\')
					offs = append(offs, j)
					j++
					continue
				}
				b = append(b, e)
				offs = append(offs, j)
				j += 2
				continue
			}
			b = append(b, src[j])
			offs = append(offs, j)
			j++
		}
		if j >= end {
			return Command{}, false
		}
		w.End = j + 1
		w.Text = string(b)
		w.Offs = append(offs, j)
		c.Words = append(c.Words, w)
		i = j + 1
	}
	return Command{}, false
}

// Neutralize returns a copy of content in which template placeholders (text.TemplateSpans:
// Go/Helm {{ }}, Jinja2 {% %} and {# #}, ERB <% %>, Terraform %{ }, envsubst %VAR%) are
// replaced by text of the same byte length, so that offsets, lines and columns stay exact: a
// line holding only template logic becomes blank, an inline placeholder, or an emitting one
// alone on its line ({{ extra_args | join(' ') }} in a continued ExecStart), becomes "${___}",
// which the lexer reads as one word and text.HasPlaceholder recognises, so the command
// line is known to carry more words. ParseFile restores the true text of every word. It
// returns nil when content has no placeholder.
func Neutralize(content []byte) []byte {
	spans := text.TemplateSpans(content)
	if len(spans) == 0 {
		return nil
	}
	out := append([]byte(nil), content...)
	masked := append([]byte(nil), content...)
	for _, sp := range spans {
		for x := sp.From; x < sp.To; x++ {
			if masked[x] != '\n' {
				masked[x] = ' '
			}
		}
	}
	// standalone[ls]: the line starting at ls holds only blanks once placeholders are masked.
	standalone := map[int]bool{}
	ls, scanned := 0, 0
	for _, sp := range spans {
		for ; scanned < sp.From; scanned++ {
			if content[scanned] == '\n' {
				ls = scanned + 1
			}
		}
		if _, ok := standalone[ls]; !ok {
			le := ls
			for le < len(masked) && masked[le] != '\n' {
				le++
			}
			standalone[ls] = len(bytes.Trim(masked[ls:le], " \t\r")) == 0
		}
		multi := bytes.IndexByte(content[sp.From:sp.To], '\n') >= 0
		if multi || (standalone[ls] && !sp.Output) {
			for x := sp.From; x < sp.To; x++ {
				if content[x] != '\n' && content[x] != '\r' {
					out[x] = ' '
				}
			}
			continue
		}
		n := sp.To - sp.From
		if n < 3 {
			for x := sp.From; x < sp.To; x++ {
				out[x] = '_'
			}
			continue
		}
		out[sp.From] = '$'
		out[sp.From+1] = '{'
		for x := sp.From + 2; x < sp.To-1; x++ {
			out[x] = '_'
		}
		out[sp.To-1] = '}'
	}
	return out
}
