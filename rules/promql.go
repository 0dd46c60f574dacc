package rules

import "strings"

// A small PromQL scanner for KP501 and KP502: it finds the metric names an expression selects,
// at their exact byte offsets, and whether each sits inside absent() or absent_over_time().
// It does not validate the expression; it only has to tell metric names from everything
// else that looks like an identifier: function and aggregation names, label names inside
// braces and in by/without/on/ignoring/group_left/group_right lists, keywords, durations,
// string literals, comments, Grafana variables ($__rate_interval, ${job}) and template
// placeholders ({{ ... }}). It runs in one pass over the expression.

// promRef is a metric name selected by an expression.
type promRef struct {
	// Name is the metric name as written.
	Name string
	// From and To are the byte range of the name in the expression (inside the quotes for
	// a {__name__="..."} matcher or a quoted metric name).
	From, To int
	// InAbsent is true inside absent(...) or absent_over_time(...).
	InAbsent bool
}

// promKeywords are identifiers that are never metric names.
var promKeywords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "by": true,
	"without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
	"inf": true, "nan": true, "Inf": true, "NaN": true, "atan2": true, "start": true, "end": true,
	"step": true,
}

// promAggregators are aggregation operators: "sum by (x) (...)" puts a label list between
// the name and its parenthesis.
var promAggregators = map[string]bool{
	"sum": true, "avg": true, "count": true, "min": true, "max": true, "stddev": true,
	"stdvar": true, "topk": true, "bottomk": true, "quantile": true, "count_values": true,
	"group": true, "limitk": true, "limit_ratio": true,
}

// promLabelLists are keywords followed by a parenthesised list of label names.
var promLabelLists = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
}

func isPromIdentStart(c byte) bool {
	return c == '_' || c == ':' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isPromIdent(c byte) bool { return isPromIdentStart(c) || (c >= '0' && c <= '9') }

// skipPromString returns the index just after the string literal that starts at i.
func skipPromString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case s[j] == '\\' && q != '`':
			j++
		case s[j] == q:
			return j + 1
		}
	}
	return len(s)
}

// skipPromSpace skips blanks and comments.
func skipPromSpace(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		case '#':
			for i < len(s) && s[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// skipBalanced returns the index after the bracket that closes the one at i, skipping
// strings inside.
func skipBalanced(s string, i int, open, closing byte) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch c := s[j]; c {
		case '"', '\'', '`':
			j = skipPromString(s, j) - 1
		case open:
			depth++
		case closing:
			depth--
			if depth == 0 {
				return j + 1
			}
		}
	}
	return len(s)
}

// promMetricRefs returns the metric names expr selects, in order.
func promMetricRefs(expr string) []promRef {
	var out []promRef
	// stack holds the function name of each open parenthesis ("" for grouping).
	var stack []string
	inAbsent := func() bool {
		for _, f := range stack {
			if f == "absent" || f == "absent_over_time" {
				return true
			}
		}
		return false
	}
	s := expr
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			i++
		case c == '#':
			i = skipPromSpace(s, i)
		case c == '"' || c == '\'' || c == '`':
			i = skipPromString(s, i)
		case c == '{' && i+1 < len(s) && s[i+1] == '{':
			// A template placeholder: Helm, Go templates, Jinja2.
			if j := indexFrom(s, "}}", i+2); j >= 0 {
				i = j + 2
			} else {
				i = len(s)
			}
		case c == '{' && i+1 < len(s) && s[i+1] == '%':
			if j := indexFrom(s, "%}", i+2); j >= 0 {
				i = j + 2
			} else {
				i = len(s)
			}
		case c == '$':
			// Grafana variables: $var, ${var}, ${var:format}, [[var]] is handled by '['.
			i++
			if i < len(s) && s[i] == '{' {
				i = skipBalanced(s, i, '{', '}')
				continue
			}
			for i < len(s) && isPromIdent(s[i]) {
				i++
			}
		case c == '{':
			end := skipBalanced(s, i, '{', '}')
			out = append(out, promMatcherNames(s, i+1, end-1, inAbsent())...)
			i = end
		case c == '[':
			// Range or subquery durations; Grafana's [[var]].
			i = skipBalanced(s, i, '[', ']')
		case c == '(':
			stack = append(stack, "")
			i++
		case c == ')':
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
			i++
		case c >= '0' && c <= '9' || (c == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9'):
			// Numbers, durations (5m, 1h30m), hex and exponents.
			for i < len(s) && (isPromIdent(s[i]) || s[i] == '.') {
				i++
			}
		case isPromIdentStart(c):
			start := i
			for i < len(s) && isPromIdent(s[i]) {
				i++
			}
			name := s[start:i]
			next := skipPromSpace(s, i)
			switch {
			case promLabelLists[name] && next < len(s) && s[next] == '(':
				i = skipBalanced(s, next, '(', ')')
			case next < len(s) && s[next] == '(':
				stack = append(stack, name)
				i = next + 1
			case promKeywords[name] || promAggregators[name]:
			default:
				out = append(out, promRef{Name: name, From: start, To: i, InAbsent: inAbsent()})
			}
		default:
			i++
		}
	}
	return out
}

// promMatcherNames finds metric names inside a selector's braces s[from:to]:
// {__name__="metric"} and Prometheus 3's quoted names {"metric", job="x"}.
func promMatcherNames(s string, from, to int, absent bool) []promRef {
	var out []promRef
	i := from
	for i < to {
		i = skipPromSpace(s, i)
		if i >= to {
			break
		}
		switch s[i] {
		case ',':
			i++
		case '"', '\'', '`':
			// A bare quoted metric name.
			end := skipPromString(s, i)
			if end-1 > i+1 && end <= to+1 {
				out = append(out, promRef{Name: s[i+1 : end-1], From: i + 1, To: end - 1, InAbsent: absent})
			}
			i = end
		default:
			// label op "value"
			start := i
			for i < to && (isPromIdent(s[i]) || s[i] == '.') {
				i++
			}
			label := s[start:i]
			i = skipPromSpace(s, i)
			opStart := i
			for i < to && (s[i] == '=' || s[i] == '!' || s[i] == '~') {
				i++
			}
			op := s[opStart:i]
			i = skipPromSpace(s, i)
			if i < to && (s[i] == '"' || s[i] == '\'' || s[i] == '`') {
				end := skipPromString(s, i)
				if label == "__name__" && op == "=" && end-1 > i+1 {
					out = append(out, promRef{Name: s[i+1 : end-1], From: i + 1, To: end - 1, InAbsent: absent})
				}
				i = end
				continue
			}
			if i == start {
				i++
			}
		}
	}
	return out
}

func indexFrom(s, sub string, from int) int {
	if from > len(s) {
		return -1
	}
	if j := strings.Index(s[from:], sub); j >= 0 {
		return from + j
	}
	return -1
}
