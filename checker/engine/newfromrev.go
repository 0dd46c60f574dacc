package engine

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// ChangeSet tells which lines changed since a revision, for --new-from-rev and
// --new-from-merge-base. The engine does no Git: the caller computes the set (package
// gitdiff) and the engine only asks it about findings.
type ChangeSet interface {
	// Changed reports whether any of the 1-based lines from..to (inclusive) of file was added
	// or modified. from == 0 asks whether the file changed at all.
	Changed(file string, from, to int) bool
	// Edited is Changed that also counts lines removed between from and to (or right before
	// or after them): it asks whether a region, such as a whole YAML document, was edited.
	Edited(file string, from, to int) bool
}

// RelatedChangeSet is a ChangeSet that judges related locations by a measure of their own.
// --only-files reports every finding in the named files, but a finding elsewhere only when
// its evidence in a named file is on a line that changed: staging a ConfigMap edit reports
// the DaemonSet flag the edit contradicts, while staging an unrelated line of that ConfigMap
// does not make the DaemonSet's old finding block the commit.
type RelatedChangeSet interface {
	ChangeSet
	// RelatedChanged is Changed for a related location.
	RelatedChanged(file string, from, to int) bool
}

// filterChanged keeps the findings on changed code: a finding whose span touches a changed
// line, one with a related location on a changed line (the ConfigMap that was edited makes
// the DaemonSet's flag a new problem), and one about an absent field when the document that
// lacks it was edited (deleting "mode:" creates a mode-unset finding at the kind line, which
// did not change). Findings of broken rules are always kept. Cross-file facts still came from
// the whole tree: only the reporting is narrowed.
func filterChanged(st *state) error {
	cs := st.proc.Changes
	if cs == nil {
		return nil
	}
	docs := newDocIndex(st.ws)
	keep := func(fs []checker.Finding) []checker.Finding {
		kept := fs[:0]
		for i := range fs {
			if fs[i].Internal || isChanged(cs, docs, &fs[i]) {
				kept = append(kept, fs[i])
			}
		}
		return kept
	}
	st.out.Findings = keep(st.out.Findings)
	st.out.Suppressed = keep(st.out.Suppressed)
	return nil
}

func isChanged(cs ChangeSet, docs *docIndex, f *checker.Finding) bool {
	if f.Pos.Filename == "" {
		// Nothing to compare; a finding about no file is about the whole run.
		return true
	}
	if spanChanged(cs, f.Pos, f.End) {
		return true
	}
	related := cs
	if rc, ok := cs.(RelatedChangeSet); ok {
		related = relatedView{rc}
	}
	for _, r := range f.Related {
		if r.Pos.Filename != "" && spanChanged(related, r.Pos, r.End) {
			return true
		}
	}
	if from, to, ok := docs.absentFieldDoc(f); ok && cs.Edited(f.Pos.Filename, from, to) {
		return true
	}
	return false
}

// relatedView asks a RelatedChangeSet about related locations.
type relatedView struct{ RelatedChangeSet }

func (v relatedView) Changed(file string, from, to int) bool {
	return v.RelatedChanged(file, from, to)
}

// spanChanged asks about the lines of a span; a position without a line stands for the file.
func spanChanged(cs ChangeSet, pos, end checker.Position) bool {
	if !pos.IsValid() {
		return cs.Changed(pos.Filename, 0, 0)
	}
	to := pos.Line
	if end.Filename == pos.Filename && end.Line > to {
		to = end.Line
	}
	return cs.Changed(pos.Filename, pos.Line, to)
}

// docIndex finds the document of a finding and its line range.
type docIndex struct {
	files map[string]*checker.File
}

func newDocIndex(ws *checker.Workspace) *docIndex {
	x := &docIndex{files: map[string]*checker.File{}}
	for _, f := range ws.Files {
		if f.Parent == nil {
			x.files[f.Path] = f
		}
	}
	return x
}

// absentFieldDoc returns the line range of the top-level document of a finding whose field
// path does not exist in its document: the finding is about something missing.
func (x *docIndex) absentFieldDoc(f *checker.Finding) (from, to int, ok bool) {
	if f.Object == nil || len(f.Path) == 0 {
		return 0, 0, false
	}
	file := x.files[f.Pos.Filename]
	if file == nil || f.Object.Document < 0 || f.Object.Document >= len(file.Docs) {
		return 0, 0, false
	}
	outer := file.Docs[f.Object.Document]
	doc := outer
	if f.Object.Embedded != "" {
		doc = nil
		for _, d := range outer.Embedded {
			if d.ParentPath.String() == f.Object.Embedded && (f.Object.Kind == "" || d.Kind == f.Object.Kind) {
				doc = d
				break
			}
		}
		if doc == nil {
			return 0, 0, false
		}
	}
	if doc.Node == nil || outer.Node == nil || doc.Has(f.Path) {
		return 0, 0, false
	}
	from = outer.Node.Line
	to = file.Lines.Lines()
	if next := f.Object.Document + 1; next < len(file.Docs) && file.Docs[next].Node != nil {
		to = file.Docs[next].Node.Line - 1
	}
	return from, max(from, to), true
}
