package text

import (
	"bytes"
	"sort"
	"strconv"
	"strings"
)

// Placeholders: one module, one contract (DESIGN.md). A value that holds a placeholder of any
// template family is unknown: never invalid, never a parse error, never a finding, and shown
// with its true text in messages. Templated files are decoded from a masked copy that keeps
// the YAML structure; the loader then gives every masked scalar its true text back, so rules
// never see masked text.

// placeholderMarkers open template placeholders: Helm/Go templates and Jinja2 ({{ }}, {% %},
// {# #}), ERB (<% %>), Terraform (%{ }, ${ }), shell and Kubernetes expansions ($VAR, ${VAR},
// $(cmd), $(VAR), backquotes), envsubst-style @@VAR@@.
var placeholderMarkers = []string{"{{", "{%", "{#", "<%", "%{", "${", "$(", "@@", "`"}

// HasPlaceholder reports whether a value holds a template placeholder. A placeholder is never
// a finding: its real value is only known when the template is rendered or the variable
// expanded. Besides the markers above it recognises $NAME, %NAME% and <VALUE> documentation
// placeholders.
func HasPlaceholder(s string) bool {
	for _, m := range placeholderMarkers {
		if strings.Contains(s, m) {
			return true
		}
	}
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '$':
			// $NAME, and the positional parameters of a script or function ($1, $@, $*).
			if i+1 < len(s) && (isNameStart(s[i+1]) || s[i+1] >= '0' && s[i+1] <= '9' || s[i+1] == '@' || s[i+1] == '*') {
				return true
			}
		case '%':
			if j := nameEnd(s, i+1); j > i+1 && j < len(s) && s[j] == '%' {
				return true
			}
		case '<':
			if j := strings.IndexByte(s[i+1:], '>'); j > 0 && isNameStart(s[i+1]) && docPlaceholderBody(s[i+1:i+1+j]) {
				return true
			}
		case '@', '_':
			if sedPlaceholderEnd(s, i) > 0 {
				return true
			}
		}
	}
	return false
}

// sedPlaceholderEnd returns the end of a sed-style placeholder starting at i, @NAME@ (also
// @@NAME@@) or __NAME__ with NAME in upper case, digits and underscores, or -1. A __NAME__
// must stand alone: not inside a longer name (MY__X__, __X__y).
func sedPlaceholderEnd(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	var delim string
	switch {
	case strings.HasPrefix(s[i:], "__"):
		if i > 0 && isNameByte(s[i-1]) {
			return -1
		}
		delim = "__"
	case strings.HasPrefix(s[i:], "@@"):
		delim = "@@"
	case s[i] == '@':
		delim = "@"
	default:
		return -1
	}
	j := i + len(delim)
	start := j
	for j < len(s) && (s[j] >= 'A' && s[j] <= 'Z' || s[j] >= '0' && s[j] <= '9' || s[j] == '_') {
		j++
	}
	if delim == "__" {
		// The run took the closing underscores too.
		if j-start < 3 || s[j-1] != '_' || s[j-2] != '_' || (j < len(s) && isNameByte(s[j])) {
			return -1
		}
		name := s[start : j-2]
		if name == "" || name[0] == '_' || name[len(name)-1] == '_' {
			return -1
		}
		return j
	}
	if j == start || (s[start] < 'A' || s[start] > 'Z') && s[start] != '_' || !strings.HasPrefix(s[j:], delim) {
		return -1
	}
	return j + len(delim)
}

// SedPlaceholderEnd returns the end of a sed-style placeholder (@NAME@, @@NAME@@, __NAME__)
// that starts at b[i], or -1.
func SedPlaceholderEnd(b []byte, i int) int {
	if i >= len(b) || b[i] != '@' && b[i] != '_' {
		return -1
	}
	// Only the bytes the placeholder can span (one before, for the __ boundary) are copied.
	from, to := max(0, i-1), i+2
	for to < len(b) && (b[to] >= 'A' && b[to] <= 'Z' || b[to] >= '0' && b[to] <= '9' || b[to] == '_') {
		to++
	}
	to = min(len(b), to+2)
	if j := sedPlaceholderEnd(string(b[from:to]), i-from); j > 0 {
		return from + j
	}
	return -1
}

// isNameByte reports whether c can be part of an identifier.
func isNameByte(c byte) bool { return isNameStart(c) || c >= '0' && c <= '9' }

func isNameStart(c byte) bool { return c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') }

// nameEnd returns the end of the identifier starting at i (i when there is none).
func nameEnd(s string, i int) int {
	if i >= len(s) || !isNameStart(s[i]) {
		return i
	}
	j := i + 1
	for j < len(s) && (isNameStart(s[j]) || (s[j] >= '0' && s[j] <= '9')) {
		j++
	}
	return j
}

// docPlaceholderBody reports whether the text between < and > reads like a documentation
// placeholder (<CPU_REQUESTS>, <your-pod-cidr>, <See the docs>): no markup characters.
func docPlaceholderBody(b string) bool {
	if len(b) > 80 {
		return false
	}
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case '<', '>', '=', '"', '\'', '/', '\n':
			return false
		}
	}
	return true
}

// TemplateSpan is one template placeholder in a file: bytes [From, To). Output is true when
// it emits text ({{ .Values.x }}, <%= x %>, ${x}), false for logic and comments ({% if %},
// {{- end }}, {# note #}).
type TemplateSpan struct {
	From, To int
	Output   bool
}

// TemplateSpans finds the template placeholders of content: Go/Helm {{ }} (also {{- -}}),
// Jinja2 {% %} and {# #}, ERB <% %>, Terraform %{ }, and envsubst- and sed-style %NAME%,
// @NAME@ and __NAME__.
func TemplateSpans(content []byte) []TemplateSpan {
	var spans []TemplateSpan
	for i := 0; i+1 < len(content); i++ {
		var closer string
		switch string(content[i : i+2]) {
		case "{{":
			closer = "}}"
		case "{%":
			closer = "%}"
		case "{#":
			closer = "#}"
		case "<%":
			closer = "%>"
		case "%{":
			closer = "}"
		default:
			if c := content[i]; c == '@' || c == '_' && content[i+1] == '_' {
				if j := SedPlaceholderEnd(content, i); j > 0 {
					to := j
					spans = append(spans, TemplateSpan{From: i, To: to, Output: true})
					i = to - 1
				}
				continue
			}
			if content[i] == '%' {
				if j := nameEnd(string(content[i+1:min(len(content), i+66)]), 0); j > 0 && i+1+j < len(content) && content[i+1+j] == '%' && allUpper(content[i+1:i+1+j]) {
					spans = append(spans, TemplateSpan{From: i, To: i + j + 2, Output: true})
					i += j + 1
				}
			}
			continue
		}
		j := bytes.Index(content[i+2:], []byte(closer))
		if j < 0 {
			break
		}
		to := i + 2 + j + len(closer)
		spans = append(spans, TemplateSpan{From: i, To: to, Output: isOutputPlaceholder(content[i:to])})
		i = to - 1
	}
	return spans
}

func allUpper(b []byte) bool {
	for _, c := range b {
		if c >= 'a' && c <= 'z' {
			return false
		}
	}
	return true
}

// controlWords start Go template and Jinja2 actions that emit nothing themselves.
var controlWords = map[string]bool{
	"if": true, "else": true, "elif": true, "end": true, "range": true, "with": true, "define": true,
	"block": true, "break": true, "continue": true, "for": true, "endfor": true, "endif": true,
	"set": true, "macro": true, "endmacro": true, "raw": true, "endraw": true, "import": true,
	"from": true, "extends": true, "do": true, "endwith": true, "endset": true,
}

// isOutputPlaceholder tells an emitting placeholder from template logic and comments.
func isOutputPlaceholder(p []byte) bool {
	s := string(p)
	switch {
	case strings.HasPrefix(s, "{#"), strings.HasPrefix(s, "<%#"), strings.HasPrefix(s, "%{"):
		return false
	case strings.HasPrefix(s, "<%"):
		return strings.HasPrefix(s, "<%=") || strings.HasPrefix(s, "<%-=")
	}
	body := strings.TrimLeft(s[2:], "-+ \t\r\n")
	if strings.HasPrefix(body, "/*") {
		return false
	}
	word := body
	if i := strings.IndexAny(word, " \t\r\n}%-("); i >= 0 {
		word = word[:i]
	}
	if strings.HasPrefix(s, "{%") {
		return word == "include" || word == "call"
	}
	return !controlWords[word]
}

// OpenPlaceholder is an output placeholder alone on its line (`{{ toYaml .Values.x | nindent
// 4 }}`, `{{ config | to_nice_yaml }}`): it may emit any keys or items, so the structure
// around it is open, and a setting missing from it is unknown rather than unset.
type OpenPlaceholder struct {
	// Offset is the placeholder's byte offset in the file; Line its line.
	Offset, Line int
	// Indent is the 0-based column its output lands at: the nindent/indent argument when
	// given, else the placeholder's own column.
	Indent int
}

// MaskedTemplate is a YAML-safe masked copy of a templated file.
type MaskedTemplate struct {
	// Content is the masked text; Map maps its offsets to the original's. (It is kept in
	// runs: a table of one int per byte was 8 bytes of memory per byte of every template.)
	Content []byte
	Map     *OffsetMap
	Open    []OpenPlaceholder
}

// MaskTemplate masks the template placeholders of content so that it decodes as the YAML
// around them: a line that holds only placeholders (and blanks) is emptied (kept as an empty
// line, which is harmless in every YAML context, also as the first line of a block scalar);
// an inline placeholder becomes "$___" of the same length, a plain scalar that
// HasPlaceholder recognises in block and flow context, so columns stay exact. It returns nil when content holds no
// placeholder.
func MaskTemplate(content []byte) *MaskedTemplate {
	return MaskTemplateWith(content, nil)
}

// MaskTemplateWith is MaskTemplate with more placeholders: extra spans that the caller knows
// from the text's context (the shell expansions of an unquoted heredoc body). An extra span
// that overlaps a template placeholder is dropped; the template's span masks those bytes.
func MaskTemplateWith(content []byte, extra []TemplateSpan) *MaskedTemplate {
	spans := TemplateSpans(content)
	spans = append(spans, docPlaceholderLines(content)...)
	if len(extra) > 0 {
		sortSpans(spans)
		n := len(spans)
		for _, e := range extra {
			k := sort.Search(n, func(i int) bool { return spans[i].To > e.From })
			if (k >= n || spans[k].From >= e.To) && e.From >= 0 && e.To <= len(content) && e.From < e.To {
				spans = append(spans, e)
			}
		}
	}
	if len(spans) == 0 {
		return nil
	}
	sortSpans(spans)
	// covered[i]: byte i belongs to a placeholder.
	covered := make([]bool, len(content))
	for _, sp := range spans {
		for x := sp.From; x < sp.To; x++ {
			covered[x] = true
		}
	}
	out := make([]byte, 0, len(content))
	offs := &OffsetMap{}
	var open []OpenPlaceholder
	si, sl := 0, 0
	line := 1
	// inBlock: the lines are inside a block scalar whose header line is indented blockIndent.
	inBlock, blockIndent := false, 0
	for ls := 0; ls < len(content); {
		lineOut := len(out)
		le := ls
		for le < len(content) && content[le] != '\n' {
			le++
		}
		// The line's own text without the line break (and a CR before it).
		te := le
		if te > ls && content[te-1] == '\r' {
			te--
		}
		touched, standalone := false, true
		for x := ls; x < te; x++ {
			if covered[x] {
				touched = true
			} else if content[x] != ' ' && content[x] != '\t' {
				standalone = false
			}
		}
		for si < len(spans) && spans[si].To <= ls {
			si++
		}
		// sl is the first span that starts on this line or later: the spans that start on
		// the line are looked at on this line only, also inside a long placeholder that
		// keeps si behind.
		for sl < len(spans) && spans[sl].From < ls {
			sl++
		}
		if touched && standalone {
			for k := sl; k < len(spans) && spans[k].From < te; k++ {
				sp := spans[k]
				if sp.Output && sp.From >= ls {
					open = append(open, OpenPlaceholder{Offset: sp.From, Line: line, Indent: emitIndent(content[sp.From:sp.To], sp.From-ls)})
				}
			}
			// Inside a block scalar, a template line indented like its content becomes "#___"
			// at that indentation: block content that fixes the scalar's indentation as the
			// template line did (an empty line would let a more indented literal line set it).
			// Elsewhere the line is emptied: an empty line is harmless in every context.
			ind := 0
			for ls+ind < te && (content[ls+ind] == ' ') {
				ind++
			}
			if inBlock && ind > blockIndent {
				for x := ls; x < ls+ind; x++ {
					out = append(out, ' ')
					offs.Add(len(out)-1, x)
				}
				// Same length as the tag, so the restored value holds the tag as written.
				for x := ls + ind; x < te; x++ {
					c := byte('_')
					if x == ls+ind {
						c = '#'
					}
					out = append(out, c)
					offs.Add(len(out)-1, x)
				}
			}
			// Keep the line break.
			for x := te; x < le; x++ {
				out = append(out, content[x])
				offs.Add(len(out)-1, x)
			}
		} else {
			// An output placeholder that ends its line and starts a new block with nindent
			// ("labels: {{ include "labels" . | nindent 4 }}" followed by more keys) emits a
			// block value: it is blanked, so the literal lines after it still nest under the
			// key, and the block is open.
			blockFrom := -1
			for k := sl; k < len(spans) && spans[k].From < te; k++ {
				sp := spans[k]
				if sp.Output && sp.From > ls && sp.To <= te && len(bytes.TrimSpace(content[sp.To:te])) == 0 &&
					bytes.Contains(content[sp.From:sp.To], []byte("nindent")) {
					blockFrom = sp.From
					open = append(open, OpenPlaceholder{Offset: sp.From, Line: line, Indent: emitIndent(content[sp.From:sp.To], sp.From-ls)})
				}
			}
			// k is the first span that may hold x: spans ending before x are passed once
			// per line, so masking a line is linear in its length and its spans.
			k := si
			for x := ls; x < te; x++ {
				c := content[x]
				if blockFrom >= 0 && x >= blockFrom {
					c = ' '
				} else if covered[x] {
					for k < len(spans) && spans[k].To <= x {
						k++
					}
					c = maskByte(content, spans, k, ls, x)
				}
				out = append(out, c)
				offs.Add(len(out)-1, x)
			}
			for x := te; x < le; x++ {
				out = append(out, content[x])
				offs.Add(len(out)-1, x)
			}
		}
		if !touched || !standalone {
			inBlock, blockIndent = blockState(out[lineOut:], inBlock, blockIndent)
		}
		if le < len(content) {
			out = append(out, '\n')
			offs.Add(len(out)-1, le)
		}
		ls = le + 1
		line++
	}
	offs.n, offs.end = len(out), len(content)
	return &MaskedTemplate{Content: out, Map: offs, Open: open}
}

// isBlockHeader reports whether line opens a block scalar: "key: |", "- >-", "k: |2 # c";
// that is, it matches (^|[:-])[ \t]+[|>][-+0-9]*[ \t]*(#.*)?\r?$ (blockHeaderRe in the
// tests, which fuzz the two against each other). A hand-written scan: the expression ran on
// every line of every template and was most of MaskTemplate's time.
func isBlockHeader(line []byte) bool {
	for p := 0; p < len(line); p++ {
		if c := line[p]; c != '|' && c != '>' {
			continue
		}
		// Before: one or more blanks, preceded by the line's start, ':' or '-'.
		b := p
		for b > 0 && (line[b-1] == ' ' || line[b-1] == '\t') {
			b--
		}
		if b == p || b > 0 && line[b-1] != ':' && line[b-1] != '-' {
			continue
		}
		// After: indicators, blanks, then the end, a CR at the end, or a comment.
		a := p + 1
		for a < len(line) && (line[a] == '-' || line[a] == '+' || line[a] >= '0' && line[a] <= '9') {
			a++
		}
		for a < len(line) && (line[a] == ' ' || line[a] == '\t') {
			a++
		}
		switch {
		case a == len(line), a == len(line)-1 && line[a] == '\r':
			return true
		case line[a] == '#' && bytes.IndexByte(line[a:], '\n') < 0:
			return true
		}
	}
	return false
}

// blockState follows block scalars through the masked lines: a header opens one, a non-blank
// line indented no more than the header closes it.
func blockState(line []byte, inBlock bool, indent int) (bool, int) {
	t := bytes.TrimRight(line, " \t\r")
	if len(t) == 0 {
		return inBlock, indent
	}
	ind := 0
	for ind < len(t) && t[ind] == ' ' {
		ind++
	}
	if inBlock && ind <= indent {
		inBlock = false
	}
	if !inBlock && isBlockHeader(t) {
		return true, ind
	}
	return inBlock, indent
}

// maskByte is the masked byte at x, inside a placeholder on a line (starting at ls) that
// also holds other text: "$" + "_"... over the part of the span on this line. No braces: "$___"
// is a plain scalar in block and flow context alike ([{{ template "name" . }}] stays a
// sequence), and HasPlaceholder recognises it. k is the first span that does not end before
// x. It looks at a constant number of bytes: reading the span's line from x, as it once did
// for every byte, made a placeholder of n bytes cost n² (nested "{{" in 720 KB: 30 s).
func maskByte(content []byte, spans []TemplateSpan, k, ls, x int) byte {
	if k >= len(spans) || spans[k].From > x {
		return '_'
	}
	sp := spans[k]
	// The span's part on x's line starts at the line or the span, whichever is later; it is
	// at least 2 bytes long when the span goes on past x+1 and neither byte ends a line.
	if x != max(sp.From, ls) {
		return '_'
	}
	if x+1 < sp.To && content[x] != '\n' && content[x] != '\r' && content[x+1] != '\n' && content[x+1] != '\r' {
		return '$'
	}
	return '_'
}

// emitIndent reads "nindent N" or "indent N" in a placeholder; else it is the column col.
func emitIndent(p []byte, col int) int {
	s := string(p)
	for _, kw := range []string{"nindent", "indent"} {
		if i := strings.Index(s, kw+" "); i >= 0 {
			rest := strings.TrimLeft(s[i+len(kw):], " ")
			j := 0
			for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
				j++
			}
			if n, err := strconv.Atoi(rest[:j]); err == nil {
				return n
			}
		}
	}
	return col
}

// docPlaceholderLines finds lines that hold only a documentation placeholder such as
// "<See the component config docs>": whole-body placeholders of example files.
func docPlaceholderLines(content []byte) []TemplateSpan {
	if !bytes.Contains(content, []byte("<")) {
		return nil
	}
	var out []TemplateSpan
	for ls := 0; ls < len(content); {
		le := bytes.IndexByte(content[ls:], '\n')
		if le < 0 {
			le = len(content)
		} else {
			le += ls
		}
		t := bytes.TrimRight(content[ls:le], " \t\r")
		s := ls + (len(t) - len(bytes.TrimLeft(t, " \t")))
		body := content[s : ls+len(t)]
		if len(body) > 2 && body[0] == '<' && body[len(body)-1] == '>' && isNameStart(body[1]) && docPlaceholderBody(string(body[1:len(body)-1])) {
			out = append(out, TemplateSpan{From: s, To: ls + len(t), Output: true})
		}
		ls = le + 1
	}
	return out
}

func sortSpans(s []TemplateSpan) {
	sort.SliceStable(s, func(i, j int) bool { return s[i].From < s[j].From })
}
