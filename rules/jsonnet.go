package rules

import (
	"bytes"
	"path"
	"strings"
	"unicode/utf8"
)

// A jsonnet string-literal scanner for KP501: grafonnet dashboards and monitoring mixins
// write PromQL in jsonnet strings ('...', "...", @'...', @"..." and ||| text blocks). The
// scanner returns every string literal outside comments (//, # and /* */) with its value
// and, for each byte of the value, the byte offset in the source, so a metric name found in
// the value maps back to its exact line and column. It also notes the field a string is the
// value of (expr: '...') and the alert or record name of the enclosing object, which the
// rule needs for its message and to skip names, prose and relabel regexes. It does not
// evaluate jsonnet: strings built with + or % are seen piece by piece.

// jsonnetString is one string literal of a jsonnet source.
type jsonnetString struct {
	// Value is the string's value; Offs[i] is the source offset of Value[i], and
	// Offs[len(Value)] the offset of the closing delimiter.
	Value string
	Offs  []int
	// Key is the field the string is the value of ("expr" in expr: '...'), or "".
	Key string
	// Element is true for a string that is an element of an array literal.
	Element bool
	// Alert and Record are the alert: and record: values of the enclosing object, when they
	// come before the string.
	Alert  string
	Record bool
}

// isJsonnetPath reports whether a file is a jsonnet source by name.
func isJsonnetPath(name string) bool {
	switch strings.ToLower(path.Ext(name)) {
	case ".jsonnet", ".libsonnet":
		return true
	}
	return false
}

// exact reports whether bytes [from, to) of the value are written verbatim in the source
// (no escape, no text-block indentation inside), so that a byte edit there is safe.
func (s *jsonnetString) exact(from, to int) bool {
	if from < 0 || to > len(s.Value) || from >= to {
		return false
	}
	for k := from; k < to; k++ {
		if s.Offs[k+1] != s.Offs[k]+1 {
			return false
		}
	}
	return true
}

// jsonnetFrame is an open bracket and what its object has said so far.
type jsonnetFrame struct {
	open   byte
	alert  string
	record bool
}

// jsonnetStrings scans src in one pass and returns its string literals in order.
func jsonnetStrings(src []byte) []jsonnetString {
	var out []jsonnetString
	stack := []jsonnetFrame{{}}
	// prev is the last significant token: 'i' identifier, 's' string, ':' a field
	// separator, or the punctuation byte itself.
	var prev byte
	var prevText, key string
	n := len(src)
	emit := func(s jsonnetString) {
		top := &stack[len(stack)-1]
		if prev == ':' {
			s.Key = key
		}
		s.Element = top.open == '[' && (prev == '[' || prev == ',')
		// The enclosing object, also for expr: std.format('...', ...).
		obj := &stack[0]
		for k := len(stack) - 1; k > 0; k-- {
			if stack[k].open == '{' || stack[k].open == '[' {
				obj = &stack[k]
				break
			}
		}
		s.Alert, s.Record = obj.alert, obj.record
		switch s.Key {
		case "alert":
			top.alert = s.Value
		case "record":
			top.record = true
		}
		out = append(out, s)
		prev, prevText = 's', s.Value
	}
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#' || (c == '/' && i+1 < n && src[i+1] == '/'):
			for i < n && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < n && src[i+1] == '*':
			if j := bytes.Index(src[i+2:], []byte("*/")); j >= 0 {
				i += 2 + j + 2
			} else {
				i = n
			}
		case c == '\'' || c == '"':
			s, end := jsonnetQuoted(src, i)
			emit(s)
			i = end
		case c == '@' && i+1 < n && (src[i+1] == '\'' || src[i+1] == '"'):
			s, end := jsonnetVerbatim(src, i+1)
			emit(s)
			i = end
		case c == '|' && i+2 < n && src[i+1] == '|' && src[i+2] == '|':
			s, end := jsonnetTextBlock(src, i)
			emit(s)
			i = end
		case c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'):
			start := i
			for i < n && (src[i] == '_' || (src[i] >= 'a' && src[i] <= 'z') || (src[i] >= 'A' && src[i] <= 'Z') || (src[i] >= '0' && src[i] <= '9')) {
				i++
			}
			prev, prevText = 'i', string(src[start:i])
		case c == ':':
			// expr: expr:: expr::: and (via '+' below) expr+:
			if prev == 'i' || prev == 's' {
				key = prevText
				prev = ':'
			} else {
				prev = c
			}
			for i < n && src[i] == ':' {
				i++
			}
		case c == '+' && i+1 < n && src[i+1] == ':':
			// expr+: keeps the key before the '+'.
			i++
		case c == '{' || c == '[' || c == '(':
			stack = append(stack, jsonnetFrame{open: c})
			prev = c
			i++
		case c == '}' || c == ']' || c == ')':
			if len(stack) > 1 {
				stack = stack[:len(stack)-1]
			}
			prev = c
			i++
		default:
			prev = c
			i++
		}
	}
	return out
}

// jsonnetQuoted reads the '...' or "..." string at src[i], decoding escapes.
func jsonnetQuoted(src []byte, i int) (jsonnetString, int) {
	q := src[i]
	var val []byte
	var offs []int
	j := i + 1
	for j < len(src) && src[j] != q {
		if src[j] != '\\' || j+1 >= len(src) {
			val = append(val, src[j])
			offs = append(offs, j)
			j++
			continue
		}
		var dec []byte
		width := 2
		switch e := src[j+1]; e {
		case 'n':
			dec = []byte{'\n'}
		case 't':
			dec = []byte{'\t'}
		case 'r':
			dec = []byte{'\r'}
		case 'b':
			dec = []byte{'\b'}
		case 'f':
			dec = []byte{'\f'}
		case 'u':
			r := rune(0)
			k := j + 2
			for ; k < len(src) && k < j+6 && isHex(src[k]); k++ {
				r = r*16 + rune(hexVal(src[k]))
			}
			width = k - j
			dec = utf8.AppendRune(nil, r)
		default:
			// \' \" \\ \/ and anything else stand for the character itself.
			dec = []byte{e}
		}
		for _, b := range dec {
			val = append(val, b)
			offs = append(offs, j)
		}
		j += width
	}
	offs = append(offs, min(j, len(src)))
	return jsonnetString{Value: string(val), Offs: offs}, min(j+1, len(src))
}

// jsonnetVerbatim reads the @'...' or @"..." string whose quote is at src[i]: a doubled
// quote stands for one, nothing else is an escape.
func jsonnetVerbatim(src []byte, i int) (jsonnetString, int) {
	q := src[i]
	var val []byte
	var offs []int
	j := i + 1
	for j < len(src) {
		if src[j] == q {
			if j+1 < len(src) && src[j+1] == q {
				val = append(val, q)
				offs = append(offs, j)
				j += 2
				continue
			}
			break
		}
		val = append(val, src[j])
		offs = append(offs, j)
		j++
	}
	offs = append(offs, min(j, len(src)))
	return jsonnetString{Value: string(val), Offs: offs}, min(j+1, len(src))
}

// jsonnetTextBlock reads the ||| text block at src[i]: the lines after the opening |||
// (|||- too) that start with the first line's indentation, with that indentation removed,
// up to the closing |||.
func jsonnetTextBlock(src []byte, i int) (jsonnetString, int) {
	n := len(src)
	j := i + 3
	if j < n && src[j] == '-' {
		j++
	}
	for j < n && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r') {
		j++
	}
	if j >= n || src[j] != '\n' {
		// Not a text block: skip the bars.
		return jsonnetString{Offs: []int{i + 3}}, i + 3
	}
	j++
	// Blank lines before the first content line belong to the block.
	var val []byte
	var offs []int
	for j < n && src[j] == '\n' {
		val = append(val, '\n')
		offs = append(offs, j)
		j++
	}
	k := j
	for k < n && (src[k] == ' ' || src[k] == '\t') {
		k++
	}
	indent := src[j:k]
	if len(indent) == 0 {
		return jsonnetString{Value: string(val), Offs: append(offs, j)}, j
	}
	for j < n {
		if src[j] == '\n' {
			val = append(val, '\n')
			offs = append(offs, j)
			j++
			continue
		}
		if !bytes.HasPrefix(src[j:], indent) {
			break
		}
		j += len(indent)
		for j < n && src[j] != '\n' {
			val = append(val, src[j])
			offs = append(offs, j)
			j++
		}
		if j < n {
			val = append(val, '\n')
			offs = append(offs, j)
			j++
		}
	}
	end := j
	for end < n && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	offs = append(offs, end)
	if end+3 <= n && string(src[end:end+3]) == "|||" {
		end += 3
	}
	return jsonnetString{Value: string(val), Offs: offs}, end
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	default:
		return int(c-'A') + 10
	}
}
