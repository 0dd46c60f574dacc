package checker

import (
	"bytes"
	"regexp"
	"strings"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"

	"go.yaml.in/yaml/v3"
)

// SuppressionRuleID is the rule that reports suppressions that are malformed, name unknown
// rules, have expired or match nothing (KP900 suppression-invalid). The suppression processor
// of the engine reports the last kind under this ID, so both must agree.
const SuppressionRuleID = "KP900"

// IgnoreAnnotation is the object annotation that suppresses findings for a whole object:
// "KP301: reason", one entry per line.
const IgnoreAnnotation = "kube-proxy-lint.io/ignore"

// Suppression kinds, as SARIF names them.
const (
	// SuppressionInSource is a suppression written in the linted files: a comment or an
	// annotation.
	SuppressionInSource = "inSource"
	// SuppressionExternal is a suppression from outside the linted files: a config exclusion,
	// or the quiet of the kube-proxy rules where kube-proxy is replaced (its justification
	// starts with ReplacedJustification).
	SuppressionExternal = "external"
)

// ReplacedJustification starts the justification of the external suppression that quiets a
// kube-proxy rule's finding where kube-proxy is replaced (KP601 reports the replacement).
const ReplacedJustification = "kube-proxy is replaced in this scope: "

// Replaced reports whether s is the quiet of a finding where kube-proxy is replaced.
func (s Suppression) Replaced() bool {
	return s.Kind == SuppressionExternal && strings.HasPrefix(s.Justification, ReplacedJustification)
}

// Suppression records why a finding is not reported.
type Suppression struct {
	// Kind is SuppressionInSource or SuppressionExternal.
	Kind string `json:"kind"`
	// Justification is the reason written with the suppression.
	Justification string `json:"justification"`
	// Pos is where the suppression is written, when known.
	Pos *Position `json:"pos,omitempty"`
}

// DirectiveScope is what a Directive covers.
type DirectiveScope int

// Directive scopes.
const (
	// ScopeLine covers one line: the comment's own line for a trailing comment, else the next
	// line that is neither blank nor a comment.
	ScopeLine DirectiveScope = iota
	// ScopeFile covers the whole file (ignore-file).
	ScopeFile
	// ScopeObject covers one document (the kube-proxy-lint.io/ignore annotation).
	ScopeObject
)

// Directive is one suppression written in the input: a "# kube-proxy-lint:ignore RULES --
// reason" comment, a "# kube-proxy-lint:ignore-file RULES -- reason" comment, or one entry of
// a kube-proxy-lint.io/ignore annotation.
type Directive struct {
	Scope DirectiveScope
	// Pos and End span the directive's text in the real file.
	Pos, End Position
	// Line is the line a ScopeLine directive covers (0 when there is none); FirstLine and
	// LastLine bound the document of a ScopeObject directive.
	Line                int
	FirstLine, LastLine int
	// Document is the 0-based index of the document a ScopeObject directive covers.
	Document int
	// Rules are the rule IDs or names as written.
	Rules []string
	// Until is the last day (YYYY-MM-DD) the directive applies, "" for no expiry.
	Until  string
	Reason string
	// Problem says why the directive is malformed; "" when it is well-formed. A malformed
	// directive suppresses nothing.
	Problem string
}

// Expired reports whether the directive's until date lies before today (in today's location).
func (d *Directive) Expired(today time.Time) bool {
	return d.Until != "" && today.Format(dateLayout) > d.Until
}

// Covers reports whether the directive's scope includes f (rules aside).
func (d *Directive) Covers(f *Finding) bool {
	if f.Pos.Filename != d.Pos.Filename {
		return false
	}
	switch d.Scope {
	case ScopeLine:
		return d.Line > 0 && f.Pos.Line == d.Line
	case ScopeFile:
		return true
	case ScopeObject:
		if f.Object != nil {
			return f.Object.Document == d.Document
		}
		return f.Pos.Line >= d.FirstLine && (d.LastLine == 0 || f.Pos.Line <= d.LastLine)
	}
	return false
}

// Suppression returns the record a finding suppressed by d carries.
func (d *Directive) Suppression() Suppression {
	pos := d.Pos
	return Suppression{Kind: SuppressionInSource, Justification: d.Reason, Pos: &pos}
}

const dateLayout = "2006-01-02"

// directiveRe finds a directive comment: "#" at the start of a line or after a space, then
// "kube-proxy-lint:" and the verb.
var directiveRe = regexp.MustCompile(`(?:^|\s)(#\s*kube-proxy-lint:([A-Za-z-]*))(.*)$`)

var directiveMarker = []byte("kube-proxy-lint:")

// MayHoldDirectives reports whether content may hold a suppression comment (its marker).
func MayHoldDirectives(content []byte) bool { return bytes.Contains(content, directiveMarker) }

// ScanDirectives returns the suppression directives of every real file of ws, in file order:
// comments found by scanning the raw lines (so they work in YAML, inside ConfigMap block
// scalars, in shell scripts and systemd units alike) and ignore annotations of top-level
// documents.
func ScanDirectives(ws *Workspace) []Directive {
	var out []Directive
	for _, f := range ws.Files {
		if f.Parent != nil {
			continue
		}
		if MayHoldDirectives(f.Content) {
			out = append(out, scanComments(f)...)
		}
		for _, d := range f.Docs {
			out = append(out, annotationDirectives(f, d)...)
		}
	}
	return out
}

func scanComments(f *File) []Directive {
	var out []Directive
	n := f.Lines.Lines()
	for line := 1; line <= n; line++ {
		text := f.Lines.LineText(line)
		if !strings.Contains(text, "kube-proxy-lint:") {
			continue
		}
		m := directiveRe.FindStringSubmatchIndex(text)
		if m == nil {
			continue
		}
		start := f.Lines.LineStart(line)
		d := Directive{
			Pos: f.Lines.Position(f.Path, start+m[2]),
			End: f.Lines.Position(f.Path, start+len(strings.TrimRight(text, " \t"))),
		}
		verb := text[m[4]:m[5]]
		switch verb {
		case "ignore":
			d.Scope = ScopeLine
			if strings.TrimSpace(text[:m[2]]) == "" {
				d.Line = nextCodeLine(f.Lines, line)
			} else {
				d.Line = line
			}
		case "ignore-file":
			d.Scope = ScopeFile
		default:
			d.Problem = `unknown directive "kube-proxy-lint:` + verb + `" (want kube-proxy-lint:ignore or kube-proxy-lint:ignore-file)`
			out = append(out, d)
			continue
		}
		rules, reason, hasReason := strings.Cut(text[m[6]:], "--")
		parseDirectiveBody(&d, rules, reason, hasReason, "--")
		out = append(out, d)
	}
	return out
}

// nextCodeLine returns the first line after line that is neither blank nor a comment, or 0.
func nextCodeLine(x *text.LineIndex, line int) int {
	for l := line + 1; l <= x.Lines(); l++ {
		t := strings.TrimSpace(x.LineText(l))
		if t != "" && !strings.HasPrefix(t, "#") {
			return l
		}
	}
	return 0
}

// parseDirectiveBody fills rules, until date, reason and problem from the text of a directive:
// rules and "until=DATE" tokens, then the separator and the reason.
func parseDirectiveBody(d *Directive, rules, reason string, hasReason bool, sep string) {
	for _, tok := range strings.FieldsFunc(rules, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		if v, ok := strings.CutPrefix(tok, "until="); ok {
			if _, err := time.Parse(dateLayout, v); err != nil {
				d.Problem = `invalid until date "` + v + `" (want YYYY-MM-DD)`
				return
			}
			d.Until = v
			continue
		}
		d.Rules = append(d.Rules, tok)
	}
	d.Reason = strings.TrimSpace(reason)
	switch {
	case len(d.Rules) == 0:
		d.Problem = "suppression names no rule: write rule IDs or names before " + sep
	case !hasReason || d.Reason == "":
		d.Problem = `suppression has no reason: add "` + sep + ` reason" after the rules`
	}
}

// annotationDirectives parses the ignore annotation of a document: one "RULES[ until=DATE]:
// reason" entry per line; blank lines and lines starting with "#" are skipped.
func annotationDirectives(f *File, d *Document) []Directive {
	_, v := d.Lookup(Path{"metadata", "annotations", IgnoreAnnotation})
	if v == nil || v.Kind != yaml.ScalarNode {
		return nil
	}
	first, last := 0, 0
	if d.Node != nil {
		first = d.Node.Line
	}
	for _, other := range f.Docs {
		if other.Index == d.Index+1 && other.Node != nil {
			last = other.Node.Line - 1
		}
	}
	var out []Directive
	val := v.Value
	for off := 0; off < len(val); {
		end := strings.IndexByte(val[off:], '\n')
		if end < 0 {
			end = len(val)
		} else {
			end += off
		}
		entry := val[off:end]
		lead := len(entry) - len(strings.TrimLeft(entry, " \t"))
		trimmed := strings.TrimSpace(entry)
		// Lines starting with "#" are comments, as people expect in a YAML file.
		if trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			pos, endPos := d.SubPos(v, off+lead, off+lead+len(trimmed))
			dir := Directive{Scope: ScopeObject, Pos: pos, End: endPos, Document: d.Index, FirstLine: first, LastLine: last}
			rules, reason, ok := strings.Cut(trimmed, ":")
			parseDirectiveBody(&dir, rules, reason, ok, ":")
			out = append(out, dir)
		}
		off = end + 1
	}
	return out
}
