package checker

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"

	"go.yaml.in/yaml/v3"
)

// Workspace is everything loaded for one run, and the derived kube-proxy view.
type Workspace struct {
	// Root is the directory that file paths are relative to.
	Root string
	// Files are sorted by Path.
	Files []*File
	// Docs lists every document in file order, embedded documents right after their parent.
	Docs []*Document
	// Instances are the kube-proxies found: workloads running kube-proxy and standalone
	// configurations that no workload points at.
	Instances []*Instance
	// Target is the repository's target version: --target-version (TargetFixed), else the
	// highest version named outside self-contained trees (see UnitOf), else DefaultTarget.
	// Each file is checked at its own scope's target: see TargetOf.
	Target Target
	// TargetFixed is true when Target was given (--target-version): every
	// file is then checked at it.
	TargetFixed bool
	// TargetFallback, when set, is the target of the clusters and shared files that name no
	// version of their own (the configuration file's target-version), instead of
	// DefaultTarget.
	TargetFallback *Target
	// VersionSources lists where the repository names Kubernetes versions, in file order.
	VersionSources []VersionSource
	targets        *targetIndex
	// Clusters are the clusters of the repository (see cluster.go), sorted by name.
	Clusters []*Cluster
	clusters *clusterIndex
	// Problems are load problems: files that could not be read or decoded.
	Problems []LoadProblem
	// Nodes is the node inventory: Node objects in the repository and the nodes given with
	// --nodes (see NodesFor).
	Nodes []Node
	// Rendered are the virtual files rendered from Helm charts, sorted by Path (see
	// rendered.go); they are not in Files, their documents are in Docs.
	Rendered    []*File
	rendered    map[string]*File
	renderRoots map[string]string
}

// LoadProblem is a file that could not be loaded or decoded.
type LoadProblem struct {
	Pos     Position
	Message string
	// Manifest is true when the file looks like a Kubernetes manifest, kube-proxy or installer
	// config (so KP001 reports it); other problems are notices.
	Manifest bool
	// Document is set when the problem is in a decoded document (e.g. a type error).
	Document *Document
	// Explicit is true when a file named on the command line (or stdin) was not linted at all:
	// unreadable, not a regular file, a link out of the tree, too large, binary or not UTF-8.
	// The command exits 2 then, as for a path that does not exist.
	Explicit bool
}

// FileFormat is how a file was read.
type FileFormat int

// File formats.
const (
	FormatText FileFormat = iota
	FormatYAML
)

// File is one input file, or a virtual file holding a document embedded in a scalar.
type File struct {
	// Path is slash-separated and relative to the workspace root ("-" for stdin).
	Path string
	// Content is the file's bytes and Lines its line index. Both are nil once loaded for a
	// file whose documents are all headers (Document.Pruned; see checker/load/prune.go): no
	// rule reports in it, and the headers' positions are their root nodes'. Content is also
	// nil, its line index keeping positions only (text.LineIndex.Release), for a file whose
	// documents are all headers or metric facts: read it with Text, which reads it again.
	Content []byte
	Lines   *text.LineIndex
	// Reread, set by the loader when it released Content of a file that findings may point
	// into, reads the file again and checks that it is what was read first (Text).
	Reread func() ([]byte, error)
	// Redecode, set by the loader when a run may need whole documents (repository Rego rules:
	// load.Options.WholeOnDemand), decodes the file again from Content as it was first, every
	// tree whole (WholeDocs). The file keeps its Content then.
	Redecode func() (*File, error)
	Format   FileFormat
	Docs     []*Document
	// Templated is true when the file holds template placeholders (Helm, Jinja2, ...).
	Templated bool
	// Masked is set on the virtual file decoded from a templated file or heredoc body whose
	// placeholders were masked (text.MaskTemplate); the loader gives the masked scalars
	// their true text back, so nothing downstream sees masked text. (Beside Templated: the
	// struct stays in its size class.)
	Masked bool
	// Reason says why the loader read the file as it did ("name ends in .yaml", "content:
	// apiVersion apps.sealos.io/v1beta1"), for --verbose.
	Reason string

	// Parent and ParentOffsets are set for virtual files: ParentOffsets[i] is the byte offset
	// in Parent.Content of Content[i] (one extra entry maps the end). A nil ParentOffsets
	// maps offsets one to one: Content is a same-length rewrite of Parent.Content (a template
	// with its placeholders neutralised).
	Parent        *File
	ParentOffsets []int
	// Open lists the output placeholders alone on their lines, in the real file's lines.
	Open []text.OpenPlaceholder
	// ParentMap, when set, maps offsets to Parent.Content in runs instead of byte by byte
	// (ScalarOffsetMap); it takes precedence over ParentOffsets.
	ParentMap *text.OffsetMap

	// Render is set on a file rendered from templates (a Helm chart): it maps the rendered
	// text to where it is written. Such a file's Path is virtual.
	Render RenderMap

	// ValueVias are notes for findings at a value that is used elsewhere than where it is
	// written (the MODE=ipvs of a script whose heredoc's mode: $MODE expands it), by the
	// value's byte offset in this real file: a finding that starts there carries them.
	ValueVias map[int][]Related

	// AliasBudget is the run's budget of nodes added by alias expansion (see Document.Generic),
	// shared by the files of one load; nil means no run-wide limit. Only real files carry it.
	AliasBudget *AliasBudget

	// memo holds Memo's values: a few keys in a slice, a map past memoSliceKeys (a
	// sync.Map's trie cost about 800 bytes a file on the benchmark corpus, 15 MB in all).
	memoMu  sync.Mutex
	memoKV  []memoEntry
	memoMap map[any]any
	// absent holds, as bits of wordIDs, the strings Contains was asked of the file and found
	// nowhere in it (or asked once its text was released): a memo entry each was most of
	// what the files of headers kept, and most of the answers the loader's readers held
	// until the end of loading (issue 24).
	absent uint64

	aliasOnce   sync.Once
	aliasBudget *AliasBudget
}

// Text returns the file's bytes: Content, or for a file whose content was released once it
// was loaded, the file read again (an error when it cannot be, or changed since).
func (f *File) Text() ([]byte, error) {
	if f.Content != nil || f.Reread == nil {
		return f.Content, nil
	}
	return f.Reread()
}

// TextOnce is Text, read again at most once per file and kept: what asks for the text after
// loading (a fix's edit check, the fixer, snippets and line hashes, finding subjects) asks
// for the few files that have findings, often several times.
func (f *File) TextOnce() ([]byte, error) {
	if f.Content != nil || f.Reread == nil {
		return f.Content, nil
	}
	r := f.Memo(rereadKey{}, func() any {
		b, err := f.Reread()
		return reread{b, err}
	}).(reread)
	return r.b, r.err
}

// rereadKey memoizes TextOnce's read (File.Memo); reread is its outcome.
type (
	rereadKey struct{}
	reread    struct {
		b   []byte
		err error
	}
)

// fileAliasBudget is the per-file alias expansion budget, shared by all documents of the file.
func (f *File) fileAliasBudget() *AliasBudget {
	f.aliasOnce.Do(func() { f.aliasBudget = NewAliasBudget(MaxFileAliasNodes) })
	return f.aliasBudget
}

// Memo returns the value compute produces for key, computed once per file (a concurrent
// first call may compute it twice and keep one). The loader and the rules use it to share one
// parse of a file, such as its shell commands, instead of each parsing it again.
func (f *File) Memo(key any, compute func() any) any {
	if v, ok := f.memoLoad(key); ok {
		return v
	}
	v := compute()
	f.memoMu.Lock()
	defer f.memoMu.Unlock()
	if old, ok := f.memoLoadLocked(key); ok {
		return old // a concurrent first call stored it meanwhile
	}
	switch {
	case f.memoMap != nil:
		f.memoMap[key] = v
	case len(f.memoKV) < memoSliceKeys:
		f.memoKV = append(f.memoKV, memoEntry{key, v})
	default:
		f.memoMap = make(map[any]any, 2*memoSliceKeys)
		for _, e := range f.memoKV {
			f.memoMap[e.key] = e.val
		}
		f.memoMap[key] = v
		f.memoKV = nil
	}
	return v
}

// Forget drops the memoized values whose keys drop selects: a parse shared while the file
// was loaded that the rules read only for a few files (the loader forgets the shell lexing
// of scripts once it has found their kube-proxies; a rule that needs one lexes it again).
func (f *File) Forget(drop func(key any) bool) {
	f.memoMu.Lock()
	defer f.memoMu.Unlock()
	if f.memoMap != nil {
		for k := range f.memoMap {
			if drop(k) {
				delete(f.memoMap, k)
			}
		}
		return
	}
	f.memoKV = slices.DeleteFunc(f.memoKV, func(e memoEntry) bool { return drop(e.key) })
	switch {
	case len(f.memoKV) == 0:
		f.memoKV = nil
	case len(f.memoKV) < cap(f.memoKV):
		f.memoKV = slices.Clone(f.memoKV) // what was dropped is not held by the array
	}
}

// memoSliceKeys is how many keys File.Memo keeps in a slice before it uses a map.
const memoSliceKeys = 16

// memoEntry is one of File.Memo's values.
type memoEntry struct{ key, val any }

// Memoized returns what File.Memo holds for key, without computing it.
func (f *File) Memoized(key any) (any, bool) { return f.memoLoad(key) }

func (f *File) memoLoad(key any) (any, bool) {
	f.memoMu.Lock()
	defer f.memoMu.Unlock()
	return f.memoLoadLocked(key)
}

func (f *File) memoLoadLocked(key any) (any, bool) {
	if f.memoMap != nil {
		v, ok := f.memoMap[key]
		return v, ok
	}
	for _, e := range f.memoKV {
		if e.key == key {
			return e.val, true
		}
	}
	return nil, false
}

// templateSpansKey memoizes text.TemplateSpans of a file (File.Memo).
type templateSpansKey struct{}

// TemplateSpans returns the template placeholders of the file's text (Text: a released
// file's is read again), computed once.
func (f *File) TemplateSpans() []text.TemplateSpan {
	return f.Memo(templateSpansKey{}, func() any {
		b, _ := f.TextOnce() // a released file's text, read again (nil if it changed)
		return text.TemplateSpans(b)
	}).([]text.TemplateSpan)
}

// occurrencesKey memoizes the offsets of a string in a file's content (File.Memo).
type occurrencesKey string

// occurrences returns the offsets at which s starts in the file's content, found once per
// file and string.
func (f *File) occurrences(s string) []int {
	id, numbered := wordID(s)
	f.memoMu.Lock()
	if numbered && f.absent&(1<<id) != 0 {
		f.memoMu.Unlock()
		return nil
	}
	v, ok := f.memoLoadLocked(occurrencesKey(s))
	f.memoMu.Unlock()
	if ok {
		return v.([]int)
	}
	var out []int
	for i := 0; i <= len(f.Content); {
		j := bytes.Index(f.Content[i:], []byte(s))
		if j < 0 {
			break
		}
		out = append(out, i+j)
		i += j + 1
	}
	if len(out) == 0 && numbered {
		// Not there: a bit, not a memo entry (nine answers in ten). It stays true: the
		// text does not change, and a released file's is gone (ForgetContains).
		f.memoMu.Lock()
		f.absent |= 1 << id
		f.memoMu.Unlock()
		return nil
	}
	return f.Memo(occurrencesKey(s), func() any { return out }).([]int)
}

// wordIDs numbers the strings files are asked whether they contain (Contains), the first
// maxWordIDs of them, for File.absent; rule and loader words, a few dozen.
var (
	wordIDs   sync.Map // string -> uint
	wordMu    sync.Mutex
	wordCount uint
)

// maxWordIDs is how many strings wordIDs numbers: the bits of File.absent.
const maxWordIDs = 64

// wordID returns s's number, numbering it when there are numbers left.
func wordID(s string) (uint, bool) {
	if v, ok := wordIDs.Load(s); ok {
		return v.(uint), true
	}
	wordMu.Lock()
	defer wordMu.Unlock()
	if v, ok := wordIDs.Load(s); ok {
		return v.(uint), true
	}
	if wordCount >= maxWordIDs {
		return 0, false
	}
	id := wordCount
	wordCount++
	wordIDs.Store(strings.Clone(s), id)
	return id, true
}

// ForgetContains drops what Contains found of each string in a file whose content is held,
// so it is searched again on its next call: the loader asks every document for a few words
// that the rules do not (issue 24: about 10 MB on the benchmark corpus); what it did not
// find stays a bit (File.absent). A file whose content was released keeps its answers,
// those that found nothing as bits.
func (f *File) ForgetContains() {
	if f.Content == nil {
		return // its answers cannot be found again; what found nothing is already a bit
	}
	f.Forget(func(k any) bool { _, ok := k.(occurrencesKey); return ok })
}

// Contains reports whether the file's content holds s. The file is searched once per string,
// so that a check made for every document of a file reads the file once, not once per
// document.
func (f *File) Contains(s string) bool { return len(f.occurrences(s)) > 0 }

// File returns the real file (not an embedded document's) named path, or nil.
func (ws *Workspace) File(path string) *File {
	i := sort.Search(len(ws.Files), func(i int) bool { return ws.Files[i].Path >= path })
	for ; i < len(ws.Files) && ws.Files[i].Path == path; i++ {
		if ws.Files[i].Parent == nil {
			return ws.Files[i]
		}
	}
	// Workspaces built by hand may not be sorted.
	for _, f := range ws.Files {
		if f.Path == path && f.Parent == nil {
			return f
		}
	}
	return nil
}

// EmbedDepth is the number of files f is embedded in: 0 for a real file.
func (f *File) EmbedDepth() int {
	n := 0
	for ; f.Parent != nil; f = f.Parent {
		n++
	}
	return n
}

// Outer returns the real file holding f.
func (f *File) Outer() *File {
	for f.Parent != nil {
		f = f.Parent
	}
	return f
}

// OuterOffset maps a byte offset of f to a byte offset in the real file.
func (f *File) OuterOffset(off int) int {
	for f.Parent != nil {
		off = f.ParentOffset(off)
		f = f.Parent
	}
	return off
}

// ParentOffset maps a byte offset of the virtual file f to one in f.Parent (one step of
// OuterOffset); for a real file it is off.
func (f *File) ParentOffset(off int) int {
	switch {
	case f.Parent == nil:
		return off
	case off < 0:
		off = 0
	}
	switch {
	case f.ParentMap != nil:
		return f.ParentMap.Map(off)
	case f.ParentOffsets == nil:
		return min(off, len(f.Parent.Content))
	case off >= len(f.ParentOffsets):
		return f.ParentOffsets[len(f.ParentOffsets)-1]
	}
	return f.ParentOffsets[off]
}

// PositionAt returns the position in the real file of byte offset off of f.
func (f *File) PositionAt(off int) Position {
	o := f.Outer()
	return o.Lines.Position(o.Path, f.OuterOffset(off))
}

// Document is one YAML document of a file (or embedded in a scalar of another document).
type Document struct {
	File *File
	// Index is the 0-based document index in its file.
	Index int
	// Node is the document's content node, usually a mapping.
	Node       *yaml.Node
	APIVersion string
	Kind       string
	Name       string
	Namespace  string
	// Object is the typed object for known kinds (pointer to a k8s.io type), else nil.
	Object any
	// Issues are unknown, duplicate or mistyped fields found while decoding Object.
	Issues []FieldIssue
	// Parent is the document holding this one when it is embedded; ParentPath is the field
	// path of the scalar that holds it.
	Parent     *Document
	ParentPath Path
	// Embedded lists the documents decoded from this document's scalars.
	Embedded []*Document

	// Open is set when an output placeholder alone on its line lies in the document (a
	// whole-body placeholder such as `{{ toYaml .Values.config | nindent 4 }}`): a setting
	// the document does not show may still be set, so it is unknown, not unset.
	Open bool

	// Pruned is set when the loader kept only the document's header (an application workload
	// or RBAC object in a file that names nothing any rule reads; see checker/load/prune.go):
	// Node is its root node without content, where it was; APIVersion, Kind, Name and
	// Namespace are set; Object is nil.
	Pruned bool
	// Reduced is set when the loader kept of the document's tree only the facts the Go rules
	// read (a workload's containers, a Service's ports, metric queries: checker/load/facts.go).
	// WholeDocs gives a pruned or reduced document back whole when its file can be decoded
	// again (File.Redecode).
	Reduced bool
	// Facts is set on a header (Pruned) whose tree the loader dropped once it had taken
	// facts of it: the run's rules' (checker.Rule.DocFacts, Rule.Facts) or a Service's
	// (Service). The rules report in it from those, at the positions they hold.
	Facts bool

	// Metrics, when set, are the document's metric facts, extracted from its whole tree by
	// the loader, which then dropped the nodes on their paths (checker/load/facts.go):
	// FindRuleGroups and DashboardQueries return them.
	Metrics *MetricFacts

	// Service, when set, are the node-port facts of a Service, extracted by the loader, which
	// then kept of its tree the header and metadata only (checker/load/facts.go):
	// Workspace.NodePorts and ServicePorts return them.
	Service *ServiceFacts

	// generic caches Generic() once it is asked for; see generic.go.
	generic atomic.Pointer[genericCache]
}

// IssueKind classifies a FieldIssue.
type IssueKind int

// Field issue kinds.
const (
	IssueUnknown IssueKind = iota
	IssueDuplicate
	// IssueInvalid is a value its type rejects (a duration like "30x", a bad quantity).
	IssueInvalid
)

// FieldIssue is a field that strict decoding rejects.
type FieldIssue struct {
	Kind IssueKind
	// Path is the path of the offending key.
	Path Path
	// Key is the offending key node; Parent, for unknown and duplicate keys, the mapping that
	// holds it (so that a rule need not look the path up again for every key).
	Key    *yaml.Node
	Parent *yaml.Node
	// Known lists the field names valid at that place, for suggestions.
	Known []string
	// Message explains an IssueInvalid; Value is the offending value node.
	Message string
	Value   *yaml.Node
}

// Contains reports whether the text of d holds s: the text from its root node to the next
// document's, in its file's content (masked text for a templated file, as File.Content). A
// pre-check of every document of a file with it costs one search of the file in all.
func (d *Document) Contains(s string) bool {
	occ := d.File.occurrences(s)
	if len(occ) == 0 {
		return false
	}
	start, end, ok := d.span()
	if !ok {
		return true // not a document of its file's stream: the file's answer
	}
	k := sort.SearchInts(occ, start)
	return k < len(occ) && occ[k] < end
}

// ContainsOnce answers Contains for a question asked once per document (the loader's alias
// check) without keeping the file's offsets of s, which Contains keeps for the questions
// every document of a file is asked: an occurrence that starts in d's text counts.
func (d *Document) ContainsOnce(s string) bool {
	b := d.File.Content
	start, end, ok := d.span()
	if !ok {
		return bytes.Contains(b, []byte(s))
	}
	return bytes.Contains(b[start:min(end+len(s)-1, len(b))], []byte(s))
}

// span returns the byte range of d's text in d.File.Content: from its root node to the next
// document's root node, or the end of the file.
func (d *Document) span() (start, end int, ok bool) {
	f := d.File
	docs := f.Docs
	i := sort.Search(len(docs), func(i int) bool { return docs[i].Index >= d.Index })
	if d.Node == nil || f.Lines == nil || i >= len(docs) || docs[i] != d {
		return 0, 0, false
	}
	start, end = f.Lines.Offset(d.Node.Line, d.Node.Column), len(f.Content)
	if i+1 < len(docs) {
		next := docs[i+1]
		if next.Node == nil {
			return 0, 0, false
		}
		end = f.Lines.Offset(next.Node.Line, next.Node.Column)
	}
	return start, end, start <= end
}

// Ref returns the document's object reference.
func (d *Document) Ref() *ObjectRef {
	if d == nil {
		// Flags and settings of text files (scripts, INI, Terraform) have no document.
		return nil
	}
	r := &ObjectRef{APIVersion: d.APIVersion, Kind: d.Kind, Namespace: d.Namespace, Name: d.Name, Document: d.Index}
	if d.Parent != nil {
		p := d.Parent
		r.Document = p.Index
		r.Embedded = d.ParentPath.String()
		if r.Namespace == "" && r.Name == "" {
			r.Namespace, r.Name = p.Namespace, p.Name
		}
	}
	return r
}

// Outer returns the top-level document holding d.
func (d *Document) Outer() *Document {
	for d.Parent != nil {
		d = d.Parent
	}
	return d
}

// Lookup finds the key and value nodes at path. Missing elements return nils; for sequence
// elements the key is nil.
func (d *Document) Lookup(p Path) (key, value *yaml.Node) {
	return LookupNode(d.Node, p)
}

// LookupNode finds the key and value nodes at path below n.
func LookupNode(n *yaml.Node, p Path) (key, value *yaml.Node) {
	value = n
	for _, e := range p {
		for value != nil && value.Kind == yaml.AliasNode {
			value = value.Alias
		}
		if value == nil {
			return nil, nil
		}
		switch value.Kind {
		case yaml.MappingNode:
			var found bool
			for i := 0; i+1 < len(value.Content); i += 2 {
				if value.Content[i].Value == e {
					key, value, found = value.Content[i], value.Content[i+1], true
					// The last duplicate wins, as in kube-proxy's lenient decoding.
				}
			}
			if !found {
				return nil, nil
			}
		case yaml.SequenceNode:
			i, err := strconv.Atoi(e)
			if err != nil || i < 0 || i >= len(value.Content) {
				return nil, nil
			}
			key, value = nil, value.Content[i]
		default:
			return nil, nil
		}
	}
	return key, value
}

// Has reports whether path exists.
func (d *Document) Has(p Path) bool {
	_, v := d.Lookup(p)
	return v != nil
}

// Str returns the scalar value at path, or "".
func (d *Document) Str(p Path) string {
	_, v := d.Lookup(p)
	if v == nil || v.Kind != yaml.ScalarNode {
		return ""
	}
	return v.Value
}

// NodePos returns the position of n's first character in the real file.
func (d *Document) NodePos(n *yaml.Node) Position {
	f := d.File
	if f.Lines == nil {
		return releasedPos(f, n)
	}
	return f.PositionAt(f.Lines.Offset(n.Line, n.Column))
}

// releasedPos is where node n of f starts when f let its text and line index go once loaded
// (a file of headers, or a template's masked copy, which keeps every line and column where
// they are in the template: checker/load, releaseContent): by the real file's line index
// when it kept one, else by line and column alone.
func releasedPos(f *File, n *yaml.Node) Position {
	o := f.Outer()
	if o.Lines != nil {
		return o.Lines.Position(o.Path, o.Lines.Offset(n.Line, n.Column))
	}
	return Position{Filename: o.Path, Line: n.Line, Column: n.Column}
}

// NodeEnd returns the position just after n's text on its first line: the whole scalar for
// one-line scalars, the rest of the line otherwise.
func (d *Document) NodeEnd(n *yaml.Node) Position {
	f := d.File
	if f.Lines == nil {
		return releasedPos(f, n)
	}
	start := f.Lines.Offset(n.Line, n.Column)
	lineEnd := max(start, f.Lines.LineEnd(n.Line))
	end := lineEnd
	if start >= len(f.Content) {
		return f.PositionAt(start)
	}
	if n.Kind == yaml.ScalarNode {
		switch n.Style {
		case 0, yaml.TaggedStyle:
			if !strings.Contains(n.Value, "\n") && start+len(n.Value) <= lineEnd &&
				string(f.Content[start:start+len(n.Value)]) == n.Value {
				end = start + len(n.Value)
			}
		case yaml.DoubleQuotedStyle, yaml.SingleQuotedStyle:
			q := f.Content[start]
			for i := start + 1; i < lineEnd; i++ {
				if f.Content[i] == '\\' && q == '"' {
					i++
					continue
				}
				if f.Content[i] == q {
					if q == '\'' && i+1 < lineEnd && f.Content[i+1] == '\'' {
						i++
						continue
					}
					end = i + 1
					break
				}
			}
		}
	}
	return f.PositionAt(end)
}

// KeyPos returns the position of the key at path (of the value for sequence elements), and
// whether the path exists.
func (d *Document) KeyPos(p Path) (Position, Position, bool) {
	k, v := d.Lookup(p)
	switch {
	case k != nil && (len(p) == 0 || !isIndex(p[len(p)-1])):
		return d.NodePos(k), d.NodeEnd(k), true
	case v != nil:
		return d.NodePos(v), d.NodeEnd(v), true
	}
	return Position{}, Position{}, false
}

// ValuePos returns the position of the value at path, and whether it exists.
func (d *Document) ValuePos(p Path) (Position, Position, bool) {
	_, v := d.Lookup(p)
	if v == nil {
		return Position{}, Position{}, false
	}
	return d.NodePos(v), d.NodeEnd(v), true
}

// AbsentPos returns where to report a field that is absent: the key of the deepest enclosing
// field that exists, or the document's kind line for top-level fields.
func (d *Document) AbsentPos(p Path) (Position, Position) {
	for i := len(p) - 1; i >= 1; i-- {
		if pos, end, ok := d.KeyPos(p[:i]); ok {
			return pos, end
		}
	}
	return d.KindPos()
}

// KindPos returns the position of the document's kind key, or its first node.
func (d *Document) KindPos() (Position, Position) {
	if pos, end, ok := d.KeyPos(Path{"kind"}); ok {
		return pos, end
	}
	if d.Node != nil {
		return d.NodePos(d.Node), d.NodeEnd(d.Node)
	}
	p := d.File.PositionAt(0)
	return p, p
}

// SubPos returns the position of byte range [from, to) of the value of scalar node n.
// It maps through the scalar's source text, so it is exact for plain, quoted and block scalars.
func (d *Document) SubPos(n *yaml.Node, from, to int) (Position, Position) {
	m := d.File.ScalarMap(n)
	if m == nil {
		return d.NodePos(n), d.NodeEnd(n)
	}
	// Map clamps as the table of ScalarOffsets would: below 0 to the first byte, past the
	// value to its end.
	return d.File.PositionAt(m.Map(from)), d.File.PositionAt(m.Map(to))
}

func isIndex(s string) bool {
	_, err := strconv.Atoi(s)
	return err == nil
}

// blockIndent returns the content indentation of a block scalar whose content starts at
// offset i: the indentation indicator when given, else that of the first non-empty line.
func blockIndent(src []byte, i int, lines *text.LineIndex, n *yaml.Node) int {
	// Indentation indicator: a digit in the header.
	header := lines.LineText(n.Line)
	if c := n.Column - 1; c >= 0 {
		rs := []rune(header)
		if c < len(rs) {
			for _, r := range rs[c:] {
				if r >= '1' && r <= '9' {
					// Indicator is relative to the parent's indentation: find the key's indent.
					parent := 0
					for _, r2 := range rs {
						if r2 != ' ' {
							break
						}
						parent++
					}
					if strings.HasPrefix(strings.TrimLeft(header, " "), "- ") {
						parent += 2
					}
					return parent + int(r-'0')
				}
				if r == '#' {
					break
				}
			}
		}
	}
	for i < len(src) {
		k := 0
		for i+k < len(src) && src[i+k] == ' ' {
			k++
		}
		if i+k < len(src) && src[i+k] != '\n' && src[i+k] != '\r' {
			return k
		}
		for i < len(src) && src[i] != '\n' {
			i++
		}
		i++
	}
	return 0
}

// ReleaseTrees lets go what only the rules read, once they have run and nothing will read it
// again: a lint run's outputs read the findings, the files' text (File.TextOnce), the
// workspace's targets, problems and clusters, and how many instances there are. The
// documents keep their header fields (kind, names) and lose their trees, typed objects,
// field issues and facts; the files lose their memoized answers (lexings, offset maps); the
// instances' flags lose the nodes they point into. Documents are found wherever the
// workspace holds them (its files, embedded documents and their files, instances,
// installers, a render map's values files), since one node left reachable keeps the whole
// block the loader's compaction copied it into. The fixer, the readiness report and another
// run of the rules need all of it: call it after them.
func (ws *Workspace) ReleaseTrees() {
	all := func(any) bool { return true }
	seen := map[*Document]bool{}
	var doc func(d *Document)
	doc = func(d *Document) {
		if d == nil || seen[d] {
			return
		}
		seen[d] = true
		d.Node, d.Object, d.Issues, d.Metrics, d.Service = nil, nil, nil, nil, nil
		d.generic.Store(nil)
		if d.File != nil {
			// An embedded document's file (a config.conf block) is not among ws.Files, and
			// its memo holds facts with nodes (rule groups).
			d.File.Forget(all)
		}
		doc(d.Parent)
		for _, e := range d.Embedded {
			doc(e)
		}
	}
	for _, files := range [][]*File{ws.Files, ws.Rendered} {
		for _, f := range files {
			for _, d := range f.Docs {
				doc(d)
			}
			f.Forget(all)
			if h, ok := f.Render.(interface{ Documents() []*Document }); ok {
				for _, d := range h.Documents() {
					doc(d)
				}
			}
		}
	}
	for _, d := range ws.Docs {
		doc(d)
	}
	for _, p := range ws.Problems {
		doc(p.Document)
	}
	for _, in := range ws.Instances {
		doc(in.Workload)
		doc(in.Config)
		for i := range in.Flags {
			doc(in.Flags[i].Doc)
			in.Flags[i].Node, in.Flags[i].ValueNode = nil, nil
		}
		if is := in.Installer; is != nil {
			doc(is.Doc)
			for _, st := range []*InstallerSetting{is.Mode, is.Disabled} {
				if st != nil {
					doc(st.Doc)
				}
			}
		}
	}
}
