package checker

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Finding is one problem reported by a rule.
type Finding struct {
	RuleID   string   `json:"ruleId"`
	RuleName string   `json:"ruleName"`
	Severity Severity `json:"severity"`
	// Message says what is wrong with the actual value: lowercase, no trailing period.
	Message string   `json:"message"`
	Pos     Position `json:"pos"`
	End     Position `json:"end"`
	// Object names the Kubernetes object the finding is about, when there is one.
	Object *ObjectRef `json:"object,omitempty"`
	// Path is the field path inside Object's document.
	Path    Path      `json:"path,omitempty"`
	Related []Related `json:"related,omitempty"`
	Fixes   []Fix     `json:"fixes,omitempty"`
	// Internal marks a finding that reports a broken rule, not a problem in the input.
	Internal bool `json:"internal,omitempty"`
	// Target is the Kubernetes version the finding was checked at and where it came from
	// (the target of its scope); set by Pass.Report. Formats show it on their own terms.
	Target *Target `json:"-"`
	// Cluster names the cluster the finding is about (checker.Cluster.Name), "" for a shared
	// file.
	Cluster string `json:"-"`
	// Suppressions say why a finding is not reported (inline comment, annotation or config
	// exclusion); set only on the findings of engine.Outcome.Suppressed.
	Suppressions []Suppression `json:"suppressions,omitempty"`
	// Subject is the source text of the finding's span, whitespace collapsed, when it has no
	// field path (a flag on a command line, an address in a script): what Fingerprint
	// identifies it by. The engine sets it.
	Subject string `json:"-"`
}

// ObjectRef identifies a document.
type ObjectRef struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind,omitempty"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name,omitempty"`
	// Document is the 0-based index of the document in its file.
	Document int `json:"document"`
	// Embedded is the field path of the scalar holding an embedded document, such as
	// "data.config.conf", when the object lives inside another document.
	Embedded string `json:"embedded,omitempty"`
}

// String formats the reference as Kind namespace/name.
func (o *ObjectRef) String() string {
	if o == nil {
		return ""
	}
	s := o.Kind
	switch {
	case o.Namespace != "" && o.Name != "":
		s += " " + o.Namespace + "/" + o.Name
	case o.Name != "":
		s += " " + o.Name
	}
	if o.Embedded != "" {
		s += " (" + o.Embedded + ")"
	}
	return s
}

// Related is a secondary location that explains a finding.
type Related struct {
	Pos     Position `json:"pos"`
	End     Position `json:"end"`
	Message string   `json:"message"`
}

// Fix is a suggested change made of byte edits to the original files.
type Fix struct {
	Message string     `json:"message"`
	Edits   []TextEdit `json:"edits"`
	// Safety tells whether the fix keeps what the running cluster does (Safe) or changes
	// it (Unsafe, the zero value); `--fix` applies safe fixes only.
	Safety Safety `json:"safety"`
	// Preferred marks the fix `--fix` applies when the finding offers several; the others
	// stay suggestions. A finding's only fix is its preferred fix (Finding.PreferredFix).
	Preferred bool `json:"preferred,omitempty"`
}

// TextEdit replaces the bytes [Pos.Offset, End.Offset) of Pos.Filename with NewText.
type TextEdit struct {
	Pos     Position `json:"pos"`
	End     Position `json:"end"`
	NewText string   `json:"newText"`
}

// Overlaps reports whether two edits of one file cannot both apply: their spans intersect,
// an insertion lies inside the other's span, or both insert at one place. An edit never
// overlaps itself.
func (e TextEdit) Overlaps(o TextEdit) bool {
	if e == o {
		return false
	}
	if e.Pos.Offset == e.End.Offset && o.Pos.Offset == o.End.Offset {
		return e.Pos.Offset == o.Pos.Offset
	}
	return e.Pos.Offset < o.End.Offset && o.Pos.Offset < e.End.Offset
}

// Fingerprint is a position-independent identity of the finding: rule, file, object and field
// path, or for a finding without a path (a command-line flag in a script or unit) the text it
// points at. It survives edits that move the finding to another line, and it never includes
// the message, which names the target version and other facts that change without the input
// changing (bumping an image tag must not invalidate a baseline).
func (f *Finding) Fingerprint() string {
	h := sha256.New()
	h.Write([]byte(f.RuleID))
	h.Write([]byte{0})
	h.Write([]byte(f.Pos.Filename))
	h.Write([]byte{0})
	if f.Object != nil {
		h.Write([]byte(f.Object.Kind + "/" + f.Object.Namespace + "/" + f.Object.Name + "/" + f.Object.Embedded))
	}
	h.Write([]byte{0})
	if len(f.Path) > 0 {
		h.Write([]byte(f.Path.String()))
	} else {
		h.Write([]byte{1})
		h.Write([]byte(f.Subject))
	}
	return hex.EncodeToString(h.Sum(nil))[:32]
}

// maxSubject bounds Finding.Subject: a few hundred bytes identify a flag or a value.
const maxSubject = 256

// SubjectOf returns the Subject of a finding whose span is content[from:to]: the text with
// runs of white space (and line continuations) collapsed to one space, so that re-indenting or
// re-wrapping a command line keeps its findings' identity.
func SubjectOf(content []byte, from, to int) string {
	if from < 0 || to > len(content) || from >= to {
		return ""
	}
	to = min(to, from+maxSubject)
	return strings.Join(strings.Fields(strings.ReplaceAll(string(content[from:to]), "\\\n", " ")), " ")
}

// SortFindings orders findings by file, position, rule and message, so output is deterministic.
func SortFindings(fs []Finding) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := &fs[i], &fs[j]
		if a.Pos.Filename != b.Pos.Filename {
			return a.Pos.Filename < b.Pos.Filename
		}
		if a.Pos.Line != b.Pos.Line {
			return a.Pos.Line < b.Pos.Line
		}
		if a.Pos.Column != b.Pos.Column {
			return a.Pos.Column < b.Pos.Column
		}
		if a.RuleID != b.RuleID {
			return a.RuleID < b.RuleID
		}
		return a.Message < b.Message
	})
}

// ApplyEdits applies non-overlapping edits to content and returns the result. Identical
// edits are applied once; other overlapping edits are an error.
func ApplyEdits(content []byte, edits []TextEdit) ([]byte, error) {
	es := append([]TextEdit(nil), edits...)
	sort.SliceStable(es, func(i, j int) bool {
		if es[i].Pos.Offset != es[j].Pos.Offset {
			return es[i].Pos.Offset < es[j].Pos.Offset
		}
		return es[i].End.Offset < es[j].End.Offset
	})
	var b strings.Builder
	last := 0
	for i, e := range es {
		if i > 0 && e == es[i-1] {
			// The same edit offered by several findings (one fix covering them all).
			continue
		}
		if e.Pos.Offset < last || e.End.Offset < e.Pos.Offset || e.End.Offset > len(content) {
			return nil, &EditConflictError{Edit: e}
		}
		b.Write(content[last:e.Pos.Offset])
		b.WriteString(e.NewText)
		last = e.End.Offset
	}
	b.Write(content[last:])
	return []byte(b.String()), nil
}

// EditConflictError reports an edit that overlaps another or lies outside the file.
type EditConflictError struct{ Edit TextEdit }

func (e *EditConflictError) Error() string {
	return "conflicting or out-of-range edit at " + e.Edit.Pos.String()
}
