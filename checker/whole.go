package checker

import "fmt"

// WholeDocs gives the documents of a workspace whole, for a reader that needs every field
// (a repository Rego rule may read any): a document the loader pruned or reduced is decoded
// again from its file (File.Redecode), and the documents of the last file decoded are kept
// until another is needed, so that a reader going through Workspace.Docs in order holds one
// file's trees at a time. The zero value is ready; one reader (goroutine) uses one.
type WholeDocs struct {
	file *File
	docs []*Document
	err  error
}

// Of returns d whole: d itself when it kept its tree or its file cannot be decoded again,
// else the same document of its file decoded again (same file path, index, positions and
// text), or an error when that fails.
func (w *WholeDocs) Of(d *Document) (*Document, error) {
	if !d.Pruned && !d.Reduced || d.Parent != nil {
		return d, nil
	}
	outer := d.File.Outer()
	if outer.Redecode == nil {
		return d, nil
	}
	if w.file != outer {
		w.file, w.docs, w.err = outer, nil, nil
		nf, err := outer.Redecode()
		if err != nil {
			w.err = err
		} else {
			w.docs = nf.Docs
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	for _, t := range w.docs {
		if t.Index == d.Index && t.Parent == nil && t.Kind == d.Kind {
			return t, nil
		}
	}
	return nil, fmt.Errorf("%s: document %d is not there when the file is decoded again", outer.Path, d.Index+1)
}
