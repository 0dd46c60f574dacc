package load

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// decodeEmbeddedBlocks decodes a KubeProxyConfiguration written as a multi-line string
// anywhere else than in a ConfigMap's data (decodeEmbedded handles those): cloud-init
// write_files content, Butane storage.files contents.inline, an Ansible copy task's content,
// a Helm values string, Cluster API kubeadmConfigSpec.files content (which
// preKubeadmCommands append to the kubeadm config). The document lives in a virtual file
// mapped to the scalar's lines, so findings point into the outer file, and it is an embedded
// document of d (Parent, ParentPath).
func decodeEmbeddedBlocks(d *checker.Document) []checker.LoadProblem {
	// Only documents without a kind (cloud-init, Butane, Ansible, Helm values) and Cluster
	// API bootstrap objects: other Kubernetes and installer objects (kind's
	// kubeadmConfigPatches, Talos) have their own decoders, and partial patches are not
	// configurations.
	if d.Kind != "" && !blockKinds[d.Kind] || d.Node == nil || d.File.Parent != nil && !d.File.Masked ||
		!d.Contains("KubeProxyConfiguration") {
		return nil
	}
	done := map[string]bool{}
	for _, e := range d.Embedded {
		done[e.ParentPath.String()] = true
	}
	var probs []checker.LoadProblem
	// p is the walk's stack; an embedded document gets a copy.
	var walk func(n *yaml.Node, p checker.Path, depth int)
	walk = func(n *yaml.Node, p checker.Path, depth int) {
		if n == nil || depth > 100 {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], append(p, n.Content[i].Value), depth+1)
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				walk(c, append(p, strconv.Itoa(i)), depth+1)
			}
		case yaml.ScalarNode:
			// The content tests first: the path is formatted only for a configuration.
			if len(p) == 0 || strings.IndexByte(n.Value, '\n') < 0 || !kpcRe.MatchString(n.Value) ||
				!kpcAPIVersionRe.MatchString(n.Value) || done[p.String()] || isPatchPath(p) {
				return
			}
			inner := &checker.File{Path: d.File.Path, Content: []byte(n.Value), Parent: d.File, ParentMap: checker.ScalarOffsetMap(d.File, n)}
			inner.Lines = checker.NewLineIndex(inner.Content)
			probs = append(probs, parseFile(inner)...)
			for _, e := range inner.Docs {
				e.Parent = d
				e.ParentPath = append(checker.Path(nil), p...)
				probs = append(probs, decodeDoc(e)...)
				d.Embedded = append(d.Embedded, e)
			}
		}
	}
	walk(d.Node, make(checker.Path, 0, 16), 0)
	return probs
}

// blockKinds are the kinds whose string fields may hold a whole KubeProxyConfiguration: Cluster
// API's kubeadm bootstrap and control-plane objects (kubeadmConfigSpec.files[].content).
var blockKinds = map[string]bool{
	"KubeadmControlPlane": true, "KubeadmControlPlaneTemplate": true,
	"KubeadmConfig": true, "KubeadmConfigTemplate": true,
}

// kpcAPIVersionRe: a complete configuration names its apiVersion; a patch often does not.
var kpcAPIVersionRe = regexp.MustCompile(`(?m)^\s*apiVersion:\s*["']?kubeproxy\.config\.k8s\.io/`)

// isPatchPath reports whether a field path goes through a patch list (kubeadmConfigPatches,
// patches, configPatches): partial documents, not configurations.
func isPatchPath(p checker.Path) bool {
	for _, e := range p {
		if strings.Contains(strings.ToLower(e), "patch") {
			return true
		}
	}
	return false
}

// blockTargets maps the cleaned path an embedded block is written to (a sibling path: or
// dest: key, as in cloud-init write_files and Ansible copy) to its documents.
func blockTargets(ws *checker.Workspace, out map[string][]*checker.Document) {
	for _, d := range ws.Docs {
		if d.Parent == nil || d.Parent.Kind == "ConfigMap" || len(d.ParentPath) < 2 {
			continue
		}
		dir := d.ParentPath[:len(d.ParentPath)-1]
		for _, key := range []string{"path", "dest"} {
			if v := d.Parent.Str(dir.Append(key)); v != "" {
				p := path.Clean(v)
				out[p] = append(out[p], d)
			}
		}
	}
}
