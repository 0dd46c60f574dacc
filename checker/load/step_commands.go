package load

import (
	"bytes"
	"path"
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
// step script keys (stepScriptKeys), items of GitLab's script lists (stepListKeys), and the
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
				case v.Kind == yaml.ScalarNode && stepScriptKeys[k] && isLoopItem(v.Value):
					for j, c := range loopItems(n) {
						fn(c, kp.Append(j))
					}
				case v.Kind == yaml.ScalarNode && stepScriptKeys[k]:
					fn(v, kp.Clone())
				case v.Kind == yaml.SequenceNode && stepListKeys[k]:
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

// isLoopItem reports whether a task's command is only its loop item: "{{ item }}".
func isLoopItem(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{{") || !strings.HasSuffix(s, "}}") {
		return false
	}
	return strings.TrimSpace(strings.Trim(s[2:len(s)-2], "-")) == "item"
}

// loopItems returns the string items of an Ansible task's loop: or with_items: list.
func loopItems(task *yaml.Node) []*yaml.Node {
	for i := 0; i+1 < len(task.Content); i += 2 {
		k, v := task.Content[i].Value, task.Content[i+1]
		if (k == "loop" || k == "with_items") && v.Kind == yaml.SequenceNode {
			var out []*yaml.Node
			for _, c := range v.Content {
				if c.Kind == yaml.ScalarNode {
					out = append(out, c)
				}
			}
			return out
		}
	}
	return nil
}

// stepScriptFile returns step script n of d as a virtual text file whose offsets map to the
// scalar's bytes in the outer file, or nil when a quoted string's escapes or folding cannot be
// mapped byte for byte (positions and edits would be wrong).
func stepScriptFile(d *checker.Document, n *yaml.Node) *checker.File {
	m := checker.ScalarOffsetMap(d.File, n)
	if !exactScalarMap(d.File, n, m) {
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
	found := all[:0]
	for _, in := range all {
		if in.Flag("version") != nil || in.Flag("help") != nil || in.Flag("h") != nil {
			// A CI step that prints kube-proxy's version or usage runs no kube-proxy.
			continue
		}
		found = append(found, in)
		// Rules read the source at the instance's positions, which are the outer file's.
		in.Source = outer
		in.Label = "kube-proxy in a step of " + outer.Path + " line " + strconv.Itoa(in.Program.Line)
		cf := in.Flag("config")
		if cf == nil {
			continue
		}
		if c := stepHeredocConfig(d, sf, p, cf.Value); c != nil {
			in.Config = c
			pos, end := c.KindPos()
			in.ConfigVia = append(in.ConfigVia, checker.Related{Pos: pos, End: end, Message: "a heredoc of this step writes the configuration to " + cf.Value})
			continue
		}
		if *configs == nil {
			*configs = newConfigIndex(ws)
		}
		resolveTextConfig(*configs, in, cf)
	}
	return found
}

// stepHeredocConfig returns the KubeProxyConfiguration that a heredoc of step script sf
// (path p of d) writes to target, or nil. The heredoc's documents were decoded with the
// document (decodeStepScript): the same bytes of the same scalar.
func stepHeredocConfig(d *checker.Document, sf *checker.File, p checker.Path, target string) *checker.Document {
	if text.HasPlaceholder(target) || !bytes.Contains(sf.Content, []byte("<<")) {
		return nil
	}
	s := scriptOf(sf, shell.DialectShell)
	want := p.String()
	for _, h := range s.Heredocs {
		if h.Command < 0 || h.Command >= len(s.Commands) || len(h.Offs) == 0 ||
			writeTarget(&s.Commands[h.Command]) != path.Clean(target) {
			continue
		}
		for _, e := range d.Embedded {
			if e.Kind == "KubeProxyConfiguration" && e.ParentPath.String() == want &&
				len(e.File.ParentOffsets) > 0 && e.File.ParentOffsets[0] == h.Offs[0] {
				return e
			}
		}
	}
	return nil
}
