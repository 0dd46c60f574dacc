package load

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
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
	if isYAMLName(name) || maybeConfigName(name) {
		return true
	}
	for _, want := range nameFilters {
		if want(name) {
			return true
		}
	}
	return false
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
	if isYAMLName(name) || name == "-" || name == "<stdin>" || isYAMLTemplate(name) {
		return classYAML
	}
	if bytes.IndexByte(content, 0) >= 0 {
		return classSkip
	}
	if isTextFirst(name, content) {
		// Scripts and units may hold a KubeProxyConfiguration in a heredoc: still text.
		return classText
	}
	if looksLikeKPC(content) {
		return classYAML
	}
	if strings.EqualFold(filepath.Ext(name), ".manifest") && looksLikeManifest(content) {
		// Static Pod manifests of the kube-up scripts (cluster/gce/manifests/kube-proxy.manifest).
		return classYAML
	}
	for _, is := range textClassifiers {
		if is(name, content) {
			return classText
		}
	}
	if explicit {
		if looksLikeManifest(content) {
			return classYAML
		}
		return classText
	}
	return classSkip
}
