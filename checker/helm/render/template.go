package render

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"

	"sort"
	"strconv"
	"strings"
	"text/template/parse"
)

// fileInfo is what the parse of one template file says: its text nodes (literal output),
// its output actions and the helpers it defines.
type fileInfo struct {
	texts   [][2]int      // [from, to) of each literal text node of the main template, in order
	actions []helm.Action // output actions of the main template, by From
	defines map[string]*defineInfo
	err     error
	// bound is set when the template asks for a loop or string beyond maxCount (a literal
	// count), counts are the .Values paths used as counts (checked against the values).
	bound  string
	counts [][]string
}

// maxCount bounds the counts of until, untilStep, seq, repeat and range over a number: a
// chart that asks for more is not rendered (a hostile chart could otherwise allocate without
// limit: text/template cannot be interrupted).
const maxCount = 100000

// countFuncs take a count that sizes what they build.
var countFuncs = map[string]bool{"until": true, "untilStep": true, "seq": true, "repeat": true}

// defineInfo is a helper ({{ define "name" }}) and what its body reads.
type defineInfo struct {
	root     *parse.ListNode
	paths    [][]string
	includes []string
}

// dot is what "." stands for while walking a template: the root context, a .Values
// sub-tree, or something unknown (an item of a range).
type dot struct {
	root   bool
	values []string // valid when known
	known  bool
}

var rootDot = dot{root: true, known: true}

// analyze parses one template file (Go template syntax, any function name) and lists its
// literal text and output actions; helpers are recorded in defs for include resolution.
func analyze(name string, src string) *fileInfo {
	fi := &fileInfo{defines: map[string]*defineInfo{}}
	t := parse.New(name)
	t.Mode = parse.SkipFuncCheck
	set := map[string]*parse.Tree{}
	if _, err := t.Parse(src, "", "", set); err != nil {
		fi.err = err
		return fi
	}
	for n, tr := range set {
		if n == name || tr == nil || tr.Root == nil {
			continue
		}
		d := &defineInfo{root: tr.Root}
		w := &walker{src: src, vars: map[string]dot{}, fi: fi}
		w.list(tr.Root, rootDot, func(a helm.Action, inc []string) {
			d.paths = append(d.paths, a.Paths...)
			d.includes = append(d.includes, inc...)
		}, nil)
		fi.defines[n] = d
	}
	if t.Root != nil {
		w := &walker{src: src, vars: map[string]dot{}, fi: fi}
		w.list(t.Root, rootDot, func(a helm.Action, inc []string) {
			a.Paths = append(a.Paths, includePaths(inc)...)
			fi.actions = append(fi.actions, a)
		}, func(tn *parse.TextNode) {
			fi.texts = append(fi.texts, [2]int{int(tn.Pos), int(tn.Pos) + len(tn.Text)})
		})
	}
	sort.Slice(fi.actions, func(i, j int) bool { return fi.actions[i].From < fi.actions[j].From })
	return fi
}

// includeMarker prefixes the helper names an action includes until they are resolved
// against the chart's helpers (resolveIncludes).
const includeMarker = "\x00include:"

func includePaths(names []string) [][]string {
	out := make([][]string, 0, len(names))
	for _, n := range names {
		out = append(out, []string{includeMarker + n})
	}
	return out
}

// resolveIncludes replaces the include markers of every action by the .Values paths the
// named helpers read, transitively (bounded), across all files of the chart.
func resolveIncludes(files []*fileInfo) {
	defs := map[string]*defineInfo{}
	for _, fi := range files {
		for n, d := range fi.defines {
			if _, dup := defs[n]; !dup {
				defs[n] = d
			}
		}
	}
	memo := map[string][][]string{}
	var expand func(name string, depth int) [][]string
	expand = func(name string, depth int) [][]string {
		if p, ok := memo[name]; ok {
			return p
		}
		d := defs[name]
		if d == nil || depth > 20 {
			return nil
		}
		memo[name] = nil // cycles
		out := append([][]string(nil), d.paths...)
		for _, inc := range d.includes {
			out = append(out, expand(inc, depth+1)...)
		}
		memo[name] = out
		return out
	}
	for _, fi := range files {
		for i := range fi.actions {
			a := &fi.actions[i]
			var paths [][]string
			for _, p := range a.Paths {
				if len(p) == 1 && strings.HasPrefix(p[0], includeMarker) {
					paths = append(paths, expand(strings.TrimPrefix(p[0], includeMarker), 0)...)
					continue
				}
				paths = append(paths, p)
			}
			a.Paths = dedupePaths(paths)
		}
	}
}

func dedupePaths(ps [][]string) [][]string {
	seen := map[string]bool{}
	var out [][]string
	for _, p := range ps {
		k := strings.Join(p, "\x00")
		if !seen[k] {
			seen[k] = true
			out = append(out, p)
		}
	}
	return out
}

// walker walks a template tree, tracking what "." and variables stand for.
type walker struct {
	src  string
	vars map[string]dot
	fi   *fileInfo
}

// list walks the nodes of a list: emit is called for each output action with the paths it
// reads and the helpers it includes; text for each literal text node.
func (w *walker) list(l *parse.ListNode, d dot, emit func(helm.Action, []string), text func(*parse.TextNode)) {
	if l == nil {
		return
	}
	for _, n := range l.Nodes {
		w.node(n, d, emit, text)
	}
}

func (w *walker) node(n parse.Node, d dot, emit func(helm.Action, []string), text func(*parse.TextNode)) {
	switch n := n.(type) {
	case *parse.TextNode:
		if text != nil && len(n.Text) > 0 {
			text(n)
		}
	case *parse.ActionNode:
		if n.Pipe == nil {
			return
		}
		var paths [][]string
		var inc []string
		var lits []helm.Literal
		w.pipe(n.Pipe, d, &paths, &inc, &lits)
		if len(n.Pipe.Decl) > 0 {
			// {{ $x := .Values.a }}: no output; remember what the variable stands for.
			if v := w.pipeDot(n.Pipe, d); v.known {
				for _, decl := range n.Pipe.Decl {
					if len(decl.Ident) == 1 {
						w.vars[decl.Ident[0]] = v
					}
				}
			}
			return
		}
		from, to := w.span(int(n.Pos))
		emit(helm.Action{From: from, To: to, Paths: paths, Strings: lits}, inc)
	case *parse.TemplateNode:
		var paths [][]string
		inc := []string{n.Name}
		var lits []helm.Literal
		if n.Pipe != nil {
			w.pipe(n.Pipe, d, &paths, &inc, &lits)
		}
		from, to := w.span(int(n.Pos))
		emit(helm.Action{From: from, To: to, Paths: paths}, inc)
	case *parse.IfNode:
		var paths [][]string
		var inc []string
		var lits []helm.Literal
		w.pipe(n.Pipe, d, &paths, &inc, &lits) // for its counts
		w.list(n.List, d, emit, text)
		w.list(n.ElseList, d, emit, text)
	case *parse.WithNode:
		inner := w.pipeDot(n.Pipe, d)
		w.list(n.List, inner, emit, text)
		w.list(n.ElseList, d, emit, text)
	case *parse.RangeNode:
		if n.Pipe != nil && len(n.Pipe.Cmds) == 1 {
			w.count(n.Pipe.Cmds[0].Args, d)
		}
		var paths [][]string
		var inc []string
		var lits []helm.Literal
		w.pipe(n.Pipe, d, &paths, &inc, &lits)
		// Inside a range, "." is an item whose index is unknown.
		w.list(n.List, dot{}, emit, text)
		w.list(n.ElseList, d, emit, text)
	case *parse.ListNode:
		w.list(n, d, emit, text)
	}
}

// pipe collects the .Values paths, included helpers and string literals of a pipeline.
func (w *walker) pipe(p *parse.PipeNode, d dot, paths *[][]string, inc *[]string, lits *[]helm.Literal) {
	for _, c := range p.Cmds {
		for i, a := range c.Args {
			switch a := a.(type) {
			case *parse.IdentifierNode:
				if countFuncs[a.Ident] {
					w.count(c.Args[i+1:], d)
				}
				if (a.Ident == "include" || a.Ident == "template") && i+1 < len(c.Args) {
					if s, ok := c.Args[i+1].(*parse.StringNode); ok {
						*inc = append(*inc, s.Text)
					}
				}
			case *parse.StringNode:
				*lits = append(*lits, helm.Literal{Text: a.Text, Pos: int(a.Pos)})
			case *parse.PipeNode:
				w.pipe(a, d, paths, inc, lits)
			default:
				if v := w.argDot(a, d); v.known && !v.root {
					*paths = append(*paths, v.values)
				}
			}
		}
	}
}

// count records the counts among args: a number beyond maxCount makes the file unbounded,
// a .Values path is checked against the values before rendering.
func (w *walker) count(args []parse.Node, d dot) {
	for _, a := range args {
		switch a := a.(type) {
		case *parse.NumberNode:
			if a.IsFloat && (a.Float64 > maxCount || a.Float64 < -maxCount) {
				w.fi.bound = a.Text
			}
		case *parse.PipeNode:
			for _, c := range a.Cmds {
				w.count(c.Args, d)
			}
		default:
			if v := w.argDot(a, d); v.known && !v.root {
				w.fi.counts = append(w.fi.counts, v.values)
			}
		}
	}
}

// pipeDot is what a pipeline's value stands for when it is a plain field chain
// (.Values.a.b, $.Values.a, $v.b), else unknown.
func (w *walker) pipeDot(p *parse.PipeNode, d dot) dot {
	if p == nil || len(p.Cmds) != 1 || len(p.Cmds[0].Args) != 1 {
		return dot{}
	}
	return w.argDot(p.Cmds[0].Args[0], d)
}

// argDot resolves a field chain argument to a .Values path.
func (w *walker) argDot(a parse.Node, d dot) dot {
	switch a := a.(type) {
	case *parse.FieldNode:
		return follow(d, a.Ident)
	case *parse.VariableNode:
		if len(a.Ident) == 0 {
			return dot{}
		}
		base := dot{}
		if a.Ident[0] == "$" {
			base = rootDot
		} else if v, ok := w.vars[a.Ident[0]]; ok {
			base = v
		}
		return follow(base, a.Ident[1:])
	case *parse.DotNode:
		return d
	}
	return dot{}
}

// follow applies field names to a dot.
func follow(d dot, idents []string) dot {
	if !d.known {
		return dot{}
	}
	if d.root {
		if len(idents) == 0 {
			return d
		}
		if idents[0] != "Values" {
			return dot{}
		}
		return dot{known: true, values: append([]string{}, idents[1:]...)}
	}
	return dot{known: true, values: append(append([]string{}, d.values...), idents...)}
}

// span returns the offsets of the action whose first token is at pos: from its "{{" to
// after its "}}".
func (w *walker) span(pos int) (int, int) {
	pos = min(max(pos, 0), len(w.src))
	from := strings.LastIndex(w.src[:pos], "{{")
	if from < 0 {
		from = pos
	}
	return from, actionEnd(w.src, pos)
}

// actionEnd finds the end of the action containing pos (after its "}}"), skipping string
// literals and comments.
func actionEnd(s string, pos int) int {
	for i := pos; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '`':
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				i += j + 1
			}
		case '\'':
			for i++; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '/':
			if strings.HasPrefix(s[i:], "/*") {
				if j := strings.Index(s[i+2:], "*/"); j >= 0 {
					i += j + 3
				}
			}
		case '}':
			if strings.HasPrefix(s[i:], "}}") {
				return i + 2
			}
		}
	}
	return len(s)
}

// Markers are written into the literal text of the templates before rendering, and read
// (and removed) from the output: they tell which output bytes are a template's literal text
// and where that text is written. They are printable, so that quote and toYaml keep them.
const (
	markOpen  = "\u27e6" // ⟦
	markClose = "\u27e7" // ⟧
)

// instrument returns src with markers around each literal text node of the main template,
// and a file marker at its start: ⟦f<id>⟧, ⟦s<id>.<offset>⟧ before a text node, ⟦e<id>.<offset>⟧
// after it. Markers never change what the template does: they sit inside literal text (or
// where a trimmed blank would be), never next to a trim marker's blanks in a way that changes
// the trim.
func instrument(id int, src string, fi *fileInfo) string {
	type ins struct {
		at   int
		text string
	}
	sid := strconv.Itoa(id)
	list := []ins{{0, markOpen + "f" + sid + markClose}}
	for _, t := range fi.texts {
		list = append(list,
			ins{t[0], markOpen + "s" + sid + "." + strconv.Itoa(t[0]) + markClose},
			ins{t[1], markOpen + "e" + sid + "." + strconv.Itoa(t[1]) + markClose})
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].at < list[j].at })
	var b strings.Builder
	b.Grow(len(src) + len(list)*16)
	last := 0
	for _, x := range list {
		if x.at < last || x.at > len(src) {
			continue
		}
		b.WriteString(src[last:x.at])
		b.WriteString(x.text)
		last = x.at
	}
	b.WriteString(src[last:])
	return b.String()
}
