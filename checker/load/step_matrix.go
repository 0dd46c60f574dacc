package load

import (
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// GitHub Actions matrices (issue 21, item 4): a job whose strategy.matrix lists proxy modes
// (proxy-mode: [iptables, ipvs]) runs its steps once per value, so a heredoc's
// kubeProxyMode: ${{ matrix.proxy-mode }} (or mode:) is one configuration per value: ipvs in
// a matrix is a real ipvs cluster in CI. Each value's copy of the heredoc is decoded with the
// value in place, its bytes mapped to the value in the matrix (where the finding and its fix
// point), with a note at the ${{ … }} that expands it. The copies of a kind Cluster are
// clusters of their own (splitKindHeredocs), named with their value.

// matrixModeRe is a mode line whose value is one matrix expression.
var matrixModeRe = regexp.MustCompile(`(?m)^([ \t]*(?:mode|kubeProxyMode)[ \t]*:[ \t]*)(["']?)(\$\{\{[ \t]*matrix\.([A-Za-z0-9_-]+)[ \t]*\}\})(["']?)[ \t]*(?:#.*)?\r?$`)

// matrixValue is one literal value of a matrix key, with the offsets of its bytes in the
// workflow document's file (one extra entry maps the end).
type matrixValue struct {
	text string
	offs []int
}

// jobMatrix returns the literal values of each key of the strategy.matrix of the GitHub
// Actions job that holds step path p of d: the key's list, then the include entries' values.
func jobMatrix(d *checker.Document, p checker.Path) map[string][]matrixValue {
	if len(p) < 2 || p[0] != "jobs" {
		return nil
	}
	_, m := d.Lookup(checker.Path{"jobs", p[1], "strategy", "matrix"})
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	out := map[string][]matrixValue{}
	add := func(k string, n *yaml.Node) {
		if n.Kind != yaml.ScalarNode || !literalValueRe.MatchString(n.Value) {
			return
		}
		sm := checker.ScalarOffsetMap(d.File, n)
		if !exactScalarMap(d.File, n, sm) {
			return
		}
		offs := make([]int, len(n.Value)+1)
		for i := range offs {
			offs[i] = sm.Map(i)
		}
		out[k] = append(out[k], matrixValue{text: n.Value, offs: offs})
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i].Value, m.Content[i+1]
		switch {
		case k == "include" && v.Kind == yaml.SequenceNode:
			for _, e := range v.Content {
				if e.Kind != yaml.MappingNode {
					continue
				}
				for j := 0; j+1 < len(e.Content); j += 2 {
					add(e.Content[j].Value, e.Content[j+1])
				}
			}
		case k != "exclude" && v.Kind == yaml.SequenceNode:
			for _, e := range v.Content {
				add(k, e)
			}
		}
	}
	return out
}

// expandMatrixHeredocs decodes, once per matrix value, each heredoc of step script sf
// (lexed as s, path p of d) whose mode is a matrix expression, and drops the document decoded
// with the placeholder: the copies take its place. It returns the load problems.
func expandMatrixHeredocs(d *checker.Document, sf *checker.File, s *shell.Script, p checker.Path) []checker.LoadProblem {
	if !strings.Contains(string(sf.Content), "matrix.") {
		return nil
	}
	var matrix map[string][]matrixValue
	var probs []checker.LoadProblem
	// The copies' offsets are the document file's: an identity text layer over it keeps
	// them heredoc documents (isHeredocKindCluster).
	var layer *checker.File
	for i := range s.Heredocs {
		h := &s.Heredocs[i]
		if h.Quoted || len(h.Offs) != len(h.Body)+1 || !heredocWorthDecoding(h.Body) {
			continue
		}
		ms := matrixModeRe.FindAllSubmatchIndex(h.Body, -1)
		if len(ms) != 1 {
			continue
		}
		mt := ms[0]
		if string(h.Body[mt[4]:mt[5]]) != string(h.Body[mt[10]:mt[11]]) {
			continue
		}
		if matrix == nil {
			if matrix = jobMatrix(d, p); matrix == nil {
				return probs
			}
		}
		key := string(h.Body[mt[8]:mt[9]])
		vals := matrix[key]
		if len(vals) == 0 {
			continue
		}
		if layer == nil {
			layer = &checker.File{Path: d.File.Path, Content: d.File.Content, Lines: d.File.Lines, Parent: d.File, Format: checker.FormatText}
		}
		// The body's bytes in the document file's offsets.
		base := make([]int, len(h.Offs))
		for k, o := range h.Offs {
			base[k] = sf.ParentOffset(o)
		}
		use := checker.Related{Pos: sf.PositionAt(h.Offs[mt[6]]), End: sf.PositionAt(h.Offs[mt[7]]),
			Message: string(h.Body[mt[6]:mt[7]]) + " is expanded here, in a heredoc"}
		from, to := mt[4], mt[11]
		for _, v := range vals {
			body := append(append(append([]byte(nil), h.Body[:from]...), v.text...), ' ')
			body = append(body, h.Body[to:]...)
			offs := append(append(append([]int(nil), base[:from]...), v.offs[:len(v.text)]...), v.offs[len(v.text)])
			offs = append(offs, base[to:]...)
			inner := &checker.File{Path: sf.Path, Content: body, Parent: layer, ParentOffsets: offs,
				Reason: key + "=" + v.text + " at line " + strconv.Itoa(d.File.PositionAt(v.offs[0]).Line)}
			if m := text.MaskTemplateWith(body, shellExpansionSpans(body)); m != nil {
				mo := m.Map.Table()
				for k, o := range mo {
					mo[k] = offs[min(o, len(offs)-1)]
				}
				inner.Content, inner.ParentOffsets, inner.Masked = m.Content, mo, true
				inner.Open = m.Open
			}
			inner.Lines = text.NewLineIndex(inner.Content)
			probs = append(probs, parseFile(inner)...)
			if inner.Masked {
				restorePlaceholders(inner, inner.Docs)
				markOpen(inner, inner.Docs)
			}
			outer := d.File.Outer()
			at := d.File.OuterOffset(v.offs[0])
			if outer.ValueVias == nil {
				outer.ValueVias = map[int][]checker.Related{}
			}
			outer.ValueVias[at] = append(outer.ValueVias[at], use)
			for _, e := range inner.Docs {
				probs = append(probs, decodeDoc(e)...)
				e.Parent, e.ParentPath = d, append(checker.Path(nil), p...)
				d.Embedded = append(d.Embedded, e)
			}
		}
		// The placeholder's document gives way to the copies.
		keep := d.Embedded[:0]
		for _, e := range d.Embedded {
			if e.File.Parent == sf && len(e.File.ParentOffsets) > 0 && e.File.ParentOffsets[0] == h.Offs[0] {
				continue
			}
			keep = append(keep, e)
		}
		d.Embedded = keep
	}
	return probs
}

// matrixFlagRe is a flag value that is one matrix expression.
var matrixFlagRe = regexp.MustCompile(`^\$\{\{[ \t]*matrix\.([A-Za-z0-9_-]+)[ \t]*\}\}$`)

// matrixInstances returns the kube-proxy command line in of step path p of d once per value
// of the job's matrix when its --proxy-mode is ${{ matrix.KEY }}: each copy's --proxy-mode is
// the value, positioned at the matrix entry (no removal edit spans both places), with a note
// at the expression; its Label holds the value's suffix. Otherwise it returns in alone, with
// an empty Label.
func matrixInstances(d *checker.Document, p checker.Path, in *checker.Instance) []*checker.Instance {
	in.Label = ""
	k := len(in.Flags) - 1
	for k >= 0 && in.Flags[k].Name != "proxy-mode" {
		k--
	}
	if k < 0 || !in.Flags[k].HasValue {
		return []*checker.Instance{in}
	}
	fl := in.Flags[k]
	m := matrixFlagRe.FindStringSubmatch(fl.Value)
	if m == nil {
		return []*checker.Instance{in}
	}
	vals := jobMatrix(d, p)[m[1]]
	if len(vals) == 0 {
		return []*checker.Instance{in}
	}
	use := checker.Related{Pos: fl.ValuePos, End: fl.ValueEnd, Message: fl.Value + " is expanded here"}
	var out []*checker.Instance
	for _, v := range vals {
		c := *in
		c.Flags = append([]checker.Flag(nil), in.Flags...)
		f := &c.Flags[k]
		f.Value = v.text
		f.ValuePos, f.ValueEnd = d.File.PositionAt(v.offs[0]), d.File.PositionAt(v.offs[len(v.text)])
		f.Pos, f.End, f.Remove = f.ValuePos, f.ValueEnd, nil
		f.Via = append(append([]checker.Related(nil), f.Via...), use)
		c.Label = ", " + m[1] + "=" + v.text + " at line " + strconv.Itoa(f.ValuePos.Line)
		out = append(out, &c)
	}
	return out
}
