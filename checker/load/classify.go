package load

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// fileClass is how a file is read.
type fileClass int

const (
	// classSkip: not a file kube-proxy-lint reads.
	classSkip fileClass = iota
	// classYAML: decoded as YAML (JSON is YAML too) into documents with positions.
	classYAML
	// classText: kept as text for the text decoders and text rules.
	classText
)

var kpcRe = regexp.MustCompile(`kind:\s*["']?KubeProxyConfiguration`)

func looksLikeKPC(b []byte) bool { return kpcRe.Match(b) }

func isYAMLName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// maybeConfigName is a file that could hold a KubeProxyConfiguration under another name.
func maybeConfigName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".conf", ".cfg", ".config", "", ".manifest":
		return true
	}
	return false
}

// wantName reports, from the name alone, whether the walker reads a file: the cheap first
// filter that keeps the walk from opening every file of a large tree.
func wantName(name string) bool {
	if isYAMLName(name) || maybeConfigName(name) || sniffName(name) {
		return true
	}
	for _, want := range nameFilters {
		if want(name) {
			return true
		}
	}
	return false
}

// sniffName: files whose content decides what they are, read for the content sniffer
// (classifyWhy): Ansible playbooks (*.ansible), templates of any kind (*.tpl, *.j2, ...) and
// files named after kubeadm or kube-proxy whatever their extension (kubeadm-init.v1beta3).
func sniffName(name string) bool {
	base := strings.ToLower(filepath.Base(name))
	if notConfigExts[filepath.Ext(shell.StripTemplateExt(base))] || strings.HasSuffix(base, "~") {
		return false
	}
	if strings.HasSuffix(base, ".ansible") || shell.StripTemplateExt(base) != base {
		return true
	}
	return strings.Contains(base, "kubeadm") || strings.Contains(base, "kube-proxy") || strings.Contains(base, "kubeproxy")
}

// notConfigExts are extensions of prose and source code: never sniffed, whatever the name
// says (kubeadm_config_test.go, build-image-with-kubeadm.md).
var notConfigExts = map[string]bool{
	".md": true, ".markdown": true, ".rst": true, ".adoc": true, ".txt": true, ".html": true, ".htm": true,
	".go": true, ".py": true, ".rb": true, ".js": true, ".ts": true, ".java": true, ".c": true, ".h": true,
	".rs": true, ".ps1": true, ".bat": true, ".cmd": true, ".lua": true, ".pl": true, ".php": true,
	".cs": true, ".kt": true, ".swift": true, ".svg": true, ".png": true, ".jpg": true, ".gif": true,
	".pdf": true, ".csv": true, ".log": true, ".mod": true, ".sum": true, ".lock": true, ".proto": true,
	// Copies that are not in use: test goldens, backups, merge leftovers.
	".golden": true, ".bak": true, ".orig": true, ".old": true, ".rej": true, ".swp": true, ".tmp": true, ".dist": true,
}

// nameFilters and textClassifiers extend wantName and classify for more inputs (scripts,
// units, installer files); each source file registers its own in an init function.
var (
	nameFilters     []func(name string) bool
	textClassifiers []func(name string, content []byte) bool
	// textDecoders run on every text file, e.g. to find kube-proxy command lines.
	textDecoders []func(f *checker.File) []checker.LoadProblem
)

// classify decides how to read a file from its name and content. Files named on the command
// line (explicit) are always read.
func classify(name string, content []byte, explicit bool) fileClass {
	c, _ := classifyWhy(name, content, explicit)
	return c
}

// classifyWhy is classify, and says why (checker.File.Reason).
func classifyWhy(name string, content []byte, explicit bool) (fileClass, string) {
	switch {
	case name == "-" || name == "<stdin>":
		return classYAML, "standard input"
	case isYAMLName(name):
		return classYAML, "name ends in " + strings.ToLower(filepath.Ext(name))
	case isYAMLTemplate(name):
		return classYAML, "YAML template by name"
	case strings.HasSuffix(strings.ToLower(name), ".ansible"):
		return classYAML, "name ends in .ansible (a playbook)"
	}
	if isTextFirst(name, content) {
		// Scripts and units may hold a KubeProxyConfiguration in a heredoc: still text. A
		// script with a binary payload is linted up to the payload (readAndParse).
		return classText, "script, unit, Dockerfile, Makefile or flag file"
	}
	if bytes.IndexByte(content, 0) >= 0 {
		return classSkip, "binary"
	}
	if looksLikeKPC(content) {
		return classYAML, "content: kind KubeProxyConfiguration"
	}
	if g := sniffAPIGroup(content); g != "" {
		return classYAML, "content: apiVersion " + g
	}
	if strings.EqualFold(filepath.Ext(name), ".manifest") && looksLikeManifest(content) {
		// Static Pod manifests of the kube-up scripts (cluster/gce/manifests/kube-proxy.manifest).
		return classYAML, "name ends in .manifest; content: apiVersion or kind"
	}
	for _, is := range textClassifiers {
		if is(name, content) {
			return classText, "installer or command text by name and content"
		}
	}
	if explicit {
		if looksLikeManifest(content) {
			return classYAML, "named on the command line; content: apiVersion or kind"
		}
		return classText, "named on the command line"
	}
	return classSkip, ""
}

// sniffLimit bounds how much of a file the content sniffer reads: the apiVersion of a
// manifest is at its top.
const sniffLimit = 16 << 10

// sniffGroups are the API groups whose documents are read whatever the file is called
// (kubeadm.conf, Clusterfile, kubeadm-init.v1beta3, cluster-spec): kube-proxy's, kubeadm's and
// the installers'.
var sniffGroups = map[string]bool{
	"kubeproxy.config.k8s.io": true, "kubeadm.k8s.io": true, "kind.x-k8s.io": true, "kops.k8s.io": true,
	"apps.sealos.io": true, "kubekey.kubesphere.io": true, "k0s.k0sproject.io": true, "k0sctl.k0sproject.io": true,
	"kubeone.k8c.io": true, "cluster.x-k8s.io": true, "controlplane.cluster.x-k8s.io": true,
	"bootstrap.cluster.x-k8s.io": true, "core.gardener.cloud": true, "eksctl.io": true,
}

var sniffRe = regexp.MustCompile(`(?m)^["']?apiVersion["']?[ \t]*:[ \t]*["']?([A-Za-z0-9.-]+)/`)

// sniffAPIGroup returns the API group of the first top-level apiVersion line in the first
// sniffLimit bytes when it is among sniffGroups and everything before it reads as YAML
// (comments, keys, list items, document markers, template lines): prose with an example in
// it (a README) is not a manifest.
func sniffAPIGroup(content []byte) string {
	head := content[:min(len(content), sniffLimit)]
	if !bytes.Contains(head, []byte("apiVersion")) {
		return ""
	}
	m := sniffRe.FindSubmatchIndex(head)
	if m == nil || !sniffGroups[string(head[m[2]:m[3]])] || !yamlPrefix(head[:m[0]]) {
		return ""
	}
	return string(head[m[2]:m[3]])
}

// yamlKeyRe is a line that is a YAML mapping key, a list item or a flow collection.
var yamlKeyRe = regexp.MustCompile(`^(?:[ \t]*(?:-[ \t]|-$|["']?[A-Za-z0-9_.$/-]+["']?[ \t]*:(?:[ \t]|$)|[{\[])|[ \t]+\S)`)

// yamlPrefix reports whether every line of b reads as YAML.
func yamlPrefix(b []byte) bool {
	for _, l := range bytes.Split(b, []byte("\n")) {
		t := bytes.TrimSpace(l)
		switch {
		case len(t) == 0, t[0] == '#', bytes.HasPrefix(t, []byte("---")), bytes.HasPrefix(t, []byte("{{")), bytes.HasPrefix(t, []byte("{%")):
			continue
		case !yamlKeyRe.Match(l):
			return false
		}
	}
	return true
}
