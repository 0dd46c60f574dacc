package checker

import (
	"bytes"
	"sort"
	"strings"
)

// Template conditionals. A value written inside a branch of a template conditional or loop
// ({{ if .Values.kpr }}kube-proxy-replacement: "true"{{ else }}...{{ end }}, {% if %},
// <% if %>) holds only for some renderings, so it is not a fact about the cluster: the
// replacement signs (Replacements) ignore such values.

// condSpansKey is the File.Memo key of a file's conditional spans.
type condSpansKey struct{}

// condSpan is a byte range of a file inside at least one conditional or loop block.
type condSpan struct{ from, to int }

// InTemplateConditional reports whether byte offset off of the real file f lies inside a
// branch of a template conditional or loop (Helm and Go templates: if, with, range; Jinja2:
// if, for; ERB: if, unless, case, while, until and blocks ending in do).
func InTemplateConditional(f *File, off int) bool {
	f = f.Outer()
	spans := f.Memo(condSpansKey{}, func() any { return conditionalSpans(f.Content) }).([]condSpan)
	i := sort.Search(len(spans), func(i int) bool { return spans[i].to > off })
	return i < len(spans) && spans[i].from <= off
}

// conditionalSpans scans the template tags of content and returns the ranges inside
// conditional or loop blocks, sorted and not overlapping.
func conditionalSpans(content []byte) []condSpan {
	if !bytes.Contains(content, []byte("{{")) && !bytes.Contains(content, []byte("{%")) && !bytes.Contains(content, []byte("<%")) {
		return nil
	}
	type open struct {
		cond bool
		at   int // end of the opening tag
	}
	var stack []open
	var spans []condSpan
	depth := 0 // open conditional blocks
	start := 0
	for i := 0; i+1 < len(content); i++ {
		var closer string
		switch string(content[i : i+2]) {
		case "{{":
			closer = "}}"
		case "{%":
			closer = "%}"
		case "<%":
			closer = "%>"
		default:
			continue
		}
		j := bytes.Index(content[i+2:], []byte(closer))
		if j < 0 {
			break
		}
		body := string(content[i+2 : i+2+j])
		end := i + 2 + j + len(closer)
		switch kind, cond := templateAction(closer, body); kind {
		case actionOpen:
			stack = append(stack, open{cond: cond, at: end})
			if cond {
				if depth == 0 {
					start = end
				}
				depth++
			}
		case actionClose:
			if n := len(stack); n > 0 {
				top := stack[n-1]
				stack = stack[:n-1]
				if top.cond {
					depth--
					if depth == 0 {
						spans = append(spans, condSpan{start, i})
					}
				}
			}
		}
		i = end - 1
	}
	if depth > 0 {
		// An unclosed block runs to the end of the file.
		spans = append(spans, condSpan{start, len(content)})
	}
	return spans
}

type actionKind int

const (
	actionOther actionKind = iota
	actionOpen
	actionClose
)

// templateAction classifies a tag's body: a block that opens (conditional or loop when cond),
// one that closes, or anything else (an expression, else/elif branches, comments).
func templateAction(closer, body string) (actionKind, bool) {
	body = strings.TrimSpace(strings.Trim(strings.TrimSpace(body), "-+=#"))
	word, _, _ := strings.Cut(body, " ")
	word = strings.TrimSpace(word)
	switch closer {
	case "}}": // Helm, Go templates
		switch word {
		case "if", "with", "range":
			return actionOpen, true
		case "define", "block":
			return actionOpen, false
		case "end":
			return actionClose, false
		}
	case "%}": // Jinja2
		switch word {
		case "if", "for":
			return actionOpen, true
		case "macro", "block", "call", "filter", "raw":
			return actionOpen, false
		case "set":
			if !strings.Contains(body, "=") {
				return actionOpen, false
			}
		}
		if strings.HasPrefix(word, "end") {
			return actionClose, false
		}
	case "%>": // ERB
		switch word {
		case "if", "unless", "case", "while", "until":
			return actionOpen, true
		case "end":
			return actionClose, false
		}
		if strings.HasSuffix(body, " do") || strings.Contains(body, " do |") {
			return actionOpen, true
		}
	}
	return actionOther, false
}
