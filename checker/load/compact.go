package load

import (
	"unsafe"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Compaction (issue 24). yaml.v3 allocates every node on its own, and a file's nodes sit in
// the heap's spans among those of the files decoded beside it, most of which are garbage
// once pruned. The few nodes a file keeps (a kube-proxy DaemonSet, a Service's ports, a
// header) then pin spans that are otherwise free: after loading the benchmark corpus the heap
// held as much memory in free slots of such spans as in live objects (114 MB beside 137 MB),
// and that, not the live data, set most of a run's peak. Once a file is settled, the loader
// copies what its documents keep into slabs it fills one after the other (compactor): large
// blocks no garbage shares, so the spans of the decoded trees are freed whole.

// compactor hands out nodes and content slices from slabs; one per loading goroutine.
type compactor struct {
	nodes  slab[yaml.Node]
	ptrs   slab[*yaml.Node]
	bytes  slab[byte]
	starts slab[uint32]
	short  slab[uint16]
	// lines holds the files' line indexes themselves: 160 bytes each, yaml.Node's size class,
	// so one allocated while its file was decoded kept a span of that file's garbage nodes
	// alive (a third of the holes in the heap after loading, issue 24 phase 6).
	lines slab[text.LineIndex]
	// docs holds the files' and documents' lists of documents: most files have one or two,
	// a slice of eight or sixteen bytes allocated among the file's garbage.
	docs slab[*checker.Document]
	// moved maps each line index of the file being compacted to its copy (reset per file):
	// files that share one (a matrix layer and its file) keep sharing it.
	moved map[*text.LineIndex]*text.LineIndex
	// copies maps each node of the file being compacted to its copy, and made lists the
	// copies in the order they were made (both reset per file).
	copies map[*yaml.Node]*yaml.Node
	made   []*yaml.Node
	// files, seen and at are compactFile's and compactStrings' own sets, kept between
	// files (cleared) so that a file does not allocate them again.
	files map[*checker.File]bool
	seen  map[*checker.Document]bool
	at    map[string]int
	// strs are the documents' own strings (apiVersion, kind, name, namespace), moved with the
	// nodes' (compactStrings).
	strs []*string
	// shared are the short strings kept for earlier files (compactStrings).
	shared map[string]string
	// headers are the root nodes the compactor's headers share (header).
	headers map[headerKey]*yaml.Node
}

// headerKey is what a header's root node holds (pruneToHeader): where its document starts.
type headerKey struct {
	kind   yaml.Kind
	style  yaml.Style
	tag    string
	line   int
	column int
}

// header returns the node that the headers whose root is like n share. A header's node says
// only where its document starts, most documents start at the same few places (1:1), and
// nothing writes it: one node serves them all (issue 24: 200,000 headers at 100,000 files,
// each with a node of its own, 32 MB). The table lives as long as the compactor (one per
// loading goroutine while files load), and holds no more nodes than there were headers.
func (c *compactor) header(n *yaml.Node) *yaml.Node {
	if n == nil || len(n.Content) > 0 || n.Value != "" || n.Anchor != "" || n.Alias != nil ||
		n.HeadComment != "" || n.LineComment != "" || n.FootComment != "" {
		return c.copyNode(n) // not a header's root
	}
	k := headerKey{n.Kind, n.Style, n.Tag, n.Line, n.Column}
	if h, ok := c.headers[k]; ok {
		return h
	}
	if c.headers == nil {
		c.headers = map[headerKey]*yaml.Node{}
	}
	h := &c.nodes.take(1)[0]
	*h = yaml.Node{Kind: n.Kind, Style: n.Style, Tag: n.Tag, Line: n.Line, Column: n.Column}
	c.headers[k] = h
	return h
}

// slab hands out slices of blocks of size elements, one block after the other: a block past
// 32 KiB has heap spans of its own, which no garbage shares. A request larger than an eighth
// of a block gets its own allocation (it would waste the rest of a block).
type slab[T any] struct {
	block []T
	size  int
}

// take returns n elements, with capacity n: an append to them copies.
func (s *slab[T]) take(n int) []T {
	if n > s.size/8 {
		return make([]T, n)
	}
	if cap(s.block)-len(s.block) < n {
		s.block = make([]T, 0, s.size)
	}
	l := len(s.block)
	s.block = s.block[:l+n]
	return s.block[l : l+n : l+n]
}

// sizeSlabs sets the slabs' block sizes (each past 32 KiB) of a new compactor.
func (c *compactor) sizeSlabs() {
	if c.nodes.size == 0 {
		c.nodes.size = 512 // 76 KiB of nodes
		c.ptrs.size = 8192 // 64 KiB of content pointers
		c.bytes.size = 256 << 10
		c.starts.size = 16384 // 64 KiB of line starts
		c.short.size = 32768  // 64 KiB of short ones (text.LineIndex.Pack)
		c.lines.size = 512    // 80 KiB of line indexes
		c.docs.size = 8192    // 64 KiB of document lists
	}
}

// text returns a copy of b from the slabs (b itself when it is large enough not to share
// spans).
func (c *compactor) text(b []byte) []byte {
	if len(b) == 0 || len(b) > c.bytes.size/8 {
		return b
	}
	out := c.bytes.take(len(b))
	copy(out, b)
	return out
}

// docList returns a copy of ds from the slabs (ds itself when it is empty or large).
func (c *compactor) docList(ds []*checker.Document) []*checker.Document {
	if len(ds) == 0 || len(ds) > c.docs.size/8 {
		return ds
	}
	out := c.docs.take(len(ds))
	copy(out, ds)
	return out
}

// copyNode returns n's copy, made once per node so that shared nodes and aliases stay shared.
func (c *compactor) copyNode(n *yaml.Node) *yaml.Node {
	if n == nil {
		return nil
	}
	if m, ok := c.copies[n]; ok {
		return m
	}
	m := &c.nodes.take(1)[0]
	*m = *n
	c.copies[n] = m
	c.made = append(c.made, m)
	if n.Content != nil {
		m.Content = c.ptrs.take(len(n.Content))
		for i, k := range n.Content {
			m.Content[i] = c.copyNode(k)
		}
	}
	m.Alias = c.copyNode(n.Alias)
	return m
}

// compactFile copies the trees of f's documents (and of their embedded documents) into c's
// slabs, with every node a document holds outside its tree (field issues, metric facts). The
// offset maps memoized on the file are keyed by where their scalars are written
// (File.ScalarMap), so they serve the copies.
func (c *compactor) compactFile(f *checker.File) {
	if c == nil || f == nil {
		return
	}
	if !c.small(f) {
		return
	}
	c.sizeSlabs()
	if c.copies == nil {
		c.copies, c.files, c.seen, c.at = map[*yaml.Node]*yaml.Node{}, map[*checker.File]bool{}, map[*checker.Document]bool{}, map[string]int{}
		c.moved = map[*text.LineIndex]*text.LineIndex{}
	}
	files, seen := c.files, c.seen
	files[f] = true
	var doc func(d *checker.Document)
	doc = func(d *checker.Document) {
		if seen[d] {
			return
		}
		seen[d] = true
		files[d.File] = true
		if d.Pruned {
			d.Node = c.header(d.Node)
		} else {
			d.Node = c.copyNode(d.Node)
		}
		c.strs = append(c.strs, &d.APIVersion, &d.Kind, &d.Name, &d.Namespace)
		for i := range d.Issues {
			is := &d.Issues[i]
			is.Key, is.Parent, is.Value = c.copyNode(is.Key), c.copyNode(is.Parent), c.copyNode(is.Value)
		}
		if m := d.Metrics; m != nil {
			for i := range m.Groups {
				for j := range m.Groups[i].Rules {
					e := &m.Groups[i].Rules[j].Expr
					e.Node = c.copyNode(e.Node)
				}
			}
			for i := range m.Queries {
				m.Queries[i].Node = c.copyNode(m.Queries[i].Node)
			}
		}
		if sf := d.Service; sf != nil {
			c.strs = append(c.strs, &sf.Type)
			for i := range sf.NodePorts {
				np := &sf.NodePorts[i]
				c.strs = append(c.strs, &np.Type, &np.Protocol) // Path's are constants
			}
			for i := range sf.Ports {
				c.strs = append(c.strs, &sf.Ports[i].Name, &sf.Ports[i].Protocol)
			}
		}
		for _, e := range d.Embedded {
			doc(e)
		}
		d.Embedded = c.docList(d.Embedded)
	}
	for _, d := range f.Docs {
		doc(d)
	}
	for g := range files {
		g.Docs = c.docList(g.Docs)
		c.strs = append(c.strs, &g.Path, &g.Reason)
		if g.Content != nil && f.Redecode == nil {
			// A file that can be decoded again keeps the text its recipe holds (setRedecode).
			g.Content = c.text(g.Content)
		}
		if g.Lines != nil {
			if m, ok := c.moved[g.Lines]; ok {
				g.Lines = m
				continue
			}
			if !g.Lines.Pack(g.Content, c.short.take) {
				g.Lines.Move(g.Content, c.starts.take)
			}
			m := &c.lines.take(1)[0]
			*m = *g.Lines
			c.moved[g.Lines] = m
			g.Lines = m
		}
	}
	clear(c.moved)
	c.compactStrings()
	c.made, c.strs = c.made[:0], c.strs[:0]
	if len(c.copies) > reuseMaps || len(c.at) > reuseMaps {
		c.copies = nil // a large file's maps are not cleared for every small one after it
	} else {
		clear(c.copies)
		clear(c.files)
		clear(c.seen)
		clear(c.at)
	}
}

// reuseMaps is the most entries the compactor's maps keep between files.
const reuseMaps = 4096

// compactNodes is the most nodes a file may keep for its trees to be moved: what pins spans
// is a few kept nodes among garbage, while yaml.v3 allocates a large tree's nodes one after
// the other, densely already; copying one (a 4 MiB flow sequence is two million nodes) would
// hold it twice while it is copied.
const compactNodes = 1 << 16

// small reports whether f's documents keep at most compactNodes nodes in their trees (not
// counting through aliases, which point inside them).
func (c *compactor) small(f *checker.File) bool {
	n := 0
	var walk func(x *yaml.Node) bool
	walk = func(x *yaml.Node) bool {
		if x == nil {
			return true
		}
		if n++; n > compactNodes {
			return false
		}
		for _, k := range x.Content {
			if !walk(k) {
				return false
			}
		}
		return true
	}
	var doc func(d *checker.Document, depth int) bool
	doc = func(d *checker.Document, depth int) bool {
		if depth > 64 || !walk(d.Node) {
			return false
		}
		for _, e := range d.Embedded {
			if !doc(e, depth+1) {
				return false
			}
		}
		return true
	}
	for _, d := range f.Docs {
		if !doc(d, 0) {
			return false
		}
	}
	return true
}

// compactStrings moves the strings of the nodes copied for one file (values, anchors and
// comments; tags are yaml.v3's constants) and the documents' and files' own strings (strs)
// into one string from the slabs, each distinct one once: yaml.v3 allocates each value on
// its own, and a file's few kept ones pinned spans as its nodes did. So did that one string
// while it was allocated for each file (issue 24 phase 8: a header's file keeps some 50
// bytes of names, and those of 100,000 files held 60 MB of spans of the smallest size
// classes).
func (c *compactor) compactStrings() {
	at := c.at
	each := func(fn func(s *string)) {
		for _, n := range c.made {
			fn(&n.Value)
			fn(&n.Anchor)
			fn(&n.HeadComment)
			fn(&n.LineComment)
			fn(&n.FootComment)
		}
		for _, s := range c.strs {
			fn(s)
		}
	}
	total := 0
	each(func(s *string) {
		if _, ok := at[*s]; ok || *s == "" {
			return
		}
		if len(*s) <= maxShared {
			if _, ok := c.shared[*s]; ok {
				at[*s] = -1 // shared with an earlier file
				return
			}
		}
		at[*s] = total
		total += len(*s)
	})
	var all string
	if total > 0 {
		buf := c.bytes.take(total)
		each(func(s *string) {
			if i := at[*s]; *s != "" && i >= 0 {
				copy(buf[i:], *s)
			}
		})
		// The slab's bytes are written once, here, and never again: a string may share them.
		all = unsafe.String(unsafe.SliceData(buf), total)
	}
	if c.shared == nil {
		c.shared = map[string]string{}
	}
	each(func(s *string) {
		if *s == "" {
			return
		}
		i := at[*s]
		if i < 0 {
			*s = c.shared[*s]
			return
		}
		*s = all[i : i+len(*s)]
		if len(*s) <= maxShared && len(c.shared) < maxSharedStrings {
			c.shared[*s] = *s
		}
	})
}

// The short strings the compactor keeps are shared between files too: keys, kinds, images
// and flags recur in every kube-proxy DaemonSet and configuration of a repository. shared
// holds up to maxSharedStrings of them, of at most maxShared bytes, for the compactor's life
// (one loading goroutine).
const (
	maxShared        = 48
	maxSharedStrings = 1 << 14
)
