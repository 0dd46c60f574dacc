package load

import (
	"bytes"
	"fmt"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// maxHCLNesting bounds how deep a Terraform file may nest before HCL parses it. HCL's parser
// recurses once per level with no limit of its own: 100,000 nested parentheses in a 200 KB
// file overflowed the goroutine stack, which kills the whole run (issue 22 item 13). Real
// configurations nest a few dozen levels.
const maxHCLNesting = 1000

func init() {
	textDecoders = append(textDecoders, checkTerraformNesting)
}

// checkTerraformNesting reports a Terraform file that HCL would parse (terraformInstances) and
// that nests deeper than maxHCLNesting: KP001 at the place it goes too deep; the file is not
// parsed.
func checkTerraformNesting(f *checker.File) []checker.LoadProblem {
	if !isTerraformName(f.Path) || !hasTerraformMarker(f.Content) {
		return nil
	}
	at, ok := hclNestingWithin(f.Content, maxHCLNesting)
	if ok {
		return nil
	}
	return []checker.LoadProblem{{Pos: f.PositionAt(at), Manifest: true,
		Message: fmt.Sprintf("Terraform nests more than %d levels deep here (brackets, strings, templates or operator chains); the file is not parsed", maxHCLNesting)}}
}

func hasTerraformMarker(b []byte) bool {
	for _, m := range tfMarkers {
		if bytes.Contains(b, m) {
			return true
		}
	}
	return false
}

// hclFrame is one open construct of the nesting scan: a bracket ( [ {, an interpolation or
// directive ${ %{, a quoted string, or a heredoc (delim set).
type hclFrame struct {
	kind  byte // '(', '[', '{', '$', '"' or '<'
	delim []byte
	// chain counts the constructs HCL nests without brackets, since the last ',' or line
	// break of this frame: unary operators, conditionals (a ? b : c ? ...), splats ([*]), and
	// in a string or heredoc the if/for directives not yet closed.
	chain int
}

// hclNestingWithin reports whether src nests at most limit levels as HCL's parser recurses,
// and else the offset where it goes deeper. It over-counts rather than under-counts: every
// bracket, interpolation, string and heredoc is a level, and so is every unary operator,
// "?" and splat of one list item or attribute, and every open %{ if } or %{ for }. Comments
// are skipped. One pass, no allocation beyond the stack of open constructs.
func hclNestingWithin(src []byte, limit int) (int, bool) {
	stack := []hclFrame{{kind: '{'}} // the file body
	depth := 0                       // levels open beyond the body: frames + chains
	push := func(f hclFrame) { stack = append(stack, f); depth++ }
	pop := func() {
		if len(stack) > 1 {
			top := stack[len(stack)-1]
			depth -= 1 + top.chain
			stack = stack[:len(stack)-1]
		}
	}
	chain := func() { stack[len(stack)-1].chain++; depth++ }
	reset := func() { depth -= stack[len(stack)-1].chain; stack[len(stack)-1].chain = 0 }
	lineStart := true
	var last byte // the last byte of code read, not a blank: is a "-" unary or binary
	for i := 0; i < len(src); i++ {
		if depth > limit {
			return i - 1, false
		}
		c := src[i]
		top := &stack[len(stack)-1]
		switch top.kind {
		case '"', '<':
			if top.kind == '<' && lineStart {
				// The heredoc's closing line: its delimiter alone, indented or not.
				j := i
				for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
					j++
				}
				if bytes.HasPrefix(src[j:], top.delim) {
					k := j + len(top.delim)
					if k < len(src) && src[k] == '\r' {
						k++
					}
					if k == len(src) || src[k] == '\n' {
						pop()
						last = '"'
						i = k
						lineStart = true
						continue
					}
				}
			}
			lineStart = c == '\n'
			switch {
			case c == '\\' && top.kind == '"':
				i++
			case c == '"' && top.kind == '"', c == '\n' && top.kind == '"':
				pop()
				last = '"'
				lineStart = c == '\n'
			case (c == '$' || c == '%') && i+2 < len(src) && src[i+1] == c && src[i+2] == '{':
				i += 2 // $${ and %%{ are literal
			case (c == '$' || c == '%') && i+1 < len(src) && src[i+1] == '{':
				if c == '%' {
					w := directiveWord(src[i+2:])
					switch w {
					case "if", "for":
						chain()
					case "endif", "endfor":
						if top.chain > 0 {
							top.chain--
							depth--
						}
					}
				}
				push(hclFrame{kind: '$'})
				i++
			}
			continue
		}
		lineStart = false
		switch c {
		case '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
			i--
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				for i < len(src) && src[i] != '\n' {
					i++
				}
				i--
			} else if i+1 < len(src) && src[i+1] == '*' {
				end := bytes.Index(src[i+2:], []byte("*/"))
				if end < 0 {
					return 0, true
				}
				i += end + 3
			}
		case '\n':
			if top.kind == '{' || top.kind == '$' {
				reset()
			}
		case ',', '=':
			if c == '=' && i+1 < len(src) && src[i+1] == '=' {
				i++
				continue
			}
			reset()
		case '"':
			push(hclFrame{kind: '"'})
		case '<':
			if d, next, ok := heredocStart(src, i); ok {
				push(hclFrame{kind: '<', delim: d})
				i = next - 1
				lineStart = true
			}
		case '(', '{':
			push(hclFrame{kind: c})
		case '[':
			j := i + 1
			for j < len(src) && (src[j] == ' ' || src[j] == '\t') {
				j++
			}
			if j < len(src) && src[j] == '*' {
				chain() // a splat: HCL parses what follows it one level deeper
			}
			push(hclFrame{kind: '['})
		case ')', ']', '}':
			pop()
		case '!':
			if i+1 >= len(src) || src[i+1] != '=' {
				chain()
			}
		case '-':
			if !endsOperand(last) {
				chain() // unary: nothing before it that it could subtract from
			}
		case '?':
			chain()
		}
		if c != ' ' && c != '\t' && c != '\r' {
			last = c
		}
	}
	if depth > limit {
		return len(src), false
	}
	return 0, true
}

// directiveWord is the keyword of a template directive after its "%{" (and a "~").
func directiveWord(b []byte) string {
	i := 0
	if i < len(b) && b[i] == '~' {
		i++
	}
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	j := i
	for j < len(b) && j-i < 6 && b[j] >= 'a' && b[j] <= 'z' {
		j++
	}
	return string(b[i:j])
}

// heredocStart recognises "<<ID" or "<<-ID" followed by a line break at i, and returns the
// delimiter and the offset of the heredoc's first line.
func heredocStart(src []byte, i int) ([]byte, int, bool) {
	j := i + 2
	if j > len(src) || src[i+1] != '<' {
		return nil, 0, false
	}
	if j < len(src) && src[j] == '-' {
		j++
	}
	k := j
	for k < len(src) && isHCLIdentByte(src[k]) {
		k++
	}
	if k == j {
		return nil, 0, false
	}
	d := src[j:k]
	if k < len(src) && src[k] == '\r' {
		k++
	}
	if k >= len(src) || src[k] != '\n' {
		return nil, 0, false
	}
	return d, k + 1, true
}

// endsOperand reports whether c, the last byte of code before a "-", ends something the "-"
// subtracts from (a name, number, bracket or string), so that the "-" is binary.
func endsOperand(c byte) bool {
	return isHCLIdentByte(c) && c != '-' || c == ')' || c == ']' || c == '}' || c == '"'
}

func isHCLIdentByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// parseHCL parses Terraform file f with HCL's native syntax. ok is false when the file nests
// deeper than maxHCLNesting (never given to HCL's parser; checkTerraformNesting reports it),
// does not parse, or has no native body. Each reader parses for itself and drops the tree:
// no syntax tree outlives its reader.
func parseHCL(f *checker.File) (body *hclsyntax.Body, ok bool) {
	if _, ok := hclNestingWithin(f.Content, maxHCLNesting); !ok {
		return nil, false
	}
	file, diags := hclsyntax.ParseConfig(f.Content, f.Path, hcl.InitialPos)
	if diags.HasErrors() || file == nil {
		return nil, false
	}
	body, ok = file.Body.(*hclsyntax.Body)
	return body, ok
}
