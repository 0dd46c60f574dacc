package load

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

var (
	manifestRe = regexp.MustCompile(`(?m)^[ \t\-]*["']?(apiVersion|kind)["']?[ \t]*:`)
	yamlLineRe = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
)

// looksLikeManifest reports whether content declares Kubernetes-style apiVersion or kind keys,
// so that failing to decode it is worth a KP001 finding rather than a notice. The regular
// expression, anchored at every line start and without a literal prefix, steps through every
// byte of the text; most texts it is asked about (ConfigMaps' values: properties, scripts,
// dashboards) name neither key word, and a search for them first costs a tenth of it.
func looksLikeManifest(content []byte) bool {
	return (bytes.Contains(content, []byte("apiVersion")) || bytes.Contains(content, []byte("kind"))) && manifestRe.Match(content)
}

// declaresManifest is looksLikeManifest for a string (a ConfigMap's value).
func declaresManifest(s string) bool {
	return (strings.Contains(s, "apiVersion") || strings.Contains(s, "kind")) && manifestRe.MatchString(s)
}

// parseFile decodes a YAML file into documents. Problems are returned, never fatal.
func parseFile(f *checker.File) []checker.LoadProblem {
	f.Format = checker.FormatYAML
	f.Templated = hasTemplateMarker(f.Content)
	if bytes.IndexByte(f.Content, 0) >= 0 {
		return []checker.LoadProblem{{Pos: f.PositionAt(bytes.IndexByte(f.Content, 0)), Message: "binary file skipped", Manifest: false}}
	}
	if !utf8.Valid(f.Content) {
		off := firstInvalidUTF8(f.Content)
		return []checker.LoadProblem{{Pos: f.PositionAt(off), Message: "file is not valid UTF-8", Manifest: looksLikeManifest(f.Content)}}
	}
	if isMIMEMultipart(f.Content) {
		// Cloud user-data in MIME multipart form: not YAML, whatever its name.
		return []checker.LoadProblem{{Pos: f.PositionAt(0), Message: "MIME multipart user-data, not YAML; skipped"}}
	}
	if f.Templated {
		if docs, probs, ok := decodeTemplated(f); ok {
			f.Docs = docs
			return probs
		}
	}
	docs, probs := decodeStream(f)
	f.Docs = docs
	return probs
}

// isMIMEMultipart reports whether content starts with MIME headers (cloud-init and nodeadm
// user-data).
func isMIMEMultipart(b []byte) bool {
	head := b[:min(len(b), 512)]
	return bytes.HasPrefix(head, []byte("MIME-Version:")) || bytes.HasPrefix(head, []byte("Content-Type: multipart/"))
}

func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return 0
}

// decodeStream decodes every document of f. After a syntax error it resumes at the next
// document separator, so one broken document does not hide the others.
func decodeStream(f *checker.File) ([]*checker.Document, []checker.LoadProblem) {
	var docs []*checker.Document
	var probs []checker.LoadProblem
	startLine := 1
	index := 0
	for {
		var r io.Reader = bytes.NewReader(f.Content)
		if startLine > 1 {
			// Keep line numbers by replacing everything before startLine with blank lines.
			off := f.Lines.LineStart(startLine)
			r = io.MultiReader(bytes.NewReader(bytes.Repeat([]byte{'\n'}, startLine-1)), bytes.NewReader(f.Content[off:]))
		}
		dec := yaml.NewDecoder(r)
		var failLine int
		for {
			var n yaml.Node
			err := dec.Decode(&n)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				line, msg := yamlErrorLine(err)
				if line == 0 {
					line = guessErrorLine(f, msg, startLine)
				}
				if line < startLine {
					line = startLine
				}
				probs = append(probs, checker.LoadProblem{
					Pos:      lineFirstChar(f, line),
					Message:  "invalid YAML: " + msg,
					Manifest: looksLikeManifest(f.Content) && !f.Templated,
				})
				failLine = line
				break
			}
			if len(n.Content) == 0 {
				index++
				continue
			}
			d := &checker.Document{File: f, Index: index, Node: n.Content[0]}
			index++
			docs = append(docs, d)
		}
		if failLine == 0 {
			break
		}
		next := nextSeparator(f, max(failLine, startLine+1))
		if next == 0 {
			break
		}
		startLine = next
		index++
	}
	return docs, probs
}

// regionText returns a few lines around line, to see whether a template placeholder is near.
func regionText(f *checker.File, line int) string {
	var b strings.Builder
	for l := max(1, line-2); l <= line+1 && l <= f.Lines.Lines(); l++ {
		b.WriteString(f.Lines.LineText(l))
		b.WriteByte('\n')
	}
	return b.String()
}

func nextSeparator(f *checker.File, from int) int {
	for l := from; l <= f.Lines.Lines(); l++ {
		t := f.Lines.LineText(l)
		if t == "---" || strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "---\t") {
			return l
		}
	}
	return 0
}

func yamlErrorLine(err error) (int, string) {
	msg := err.Error()
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = "yaml: " + te.Errors[0]
	}
	if m := yamlLineRe.FindStringSubmatch(msg); m != nil {
		n, _ := strconv.Atoi(m[1])
		if strings.HasPrefix(m[2], "did not find expected") {
			// yaml.v3 reports these at the 0-based line of the unclosed construct.
			n++
		}
		return n, m[2]
	}
	return 0, strings.TrimPrefix(msg, "yaml: ")
}

// lineFirstChar returns the position of the first non-blank character of line.
func lineFirstChar(f *checker.File, line int) checker.Position {
	if line < 1 {
		line = 1
	}
	if line > f.Lines.Lines() {
		line = f.Lines.Lines()
	}
	off := f.Lines.LineStart(line)
	for off < len(f.Content) && (f.Content[off] == ' ' || f.Content[off] == '\t') {
		off++
	}
	return f.PositionAt(off)
}

// identify fills apiVersion, kind, name and namespace from the document's top level.
func identify(d *checker.Document) {
	d.APIVersion = d.Str(checker.Path{"apiVersion"})
	d.Kind = d.Str(checker.Path{"kind"})
	d.Name = d.Str(checker.Path{"metadata", "name"})
	d.Namespace = d.Str(checker.Path{"metadata", "namespace"})
}

var anchorRe = regexp.MustCompile(`unknown anchor '([^']*)'`)

// guessErrorLine finds the line of errors that yaml.v3 reports without one.
func guessErrorLine(f *checker.File, msg string, from int) int {
	if m := anchorRe.FindStringSubmatch(msg); m != nil {
		for l := from; l <= f.Lines.Lines(); l++ {
			if strings.Contains(f.Lines.LineText(l), "*"+m[1]) {
				return l
			}
		}
	}
	return from
}

// hasTemplateMarker reports whether b holds what templateMarkerRe (parse_test.go) matches: a template delimiter
// ({{ {% {# <% %{), ${NAME, @@NAME, %NAME%, sed-style @NAME@ and __NAME__, or a line that is
// one <tag>. It is a hand-written
// scan, not the regular expression: the expression's multi-line alternative keeps Go's regexp
// from using a literal prefix, so it ran the NFA over every byte of every file (10 s of a
// 20,000-file run). TestHasTemplateMarkerMatchesRegexp and its fuzz test keep the two equal.
func hasTemplateMarker(b []byte) bool {
	for i := 0; i < len(b); {
		j := bytes.IndexAny(b[i:], "{<%$@")
		if j < 0 {
			break
		}
		i += j
		next := byte(0)
		if i+1 < len(b) {
			next = b[i+1]
		}
		switch b[i] {
		case '{':
			if next == '{' || next == '%' || next == '#' {
				return true
			}
		case '<':
			if next == '%' || lineTag(b, i) {
				return true
			}
		case '%':
			if next == '{' || percentVar(b[i+1:]) {
				return true
			}
		case '$':
			if next == '{' && i+2 < len(b) && isNameStart(b[i+2]) {
				return true
			}
		case '@':
			if next == '@' && i+2 < len(b) && isNameStart(b[i+2]) || text.SedPlaceholderEnd(b, i) > 0 {
				return true
			}
		}
		i++
	}
	// __NAME__ (sed-style): a separate search, as '_' is too common to stop at each one.
	for i := 0; i < len(b); {
		j := bytes.Index(b[i:], []byte("__"))
		if j < 0 {
			return false
		}
		i += j
		if text.SedPlaceholderEnd(b, i) > 0 {
			return true
		}
		i++
	}
	return false
}

func isNameStart(c byte) bool { return c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' }

// percentVar: b starts with NAME% where NAME is [A-Z_][A-Z0-9_]* (the rest of %NAME%).
func percentVar(b []byte) bool {
	if len(b) == 0 || b[0] != '_' && (b[0] < 'A' || b[0] > 'Z') {
		return false
	}
	for k := 1; k < len(b); k++ {
		switch c := b[k]; {
		case c == '%':
			return true
		case c == '_' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return false
}

// lineTag: the '<' at b[i] opens a line that is only blanks, <NAME…> and blanks, where the
// tag holds none of <>="'/ and no newline.
func lineTag(b []byte, i int) bool {
	for k := i - 1; k >= 0 && b[k] != '\n'; k-- {
		if b[k] != ' ' && b[k] != '\t' {
			return false
		}
	}
	if i+1 >= len(b) || !isNameStart(b[i+1]) {
		return false
	}
	k := i + 2
	for ; k < len(b); k++ {
		c := b[k]
		if c == '>' {
			break
		}
		if c == '<' || c == '=' || c == '"' || c == '\'' || c == '/' || c == '\n' {
			return false
		}
	}
	if k >= len(b) {
		return false
	}
	for k++; k < len(b) && b[k] != '\n'; k++ {
		if c := b[k]; c != ' ' && c != '\t' && c != '\r' {
			return false
		}
	}
	return true
}
