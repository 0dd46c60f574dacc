package load

import (
	"bytes"
	"path"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// CI and automation steps are scripts (issue 21, item 3): a kube-proxy command line in a
// GitHub Actions run:, a GitLab CI script:/before_script:/after_script: (or one of its list
// items), a Tekton or Argo step script:, or an Ansible shell:/command:/raw: (also a loop item
// of command: "{{ item }}") is a kube-proxy instance like one in a shell script. The step's
// string is a virtual text file mapped to the scalar's bytes, so flags, findings and removal
// edits point into the YAML; ${{ … }} and Jinja2 expressions are placeholders.

func init() {
	instanceFinders = append(instanceFinders, findStepInstances)
}

// findStepInstances finds the kube-proxy command lines of CI and automation step scripts.
func findStepInstances(ws *checker.Workspace) []*checker.Instance {
	var out []*checker.Instance
	var configs *configIndex
	for _, d := range ws.Docs {
		// Workflows, pipelines and playbooks have no kind (Tekton and Argo do); a masked
		// document of a templated file is read like the file. The cheap scan first: most
		// files never name kube-proxy.
		if d.Parent != nil || d.Node == nil || (d.File.Parent != nil && !d.File.Masked) ||
			d.Kind != "" && !stepKinds[d.Kind] || !d.File.Outer().Contains("kube-proxy") {
			continue
		}
		forStepScripts(d, func(n *yaml.Node, p checker.Path) {
			if !strings.Contains(n.Value, "kube-proxy") {
				return
			}
			out = append(out, stepInstances(ws, d, n, p, &configs)...)
		})
	}
	return out
}

// forStepScripts calls fn with each step script scalar of d and its path: values of the
// step script keys (checker.StepScriptKey), items of GitLab's script lists (checker.StepListKey), and the
// loop items an Ansible task runs as command: "{{ item }}".
func forStepScripts(d *checker.Document, fn func(n *yaml.Node, p checker.Path)) {
	var walk func(n *yaml.Node, p checker.Path, depth int)
	walk = func(n *yaml.Node, p checker.Path, depth int) {
		if n == nil || depth > 100 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i].Value, n.Content[i+1]
				kp := append(p, k)
				switch {
				case v.Kind == yaml.ScalarNode && checker.StepScriptKey(k) && checker.IsLoopItem(v.Value):
					for j, c := range checker.LoopItems(n) {
						fn(c, kp.Append(j))
					}
				case v.Kind == yaml.ScalarNode && checker.StepScriptKey(k):
					fn(v, kp.Clone())
				case v.Kind == yaml.SequenceNode && checker.StepListKey(k):
					for j, c := range v.Content {
						if c.Kind == yaml.ScalarNode {
							fn(c, kp.Append(j))
						}
					}
				default:
					walk(v, kp, depth+1)
				}
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, append(p, strconv.Itoa(i)), depth+1)
			}
		}
	}
	walk(d.Node, make(checker.Path, 0, 16), 0)
}

// stepScriptFile returns step script n of d as a virtual text file whose offsets map to the
// scalar's bytes in the outer file, or nil when a quoted string's escapes or folding cannot be
// mapped byte for byte (positions and edits would be wrong).
func stepScriptFile(d *checker.Document, n *yaml.Node) *checker.File {
	m := checker.ScalarOffsetMap(d.File, n)
	if !exactScalarMap(d.File, n, m) && !exactMaskedMap(d.File, n, m) {
		return nil
	}
	sf := &checker.File{Path: d.File.Outer().Path, Content: []byte(n.Value), Parent: d.File, ParentMap: m, Format: checker.FormatText}
	sf.Lines = text.NewLineIndex(sf.Content)
	return sf
}

// stepInstances returns the kube-proxy command lines of step script n (path p) of d. A
// --config resolves to a heredoc of the same step that writes that path, else as for a
// script (resolveTextConfig).
func stepInstances(ws *checker.Workspace, d *checker.Document, n *yaml.Node, p checker.Path, configs **configIndex) []*checker.Instance {
	sf := stepScriptFile(d, n)
	if sf == nil {
		return nil
	}
	all := dialectInstances(ws, sf, shell.DialectShell, nil)
	outer := d.File.Outer()
	var found []*checker.Instance
	for _, in := range all {
		found = append(found, matrixInstances(d, p, in)...)
	}
	for _, in := range found {
		// Rules read the source at the instance's positions, which are the outer file's.
		in.Source = outer
		in.Label = "kube-proxy in a step of " + outer.Path + " line " + strconv.Itoa(in.Program.Line) + in.Label
		cf := in.Flag("config")
		if cf == nil {
			continue
		}
		if c := stepHeredocConfig(d, p, cf.Value); c != nil {
			in.Config = c
			pos, end := c.KindPos()
			in.ConfigVia = append(in.ConfigVia, checker.Related{Pos: pos, End: end, Message: "a heredoc of a step writes the configuration to " + cf.Value})
			continue
		}
		if *configs == nil {
			*configs = newConfigIndex(ws)
		}
		resolveTextConfig(*configs, in, cf)
	}
	return found
}

// stepHeredocConfig returns the KubeProxyConfiguration that a heredoc of a step of d writes
// to target, or nil: one of step p first, else one of another step of the same document (a
// GitLab job's script items and a workflow's steps share the runner's file system). The
// heredocs' documents were decoded with the document (decodeStepScript).
func stepHeredocConfig(d *checker.Document, p checker.Path, target string) *checker.Document {
	if text.HasPlaceholder(target) {
		return nil
	}
	target = path.Clean(target)
	var other *checker.Document
	for _, e := range d.Embedded {
		sf := e.File.Parent
		if e.Kind != "KubeProxyConfiguration" || sf == nil || sf.Format != checker.FormatText || len(e.File.ParentOffsets) == 0 {
			continue
		}
		s := scriptOf(sf, shell.DialectShell)
		for _, h := range s.Heredocs {
			if len(h.Offs) == 0 || h.Offs[0] != e.File.ParentOffsets[0] || h.Command < 0 || h.Command >= len(s.Commands) ||
				writeTarget(&s.Commands[h.Command]) != target {
				continue
			}
			if e.ParentPath.String() == p.String() {
				return e
			}
			if other == nil {
				other = e
			}
		}
	}
	return other
}

// kindClusterRe finds a kind Cluster's kind and apiVersion lines (holdsKindCluster).
var (
	kindClusterRe    = regexp.MustCompile(`(?m)^[ \t]*kind:[ \t]*["']?Cluster["']?[ \t]*(?:#.*)?\r?$`)
	kindAPIVersionRe = regexp.MustCompile(`(?m)^[ \t]*apiVersion:[ \t]*["']?kind\.x-k8s\.io/`)
)

// holdsKindCluster reports whether b (a script, a step's string or a heredoc body) holds a
// kind Cluster: its kind and apiVersion written as keys at the start of a line. Whether it is
// one is up to the parse.
func holdsKindCluster(b []byte) bool {
	return bytes.Contains(b, []byte("kind.x-k8s.io/")) && kindAPIVersionRe.Match(b) && kindClusterRe.Match(b)
}

func init() {
	docDecoders = append(docDecoders, decodeStepKindClusters)
}

// decodeStepKindClusters decodes the kind Cluster configurations that CI and automation
// steps write with heredocs (cat <<EOF | kind create cluster --config=-, cat > kind.yaml
// <<EOF): each is a kind Cluster of its own, positioned in the outer file. The step's other
// heredocs are decoded with it, so the content-first walk (decodeEmbeddedBlocks) leaves the
// step alone.
func decodeStepKindClusters(d *checker.Document) []checker.LoadProblem {
	if d.Parent != nil || d.Node == nil || (d.File.Parent != nil && !d.File.Masked) ||
		d.Kind != "" && !stepKinds[d.Kind] || !d.Contains("kind.x-k8s.io/") {
		return nil
	}
	var probs []checker.LoadProblem
	forStepScripts(d, func(n *yaml.Node, p checker.Path) {
		if strings.IndexByte(n.Value, '\n') < 0 || !strings.Contains(n.Value, "<<") || !holdsKindCluster([]byte(n.Value)) {
			return
		}
		probs = append(probs, decodeStepScript(d, n, p)...)
	})
	return probs
}

// exactMaskedMap is exactScalarMap for a scalar of a masked file (a workflow with ${{ … }}
// expressions) whose value holds a placeholder: the value has its true text back, the masked
// file does not, so each byte is compared with the real file's byte it maps to.
func exactMaskedMap(f *checker.File, n *yaml.Node, m *text.OffsetMap) bool {
	if m == nil || !f.Masked || f.Parent == nil {
		return false
	}
	outer := f.Outer()
	val := n.Value
	prev := -1
	for j := 0; j < len(val); j++ {
		o := m.Map(j)
		if o < 0 || o >= len(f.Content) {
			return false
		}
		r := f.OuterOffset(o)
		if r <= prev || r >= len(outer.Content) {
			return false
		}
		prev = r
		if !sourceByteFits(outer.Content[r], val[j], n) {
			return false
		}
	}
	return true
}
