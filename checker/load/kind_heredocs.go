package load

import (
	"path"
	"strconv"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Several kind clusters written by heredocs of one file (a workflow whose jobs create kind
// clusters in different modes, a script that creates one per mode) are alternatives, as
// several kind files side by side in one directory are: each is a cluster of its own, so one
// cluster's kubeProxyMode: none, node image version or mode never reaches another. The
// cluster model places files, so each such heredoc becomes a virtual file of its own, placed
// like a chart rendering (checker.Workspace.AddRendered): its positions map back to the
// heredoc's lines in the real file (heredocRender), where findings, notes and fixes point.
// A file with one kind heredoc is left alone: that cluster anchors the file's directory
// like a kind file.

// heredocRender maps a virtual kind heredoc file to the bytes of the heredoc body it was
// decoded from: exactly, byte for byte.
type heredocRender struct{ body *checker.File }

// Span maps [from, to) of the heredoc's virtual file to the real file.
func (r heredocRender) Span(from, to int, _ string) checker.MappedSpan {
	return checker.MappedSpan{Pos: r.body.PositionAt(from), End: r.body.PositionAt(to), Exact: true}
}

// ClusterHow says how the cluster model found the cluster (checker/cluster renderings).
func (r heredocRender) ClusterHow() string {
	return "kind Cluster written by a heredoc, one of several in " + r.body.Outer().Path
}

// isHeredocKindCluster reports whether d is a kind Cluster decoded from a heredoc of a
// script or of a CI step's script.
func isHeredocKindCluster(d *checker.Document) bool {
	return isKindCluster(d) && d.File.Parent != nil && d.File.Parent.Format == checker.FormatText
}

// splitKindHeredocs gives each kind Cluster heredoc of a file holding more than one a
// virtual file and a cluster of its own (before the workspace's documents are listed).
func splitKindHeredocs(ws *checker.Workspace) {
	for _, f := range ws.Files {
		if f.Parent != nil || !hasHeredocKindClusters(f) {
			continue
		}
		// The heredoc bodies holding a kind Cluster, in file order, and where their
		// documents are listed: the script's own documents, or a YAML document's embedded
		// ones (a CI step's heredocs).
		type body struct {
			file  *checker.File
			owner *[]*checker.Document
		}
		var bodies []body
		seen := map[*checker.File]bool{}
		note := func(list *[]*checker.Document) {
			for _, d := range *list {
				if isHeredocKindCluster(d) && !seen[d.File] {
					seen[d.File] = true
					bodies = append(bodies, body{d.File, list})
				}
			}
		}
		note(&f.Docs)
		for _, d := range f.Docs {
			note(&d.Embedded)
		}
		if len(bodies) < 2 {
			continue
		}
		dir := path.Dir(f.Path)
		if dir == "." {
			dir = ""
		}
		for _, b := range bodies {
			first := b.file.PositionAt(0)
			variant := path.Base(f.Path) + " line " + strconv.Itoa(first.Line)
			if b.file.Reason != "" {
				// One matrix value's copy of the heredoc (step_matrix.go).
				variant += ", " + b.file.Reason
			}
			root := joinDir(dir, virtualMark+"@"+variant)
			rf := &checker.File{Path: root + "/" + path.Base(f.Path), Content: b.file.Content, Lines: b.file.Lines,
				Format: checker.FormatYAML, Templated: b.file.Masked, Render: heredocRender{b.file},
				Reason: "a kind Cluster written by a heredoc at line " + strconv.Itoa(first.Line)}
			// The body's documents move to the virtual file, with the documents embedded in
			// them (kind's kubeadmConfigPatches); the real file no longer lists them.
			keep := (*b.owner)[:0]
			for _, d := range *b.owner {
				if d.File != b.file {
					keep = append(keep, d)
					continue
				}
				d.File, d.Parent, d.ParentPath = rf, nil, nil
				for _, e := range d.Embedded {
					if e.File.Parent == b.file {
						e.File.Parent = rf
					}
				}
				rf.Docs = append(rf.Docs, d)
			}
			*b.owner = keep
			ws.AddRendered(rf, root, dir)
		}
	}
}

// hasHeredocKindClusters reports whether more than one document of f, or embedded in one of
// its documents, is a kind Cluster heredoc: a walk over the decoded documents, no content scan.
func hasHeredocKindClusters(f *checker.File) bool {
	n := 0
	for _, d := range f.Docs {
		if isHeredocKindCluster(d) {
			n++
		}
		for _, e := range d.Embedded {
			if isHeredocKindCluster(e) {
				n++
			}
		}
	}
	return n > 1
}
