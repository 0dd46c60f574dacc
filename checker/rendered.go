package checker

import (
	"path"
	"sort"
	"strings"
)

// Rendered files: a Helm chart is rendered by Helm's engine into virtual files, one per
// template and values variant, whose documents are checked like any other. Their paths are
// virtual (no such file exists); a RenderMap says where each span of rendered text is
// written (a value of a values file, a template's literal text, or the template action that
// produced it), and Pass.Report moves every position, related location and fix edit there,
// so no finding, note or fix ever names a virtual file.

// RenderMap maps the bytes of a rendered file to where they are written.
type RenderMap interface {
	// Span maps the rendered bytes [from, to). key is the last field name of the finding's
	// path, if any: it picks the value a whole-map placeholder ({{ toYaml .Values.config }})
	// wrote.
	Span(from, to int, key string) MappedSpan
}

// MappedSpan is where a span of rendered text is written.
type MappedSpan struct {
	Pos, End Position
	// Exact is true when Pos..End is the text that was rendered, as written (a values file's
	// value, a template's literal text): an edit there changes what renders the same way.
	Exact bool
	// Approximate is true when only the template action that produced the text is known:
	// the message says the position is approximate.
	Approximate bool
	// Related are notes for the finding (the template line that renders a value).
	Related []Related
}

// ApproximateNote is appended to the message of a finding whose position is the template
// action that rendered it.
const ApproximateNote = " (approximate position: the template action that renders this value)"

// AddRendered adds a rendered virtual file (its Render map set) to the workspace. Its
// documents must be added to Docs by the caller. root is the virtual directory of its
// rendering (below which its Path lies) and real the directory it stands for (the chart's).
func (ws *Workspace) AddRendered(f *File, root, real string) {
	if ws.rendered == nil {
		ws.rendered = map[string]*File{}
		ws.renderRoots = map[string]string{}
	}
	ws.renderRoots[root] = real
	ws.rendered[f.Path] = f
	ws.Rendered = append(ws.Rendered, f)
	sort.SliceStable(ws.Rendered, func(i, j int) bool { return ws.Rendered[i].Path < ws.Rendered[j].Path })
}

// RenderRoot returns the rendering a virtual file belongs to: its virtual root directory, the
// chart's real directory and the values variant it was rendered with ("values.yaml",
// "values-prod.yaml").
func (ws *Workspace) RenderRoot(file string) (root, real, variant string, ok bool) {
	for r, re := range ws.renderRoots {
		if isDirPrefix(r, file) {
			v := path.Base(r)
			v = strings.TrimPrefix(strings.TrimPrefix(v, "\x00"), "@")
			v = strings.ReplaceAll(v, "|", "/")
			return r, re, v, true
		}
	}
	return "", "", "", false
}

// RenderedFile returns the rendered virtual file named path, or nil.
func (ws *Workspace) RenderedFile(path string) *File {
	if ws.rendered == nil {
		return nil
	}
	return ws.rendered[path]
}

// MapSpan maps a span given by two positions in a rendered file; ok is false when pos names
// no rendered file.
func (ws *Workspace) MapSpan(pos, end Position, key string) (MappedSpan, bool) {
	rf := ws.RenderedFile(pos.Filename)
	if rf == nil || rf.Render == nil {
		return MappedSpan{}, false
	}
	to := pos.Offset
	if end.Filename == pos.Filename && end.Offset > to {
		to = end.Offset
	}
	return rf.Render.Span(pos.Offset, to, key), true
}

// MapFinding moves the positions of a finding in rendered files to where the text is
// written: the finding itself, its related locations and its fixes' edits. A fix with an
// edit that cannot be mapped exactly is dropped.
func (ws *Workspace) MapFinding(f *Finding) {
	if len(ws.rendered) == 0 {
		return
	}
	key := ""
	if len(f.Path) > 0 {
		key = f.Path[len(f.Path)-1]
	}
	var extra []Related
	if ms, ok := ws.MapSpan(f.Pos, f.End, key); ok {
		f.Pos, f.End = ms.Pos, ms.End
		if ms.Approximate && !strings.Contains(f.Message, ApproximateNote) {
			f.Message += ApproximateNote
		}
		extra = ms.Related
	}
	for i := range f.Related {
		r := &f.Related[i]
		if ms, ok := ws.MapSpan(r.Pos, r.End, ""); ok {
			r.Pos, r.End = ms.Pos, ms.End
		}
	}
	if len(extra) > 0 {
		f.Related = append(append([]Related(nil), extra...), f.Related...)
	}
	if len(f.Fixes) == 0 {
		return
	}
	var fixes []Fix
	for _, fx := range f.Fixes {
		if mapped, ok := ws.mapFix(fx, key); ok {
			fixes = append(fixes, mapped)
		} else if fx.Preferred || len(f.Fixes) == 1 {
			// As for placeholders: an alternative never becomes the fix --fix applies.
			f.Fixes = nil
			return
		}
	}
	f.Fixes = fixes
}

// mapFix maps the edits of a fix; ok is false when one lands in rendered text that is not
// written as such anywhere.
func (ws *Workspace) mapFix(fx Fix, key string) (Fix, bool) {
	var edits []TextEdit
	for _, e := range fx.Edits {
		if ws.RenderedFile(e.Pos.Filename) == nil {
			edits = append(edits, e)
			continue
		}
		ms, _ := ws.MapSpan(e.Pos, e.End, key)
		if !ms.Exact {
			return Fix{}, false
		}
		e.Pos, e.End = ms.Pos, ms.End
		edits = append(edits, e)
	}
	fx.Edits = edits
	return fx, true
}

// MapPosition maps one position of a rendered file (a load problem, a version source); other
// positions are returned as they are.
func (ws *Workspace) MapPosition(p Position) Position {
	if ms, ok := ws.MapSpan(p, p, ""); ok {
		return ms.Pos
	}
	return p
}
