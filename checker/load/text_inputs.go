package load

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// Text inputs: shell scripts, systemd units, Dockerfiles, Makefiles, kube-proxy flag files,
// Ansible/Jinja2 templates of those, and containerd configuration. They are kept as text; the
// command finder (text_commands.go) and the heredoc decoder (heredoc.go) read them, and text
// rules lex them with checker/text/shell.

func init() {
	nameFilters = append(nameFilters, wantTextName)
	textFirst = append(textFirst, isCommandFile)
	textClassifiers = append(textClassifiers, isContainerdConfig)
	yamlTemplateNames = append(yamlTemplateNames, isYAMLTemplateName)
}

// textFirst classify a file as text before its content is looked at for a
// KubeProxyConfiguration: a shell script holding one in a heredoc is a script, not YAML.
var textFirst []func(name string, content []byte) bool

// yamlTemplateNames recognise YAML files under a template extension (config.yaml.j2).
var yamlTemplateNames []func(name string) bool

// wantTextName lets the walker open files whose name says they may hold commands.
func wantTextName(name string) bool {
	base := strings.ToLower(shell.StripTemplateExt(path.Base(strings.ReplaceAll(name, `\`, "/"))))
	if base != strings.ToLower(path.Base(name)) && isYAMLName(base) {
		return true
	}
	switch path.Ext(base) {
	case ".sh", ".bash", ".ksh", ".zsh", ".service", ".mk", ".dockerfile", ".containerfile", ".flags", ".args", ".conf", "":
		return true
	case ".toml":
		return true
	case ".txt", ".env", ".opts", ".cfg":
		return strings.Contains(base, "kube-proxy") || strings.Contains(base, "kubeproxy") || strings.Contains(base, "kube_proxy")
	}
	return base == "dockerfile" || base == "containerfile" || strings.HasPrefix(base, "dockerfile.") ||
		base == "makefile" || base == "gnumakefile"
}

// isCommandFile: scripts, units, Dockerfiles, Makefiles and flag files.
func isCommandFile(name string, content []byte) bool {
	return shell.DialectOf(name, content) != shell.DialectNone
}

// isContainerdConfig: containerd's registry hosts.toml and config.toml (KP302 reads them for
// localhost NodePort mirrors), and files of any name shaped like a hosts.toml (a server line
// and [host."..."] tables).
func isContainerdConfig(name string, content []byte) bool {
	n := strings.ReplaceAll(name, `\`, "/")
	base := path.Base(n)
	if base == "hosts.toml" || isHostsTOML(content) {
		return true
	}
	return base == "config.toml" && strings.Contains(n, "containerd")
}

var hostsTOMLRe = regexp.MustCompile(`(?m)^[ \t]*\[host\.["']`)

// isHostsTOML reports whether content is shaped like a containerd registry hosts.toml: a
// [host."URL"] table.
func isHostsTOML(content []byte) bool {
	return bytes.Contains(content, []byte("[host.")) && hostsTOMLRe.Match(content)
}

// isYAMLTemplateName: "kube-proxy.yaml.j2", "values.yaml.gotmpl".
func isYAMLTemplateName(name string) bool {
	base := path.Base(name)
	inner := shell.StripTemplateExt(base)
	return inner != base && isYAMLName(inner)
}

// isYAMLTemplate runs the yamlTemplateNames hooks.
func isYAMLTemplate(name string) bool {
	for _, is := range yamlTemplateNames {
		if is(name) {
			return true
		}
	}
	return false
}

// isTextFirst runs the textFirst hooks.
func isTextFirst(name string, content []byte) bool {
	for _, is := range textFirst {
		if is(name, content) {
			return true
		}
	}
	return false
}
