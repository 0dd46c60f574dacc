package load

import (
	"slices"

	"unsafe"

	"context"
	"fmt"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// compactSrc has what compaction must carry over: anchors, aliases and a merge key, a
// comment, an embedded configuration, field issues, a reduced Service, a pruned header and
// metric facts with their memoized offset maps.
const compactSrc = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-proxy
  namespace: kube-system
  labels: &labels
    k8s-app: kube-proxy # the label
spec:
  selector:
    matchLabels: *labels
  template:
    metadata:
      labels:
        <<: *labels
        tier: node
    spec:
      hostNetwork: true
      replicaz: 2
      containers:
      - name: kube-proxy
        image: registry.k8s.io/kube-proxy:v1.33.1
        command: ["kube-proxy", "--config=/var/lib/kube-proxy/config.conf"]
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: ipvs
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  selector:
    app: web
  ports:
  - name: http
    port: 80
    nodePort: 30080
  - name: metrics
    port: 9100
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  template:
    spec:
      containers:
      - name: web
        image: nginx
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: proxy
spec:
  groups:
  - name: kube-proxy
    rules:
    - alert: SyncSlow
      expr: |
        histogram_quantile(0.99,
          rate(kubeproxy_sync_proxy_rules_duration_seconds_bucket[5m])) > 1
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  template:
    spec:
      hostNetwork: true
      containers:
      - name: agent
        image: example.com/agent:1
        args: ["--upstream=127.0.0.1:30080"]
        resources: {limits: {cpu: 100m}}
`

// dumpTree writes n's tree: every field of every node, and a node reached again (an alias's
// target, a shared node) as a reference to where it was first written.
func dumpTree(b *strings.Builder, n *yaml.Node, ids map[*yaml.Node]int) {
	if n == nil {
		b.WriteString("nil;")
		return
	}
	if id, ok := ids[n]; ok {
		fmt.Fprintf(b, "@%d;", id)
		return
	}
	ids[n] = len(ids)
	fmt.Fprintf(b, "{%d %d %q %q %q %q %q %q %d:%d [", n.Kind, n.Style, n.Tag, n.Value, n.Anchor, n.HeadComment, n.LineComment, n.FootComment, n.Line, n.Column)
	for _, k := range n.Content {
		dumpTree(b, k, ids)
	}
	b.WriteString("] alias ")
	dumpTree(b, n.Alias, ids)
	b.WriteString("}")
}

// dumpFile writes every document of f, embedded ones included, and the nodes each holds
// outside its tree (as references when they are in it).
func dumpFile(f *checker.File) string {
	var b strings.Builder
	var doc func(d *checker.Document)
	doc = func(d *checker.Document) {
		ids := map[*yaml.Node]int{}
		fmt.Fprintf(&b, "doc %s %s %s %s pruned=%v reduced=%v\n", d.APIVersion, d.Kind, d.Namespace, d.Name, d.Pruned, d.Reduced)
		dumpTree(&b, d.Node, ids)
		for _, is := range d.Issues {
			b.WriteString("\nissue ")
			dumpTree(&b, is.Key, ids)
			dumpTree(&b, is.Parent, ids)
			dumpTree(&b, is.Value, ids)
		}
		if m := d.Metrics; m != nil {
			for _, g := range m.Groups {
				for _, r := range g.Rules {
					b.WriteString("\nrule ")
					dumpTree(&b, r.Expr.Node, ids)
				}
			}
			for _, q := range m.Queries {
				b.WriteString("\nquery ")
				dumpTree(&b, q.Node, ids)
			}
		}
		b.WriteString("\n")
		for _, e := range d.Embedded {
			doc(e)
		}
	}
	for _, d := range f.Docs {
		doc(d)
	}
	return b.String()
}

// reachable adds every node f's documents hold to set.
func reachable(f *checker.File, set map[*yaml.Node]bool) {
	var walk func(n *yaml.Node)
	walk = func(n *yaml.Node) {
		if n == nil || set[n] {
			return
		}
		set[n] = true
		for _, k := range n.Content {
			walk(k)
		}
		walk(n.Alias)
	}
	var doc func(d *checker.Document)
	doc = func(d *checker.Document) {
		walk(d.Node)
		for _, is := range d.Issues {
			walk(is.Key)
			walk(is.Parent)
			walk(is.Value)
		}
		if m := d.Metrics; m != nil {
			for _, g := range m.Groups {
				for _, r := range g.Rules {
					walk(r.Expr.Node)
				}
			}
			for _, q := range m.Queries {
				walk(q.Node)
			}
		}
		for _, e := range d.Embedded {
			doc(e)
		}
	}
	for _, d := range f.Docs {
		doc(d)
	}
}

// TestCompactFile: once a file is settled, what its documents keep lives in the compactor's
// slabs: no node of the decoded trees is held any more, yet the trees, aliases, shared nodes,
// field issues and metric facts are what they were (node for node, and as references into
// the trees where they were), a memoized offset map answers for the copied node, and the
// text and its line index are equal copies.
func TestCompactFile(t *testing.T) {
	in := input{name: "kube-proxy.yaml", content: []byte(compactSrc)}
	f, probs := readAndParse(context.Background(), in, DefaultMaxFileSize)
	if f == nil {
		t.Fatalf("not loaded: %v", probs)
	}
	prune(f)
	settle(f, probs, in, Options{}, nil)

	var issues, reduced, pruned, embedded int
	var query *yaml.Node
	for _, d := range f.Docs {
		issues += len(d.Issues)
		embedded += len(d.Embedded)
		if d.Reduced {
			reduced++
		}
		if d.Pruned {
			pruned++
		}
		if d.Metrics != nil && len(d.Metrics.Groups) > 0 {
			query = d.Metrics.Groups[0].Rules[0].Expr.Node
		}
	}
	if issues == 0 || reduced == 0 || pruned == 0 || embedded == 0 || query == nil {
		t.Fatalf("the source no longer has what the test needs: issues %d, reduced %d, pruned %d, embedded %d, query %v", issues, reduced, pruned, embedded, query != nil)
	}
	offsets := f.ScalarMap(query)
	before := dumpFile(f)
	old := map[*yaml.Node]bool{}
	reachable(f, old)
	oldContent := f.Content
	oldLines := f.Lines
	embeddedFile := f.Docs[0].File
	for _, d := range f.Docs {
		if len(d.Embedded) > 0 {
			embeddedFile = d.Embedded[0].File
		}
	}
	oldEmbeddedLines := embeddedFile.Lines
	var oldPos []checker.Position
	for off := range len(f.Content) {
		oldPos = append(oldPos, f.PositionAt(off))
	}

	var c compactor
	c.compactFile(f)

	if after := dumpFile(f); after != before {
		t.Errorf("the documents changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
	now := map[*yaml.Node]bool{}
	reachable(f, now)
	for n := range now {
		if old[n] {
			t.Errorf("node %d:%d %q is still the decoded one", n.Line, n.Column, n.Value)
		}
	}
	q := f.Docs[4].Metrics.Groups[0].Rules[0].Expr.Node // the PrometheusRule
	if got := f.ScalarMap(q); got != offsets {
		t.Errorf("the offset map of the query was not kept for its copy: %p, want %p", got, offsets)
	}
	if string(f.Content) != string(oldContent) || &f.Content[0] == &oldContent[0] {
		t.Errorf("the text is not an equal copy")
	}
	for off := range len(f.Content) {
		if got := f.PositionAt(off); got != oldPos[off] {
			t.Fatalf("offset %d: position %v, want %v", off, got, oldPos[off])
		}
	}
	if got, want := f.Lines.LineText(7), "    k8s-app: kube-proxy # the label"; got != want {
		t.Errorf("line 7 reads %q after the move", got)
	}
	// The line indexes themselves (yaml.Node's size class) are moved too, an embedded
	// document's file's as well.
	if f.Lines == oldLines || embeddedFile == f || embeddedFile.Lines == oldEmbeddedLines {
		t.Errorf("a line index was not moved: file %v, embedded %v (a file of its own: %v)", f.Lines == oldLines, embeddedFile.Lines == oldEmbeddedLines, embeddedFile != f)
	}
	// The strings a file keeps (its nodes', its documents' names, its own path and reason)
	// are in the byte slab, and its lists of documents in the document slab: allocated on
	// their own, each file's pinned a span of the smallest size classes (issue 24 phase 8).
	inBlock := func(p unsafe.Pointer, block []byte) bool {
		b := uintptr(unsafe.Pointer(unsafe.SliceData(block)))
		return uintptr(p) >= b && uintptr(p) < b+uintptr(cap(block))
	}
	for what, s := range map[string]string{"path": f.Path, "reason": f.Reason, "kind": f.Docs[0].Kind, "name": f.Docs[0].Name,
		"value": f.Docs[0].Node.Content[1].Value, "embedded kind": embeddedFile.Docs[0].Kind} {
		if s == "" || !inBlock(unsafe.Pointer(unsafe.StringData(s)), c.bytes.block) {
			t.Errorf("the %s %q is not in the byte slab", what, s)
		}
	}
	docs := c.docs.block[:cap(c.docs.block)]
	holder := f.Docs[slices.IndexFunc(f.Docs, func(d *checker.Document) bool { return len(d.Embedded) > 0 })]
	for what, l := range map[string][]*checker.Document{"file": f.Docs, "embedded": holder.Embedded} {
		b, e := uintptr(unsafe.Pointer(unsafe.SliceData(docs))), uintptr(unsafe.Pointer(unsafe.SliceData(docs)))+uintptr(cap(docs))*unsafe.Sizeof(docs[0])
		if p := uintptr(unsafe.Pointer(unsafe.SliceData(l))); len(l) == 0 || p < b || p >= e {
			t.Errorf("the %s's list of documents is not in the document slab", what)
		}
	}
}

// Files that share a line index (a matrix layer and its file) share its copy.
func TestCompactSharedLineIndex(t *testing.T) {
	in := input{name: "kube-proxy.yaml", content: []byte(compactSrc)}
	f, _ := readAndParse(context.Background(), in, DefaultMaxFileSize)
	prune(f)
	layer := &checker.File{Path: f.Path, Content: f.Content, Lines: f.Lines, Parent: f, Format: checker.FormatText}
	f.Docs = append(f.Docs, &checker.Document{File: layer, Index: len(f.Docs)})
	old := f.Lines
	var c compactor
	c.compactFile(f)
	if f.Lines == old || layer.Lines != f.Lines {
		t.Errorf("moved %v, shared %v", f.Lines != old, layer.Lines == f.Lines)
	}
}

// TestCompactKeepsRedecodeText: a file that can be decoded again (repository policies) keeps
// the text its recipe holds instead of a copy, so that the text is not held twice.
func TestCompactKeepsRedecodeText(t *testing.T) {
	in := input{name: "kube-proxy.yaml", content: []byte(compactSrc)}
	f, probs := readAndParse(context.Background(), in, DefaultMaxFileSize)
	prune(f)
	content := f.Content
	settle(f, probs, in, Options{WholeOnDemand: true}, &compactor{})
	if f.Redecode == nil {
		t.Fatal("no recipe to decode the file again")
	}
	if &f.Content[0] != &content[0] {
		t.Error("the text of a file that can be decoded again was copied")
	}
	g, err := f.Redecode()
	if err != nil || len(g.Docs) != len(f.Docs) {
		t.Fatalf("decoded again: %v, %d documents", err, len(g.Docs))
	}
}

// TestLineIndexMove: a moved line index answers as before, with the new text and starts.
func TestLineIndexMove(t *testing.T) {
	src := []byte("a: 1\r\nb: é\nc: 3")
	x := text.NewLineIndex(src)
	cp := append([]byte(nil), src...)
	var got []uint32
	x.Move(cp, func(n int) []uint32 { got = make([]uint32, n); return got })
	if len(got) != 3 {
		t.Fatalf("starts moved: %d, want 3", len(got))
	}
	if x.LineText(2) != "b: é" || x.Position("f", 11).Column != 5 || x.Offset(3, 1) != 12 {
		t.Errorf("after the move: line 2 %q, column %d, offset %d", x.LineText(2), x.Position("f", 11).Column, x.Offset(3, 1))
	}
	cp[0] = 'z'
	if x.LineText(1)[0] != 'z' {
		t.Error("the index does not read the new text")
	}
	x.Move([]byte("short"), nil)
	if x.LineText(1)[0] != 'z' {
		t.Error("text of another length was taken")
	}
}

// TestLineIndexPack: an index packed into two-byte line starts answers every offset and line
// as a fresh one does, released or not; one whose lines start past 64 KiB is not packed.
func TestLineIndexPack(t *testing.T) {
	src := []byte("a: 1\r\nb: é\n\rc: 3\u2028d\n" + strings.Repeat("x", 300) + "\nlast")
	same := func(x *text.LineIndex, what string) {
		t.Helper()
		ref := text.NewLineIndex(src)
		if x.Lines() != ref.Lines() {
			t.Fatalf("%s: %d lines, want %d", what, x.Lines(), ref.Lines())
		}
		for off := 0; off <= len(src); off++ {
			if x.Position("f", off) != ref.Position("f", off) || x.Line(off) != ref.Line(off) {
				t.Fatalf("%s: offset %d at %v, want %v", what, off, x.Position("f", off), ref.Position("f", off))
			}
		}
		for l := 1; l <= ref.Lines(); l++ {
			if x.LineStart(l) != ref.LineStart(l) || x.LineEnd(l) != ref.LineEnd(l) || x.Offset(l, 2) != ref.Offset(l, 2) {
				t.Fatalf("%s: line %d differs", what, l)
			}
		}
	}
	x := text.NewLineIndex(src)
	var got []uint16
	if !x.Pack(append([]byte(nil), src...), func(n int) []uint16 { got = make([]uint16, n); return got }) || len(got) != text.NewLineIndex(src).Lines() {
		t.Fatalf("not packed (%d starts)", len(got))
	}
	same(x, "packed")
	if x.LineText(2) != "b: é" {
		t.Errorf("line 2 %q", x.LineText(2))
	}
	ascii := []byte(strings.Repeat("k: v\r\n", 100))
	y := text.NewLineIndex(ascii)
	y.Pack(ascii, func(n int) []uint16 { return make([]uint16, n) })
	if !y.Release() || y.Position("f", 7) != text.NewLineIndex(ascii).Position("f", 7) {
		t.Error("a packed index, released, places offsets elsewhere")
	}
	long := []byte(strings.Repeat("y", 70000) + "\nz\n")
	z := text.NewLineIndex(long)
	if z.Pack(long, func(n int) []uint16 { t.Fatal("packed a text whose lines start past 64 KiB"); return nil }) {
		t.Error("Pack reported a text whose lines start past 64 KiB packed")
	}
	if z.LineStart(2) != 70001 {
		t.Errorf("line 2 starts at %d", z.LineStart(2))
	}
}

// FuzzCompact: whatever a file holds, compaction changes nothing a reader sees (trees node for
// node with their aliases and shared nodes, issues, facts, text and positions) and leaves
// none of the decoded nodes held.
func FuzzCompact(f *testing.F) {
	f.Add(compactSrc)
	f.Add("a: &x [1, *x]\nb: *x\n")
	f.Add("kind: ConfigMap\napiVersion: v1\ndata:\n  s: |\n    kind: ConfigMap\n    apiVersion: v1\n    data: {x: \"kube-proxy\"}\n")
	f.Add("apiVersion: v1\nkind: Service\nspec:\n  ports: [{nodePort: 30001, port: 80}, {port: '{{ .Values.p }}'}]\n")
	f.Add("# c\n---\n- [a, {b: c}]\n...\n---\n\"x\": !!str 1 # d\n")
	f.Add("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: a}\nspec:\n  template:\n    spec:\n      hostNetwork: true\n      containers: [{name: a, args: [--s=127.0.0.1:30080]}]\n")
	// A rule with facts of every workload (checker.Rule.DocFacts), as the CLI's KP302.
	facts := &checker.Rule{ID: "FACTS", DocFacts: func(d *checker.Document) any { return d.Kind }}
	f.Fuzz(func(t *testing.T, src string) {
		in := input{name: "f.yaml", content: []byte(src)}
		fl, probs := readAndParse(context.Background(), in, 1<<16)
		if fl == nil {
			return
		}
		pruneWith(fl, newRuleFacts([]*checker.Rule{facts}))
		settle(fl, probs, in, Options{}, nil)
		for _, d := range fl.Docs {
			if d.Facts && d.Service == nil && d.Metrics == nil && facts.Facts(d) != d.Kind {
				t.Fatalf("%s: the facts kept are %v", d.Kind, facts.Facts(d))
			}
		}
		before := dumpFile(fl)
		old := map[*yaml.Node]bool{}
		reachable(fl, old)
		var c compactor
		small := c.small(fl)
		c.compactFile(fl)
		if after := dumpFile(fl); after != before {
			t.Fatalf("the documents changed:\nbefore:\n%s\nafter:\n%s", before, after)
		}
		now := map[*yaml.Node]bool{}
		reachable(fl, now)
		for n := range now {
			if old[n] && small {
				t.Fatalf("node %d:%d is still the decoded one", n.Line, n.Column)
			}
		}
		if fl.Content != nil && string(fl.Content) != src && !strings.HasPrefix(src, string(fl.Content)) {
			t.Fatal("the text changed")
		}
	})
}

// TestCompactLargeTree: a file that keeps more nodes than compactNodes is left as decoded.
func TestCompactLargeTree(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: kube-proxy}\nspec:\n  x: [")
	for i := range compactNodes {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("1")
	}
	b.WriteString("]\n")
	in := input{name: "big.yaml", content: []byte(b.String())}
	f, probs := readAndParse(context.Background(), in, DefaultMaxFileSize)
	prune(f)
	settle(f, probs, in, Options{}, nil)
	root := f.Docs[0].Node
	var c compactor
	c.compactFile(f)
	if f.Docs[0].Node != root {
		t.Error("a tree of more than compactNodes nodes was copied")
	}
}

// FuzzOneLineSpan: a scalar that oneLineSpan maps without an offset map is mapped as its
// alignment maps it, and one whose bytes sameBytes finds unchanged has no masked byte.
func FuzzOneLineSpan(f *testing.F) {
	f.Add("a: {{ .Values.x }}\nb: node_cpu_seconds_total\n")
	f.Add(`{"expr": "rate(x_y[5m])", "legend": "{{instance}}_{{job}}", "k": "a\"b_c"}` + "\n")
	f.Add("x: \"{{ .A }}_b\"\ny: |\n  {{ .B }}\n  c_d\nz: p_{{ .C }}\n")
	f.Add("- \"a_b\n  c_d\"\n- e_f  # g_h\n{{- if .X }}\n- i_j\n{{- end }}\n")
	f.Fuzz(func(t *testing.T, src string) {
		m := text.MaskTemplate([]byte(src))
		if m == nil {
			return
		}
		v := &checker.File{Path: "t.yaml", Content: m.Content, Lines: text.NewLineIndex(m.Content), Format: checker.FormatYAML,
			Templated: true, Parent: &checker.File{Path: "t.yaml", Content: []byte(src)}, ParentMap: m.Map, Masked: true}
		v.Parent.Lines = text.NewLineIndex(v.Parent.Content)
		docs, _ := decodeStream(v)
		var walk func(n *yaml.Node, depth int)
		walk = func(n *yaml.Node, depth int) {
			if n == nil || depth > 100 {
				return
			}
			if start, ok := oneLineSpan(v, n); ok && n.Kind == yaml.ScalarNode {
				offs := checker.ScalarOffsetMap(v, n)
				same := sameBytes(v, v.Parent.Content, start, len(n.Value))
				for j := 0; j < len(n.Value); j++ {
					k := offs.Map(j)
					if k != start+j {
						t.Fatalf("scalar %q at %d:%d: byte %d at %d, its alignment says %d", n.Value, n.Line, n.Column, j, start+j, k)
					}
					if o := v.ParentOffset(k); same && o < len(src) && v.Content[k] != src[o] {
						t.Fatalf("scalar %q at %d:%d: byte %d is masked", n.Value, n.Line, n.Column, j)
					}
				}
			}
			for _, c := range n.Content {
				walk(c, depth+1)
			}
		}
		for _, d := range docs {
			walk(d.Node, 0)
		}
	})
}

// TestCompactHeaders: the headers a compactor places share one root node per place (kind,
// style, tag, line and column), which says where each document starts as its own did.
func TestCompactHeaders(t *testing.T) {
	const app = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  replicas: 1\n"
	var c compactor
	var docs []*checker.Document
	for _, src := range []string{fmt.Sprintf(app, "a"), fmt.Sprintf(app, "b") + "---\n" + fmt.Sprintf(app, "c")} {
		in := input{name: "app.yaml", content: []byte(src)}
		f, probs := readAndParse(context.Background(), in, DefaultMaxFileSize)
		if f == nil || len(probs) > 0 {
			t.Fatalf("not loaded: %v", probs)
		}
		prune(f)
		before := f.Docs[len(f.Docs)-1].Node
		c.compactFile(f)
		if f.Docs[len(f.Docs)-1].Node == before {
			t.Error("a header kept the node pruning made")
		}
		docs = append(docs, f.Docs...)
	}
	if len(docs) != 3 {
		t.Fatalf("%d documents", len(docs))
	}
	for _, d := range docs {
		if !d.Pruned || len(d.Node.Content) != 0 || d.Node.Kind != yaml.MappingNode || d.Node.Column != 1 {
			t.Errorf("%s: not a header at column 1: %+v", d.Name, d.Node)
		}
	}
	if docs[0].Node != docs[1].Node || docs[0].Node.Line != 1 {
		t.Error("the headers at 1:1 of two files do not share one node")
	}
	if docs[2].Node == docs[1].Node || docs[2].Node.Line != 8 {
		t.Errorf("the header at line %d shares the node of the one at line 1", docs[2].Node.Line)
	}
}

// TestCompactSharesShortStrings: a compactor keeps one copy of the short strings of the files
// it compacts (keys, kinds, images recur in every file of a kind), and each file's own of
// longer ones.
func TestCompactSharesShortStrings(t *testing.T) {
	long := strings.Repeat("x", maxShared+1)
	var c compactor
	var files []*checker.File
	for _, name := range []string{"a.yaml", "b.yaml"} {
		in := input{name: name, content: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\ndata:\n  note: " + long + "\n")}
		f, probs := readAndParse(context.Background(), in, DefaultMaxFileSize)
		if f == nil {
			t.Fatalf("not loaded: %v", probs)
		}
		c.compactFile(f)
		files = append(files, f)
	}
	a, b := files[0].Docs[0], files[1].Docs[0]
	for _, p := range []checker.Path{{"metadata", "name"}, {"kind"}} {
		_, x := a.Lookup(p)
		_, y := b.Lookup(p)
		if x == nil || y == nil || x.Value != y.Value || unsafe.StringData(x.Value) != unsafe.StringData(y.Value) {
			t.Errorf("%s: the two files' %q are two copies", p, x.Value)
		}
	}
	if unsafe.StringData(a.Kind) != unsafe.StringData(b.Kind) {
		t.Error("the documents' kinds are two copies")
	}
	_, x := a.Lookup(checker.Path{"data", "note"})
	_, y := b.Lookup(checker.Path{"data", "note"})
	if x.Value != long || y.Value != long || unsafe.StringData(x.Value) == unsafe.StringData(y.Value) {
		t.Error("a long string is shared, or lost")
	}
}
