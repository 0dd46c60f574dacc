package load

import (
	"path"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// decodeEmbeddedBlocks decodes a KubeProxyConfiguration written as a multi-line string
// anywhere else than in a ConfigMap's data (decodeEmbedded handles those): cloud-init
// write_files content, Butane storage.files contents.inline, an Ansible copy task's content,
// a Helm values string, Cluster API kubeadmConfigSpec.files content (which
// preKubeadmCommands append to the kubeadm config), and any other object's string field
// whatever key holds it (a Crossplane or custom resource's bootstrap configuration, an Argo
// Application's helm.values). The document lives in a virtual file mapped to the scalar's
// lines, so findings point into the outer file, and it is an embedded document of d (Parent,
// ParentPath). Strings already decoded by a known path's decoder are left alone.
func decodeEmbeddedBlocks(d *checker.Document) []checker.LoadProblem {
	// ConfigMaps have their own decoder (data values), kind's patches and other patch lists
	// are partial documents, not configurations (isPatchPath). The cheap content scan first:
	// most documents hold no configuration at all.
	if d.File.Parent != nil && !d.File.Masked {
		return nil
	}
	return decodeBlocks(d)
}

// decodeBlocks is decodeEmbeddedBlocks for any document, embedded ones included.
func decodeBlocks(d *checker.Document) []checker.LoadProblem {
	if d.Node == nil || d.Kind == "ConfigMap" || !d.Contains("KubeProxyConfiguration") && !d.Contains("kubeadm.k8s.io/") &&
		!d.Contains("k0s.k0sproject.io/") && !d.Contains("kops.k8s.io/") && !d.Contains("core.gardener.cloud/") {
		return nil
	}
	// Kinds the decoder read before content-first discovery: without a kind (cloud-init,
	// Butane, Ansible, Helm values), Cluster API bootstrap objects, CI steps. Other kinds'
	// strings are only decoded when they parse cleanly into mappings (a description that
	// quotes a configuration is not one).
	known := d.Kind == "" || blockKinds[d.Kind] || stepKinds[d.Kind]
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
			if len(p) == 0 || strings.IndexByte(n.Value, '\n') < 0 || !holdsConfig(n.Value) ||
				done[p.String()] || isPatchPath(p) {
				return
			}
			if checker.StepScriptKey(p[len(p)-1]) || len(p) >= 2 && checker.StepListKey(p[len(p)-2]) {
				// A CI or automation step's script: shell, whose heredocs hold the document.
				probs = append(probs, decodeStepScript(d, n, p)...)
				return
			}
			if stepKinds[d.Kind] {
				return
			}
			m := checker.ScalarOffsetMap(d.File, n)
			if !exactScalarMap(d.File, n, m) {
				// A quoted string whose escapes or folding cannot be mapped byte for byte:
				// findings would point at the wrong place.
				return
			}
			inner := &checker.File{Path: d.File.Path, Content: []byte(n.Value), Parent: d.File, ParentMap: m}
			inner.Lines = text.NewLineIndex(inner.Content)
			ps := parseFile(inner)
			if !known && (len(ps) > 0 || !allMappings(inner.Docs)) {
				return
			}
			probs = append(probs, ps...)
			for _, e := range inner.Docs {
				e.Parent = d
				e.ParentPath = append(checker.Path(nil), p...)
				probs = append(probs, decodeDoc(e)...)
				d.Embedded = append(d.Embedded, e)
				if e.Kind == "" && e.File.EmbedDepth() < maxEmbedDepth {
					// A values document in a string (an Argo CD Application's helm.values)
					// whose own strings hold the configuration: decodeDoc leaves embedded
					// files alone, so the walk goes on here.
					n := len(e.Embedded)
					probs = append(probs, decodeBlocks(e)...)
					d.Embedded = append(d.Embedded, e.Embedded[n:]...)
					e.Embedded = e.Embedded[:n]
				}
			}
		}
	}
	walk(d.Node, make(checker.Path, 0, 16), 0)
	return probs
}

// exactScalarMap reports whether m maps every byte of scalar n's value to the source byte it
// was read from: always for block scalars, and for quoted or plain strings whose escapes
// (backslash escapes, doubled single quotes) and line folding the map resolves; a value the
// map could not align is not.
func exactScalarMap(f *checker.File, n *yaml.Node, m *text.OffsetMap) bool {
	if m == nil {
		return false
	}
	if n.Style&(yaml.LiteralStyle|yaml.FoldedStyle) != 0 {
		return true
	}
	src, val := f.Content, n.Value
	for j := 0; j < len(val); j++ {
		o := m.Map(j)
		if o < 0 || o >= len(src) {
			return false
		}
		if !sourceByteFits(src[o], val[j], n) {
			return false
		}
	}
	return true
}

// sourceByteFits reports whether source byte c can have produced byte v of scalar n's value:
// the same byte, the start of an escape in a double-quoted scalar, or a line break that
// folding turned into a space or kept.
func sourceByteFits(c, v byte, n *yaml.Node) bool {
	return c == v || c == '\\' && n.Style&yaml.DoubleQuotedStyle != 0 || (c == '\n' || c == '\r') && (v == ' ' || v == '\n')
}

// allMappings reports whether there are documents and each is a mapping.
func allMappings(docs []*checker.Document) bool {
	for _, e := range docs {
		if e.Node == nil || e.Node.Kind != yaml.MappingNode {
			return false
		}
	}
	return len(docs) > 0
}

// blockKinds are the kinds whose string fields may hold a whole KubeProxyConfiguration: Cluster
// API's kubeadm bootstrap and control-plane objects (kubeadmConfigSpec.files[].content).
var blockKinds = map[string]bool{
	"KubeadmControlPlane": true, "KubeadmControlPlaneTemplate": true,
	"KubeadmConfig": true, "KubeadmConfigTemplate": true,
}

// kpcAPIVersionRe: a complete configuration names its apiVersion; a patch often does not.
var kpcAPIVersionRe = regexp.MustCompile(`(?m)^\s*apiVersion:\s*["']?kubeproxy\.config\.k8s\.io/`)

// kubeadmAPIVersionRe: a kubeadm configuration's apiVersion line.
var kubeadmAPIVersionRe = regexp.MustCompile(`(?m)^\s*apiVersion:\s*["']?kubeadm\.k8s\.io/`)

// kubeadmInitRe finds a kubeadm InitConfiguration: alone in a string it anchors a cluster, as
// in a file.
var kubeadmInitRe = regexp.MustCompile(`kind:\s*["']?InitConfiguration`)

// holdsConfig reports whether a string looks like a whole KubeProxyConfiguration or a kubeadm
// ClusterConfiguration (which writes kube-proxy's configuration) or InitConfiguration: both
// the kind and the apiVersion written as keys at the start of a line. Whether it is one is up
// to the parse.
func holdsConfig(v string) bool {
	return kpcRe.MatchString(v) && kpcAPIVersionRe.MatchString(v) ||
		(kubeadmClusterRe.MatchString(v) || kubeadmInitRe.MatchString(v)) && kubeadmAPIVersionRe.MatchString(v) ||
		installerDocRe.MatchString(v) && installerKindRe.MatchString(v)
}

// installerDocRe and installerKindRe find a whole installer document whose apiVersion and kind
// name its installer without doubt (a k0s ClusterConfig, a kops Cluster, a Gardener Shoot):
// written in a string (cloud-init writing /etc/k0s/k0s.yaml, a Terraform heredoc) it is read
// as the same file would be.
var (
	installerDocRe  = regexp.MustCompile(`(?m)^\s*apiVersion:\s*["']?(?:k0s\.k0sproject\.io|kops\.k8s\.io|core\.gardener\.cloud)/`)
	installerKindRe = regexp.MustCompile(`(?m)^\s*kind:\s*["']?(?:ClusterConfig|Cluster|Shoot)["']?\s*$`)
)

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

// stepKinds are the kinds whose steps hold shell scripts: Tekton tasks and pipelines, Argo
// workflows.
var stepKinds = map[string]bool{
	"Task": true, "ClusterTask": true, "Pipeline": true, "PipelineRun": true, "TaskRun": true,
	"Workflow": true, "WorkflowTemplate": true, "ClusterWorkflowTemplate": true, "CronWorkflow": true,
}

// decodeStepScript reads a step's script scalar n as shell: the KubeProxyConfiguration its
// heredocs write are embedded documents of d, positioned through the script in the outer
// file. GitHub's ${{ … }} expressions are template placeholders there.
func decodeStepScript(d *checker.Document, n *yaml.Node, p checker.Path) []checker.LoadProblem {
	script := &checker.File{Path: d.File.Path, Content: []byte(n.Value), Parent: d.File, ParentMap: checker.ScalarOffsetMap(d.File, n), Format: checker.FormatText}
	script.Lines = text.NewLineIndex(script.Content)
	s := shell.Parse(script.Content, 0, len(script.Content), shell.Options{})
	probs := decodeScriptHeredocs(script, s)
	for _, e := range script.Docs {
		e.Parent = d
		e.ParentPath = append(checker.Path(nil), p...)
		d.Embedded = append(d.Embedded, e)
	}
	// A mode from the job's matrix: one configuration per value (step_matrix.go).
	return append(probs, expandMatrixHeredocs(d, script, s, p)...)
}
