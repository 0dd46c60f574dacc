// Package hostile generates the hostile repositories of fixtures/hostile: alias bombs, deeply
// nested ConfigMaps, lone-CR files, planted links, FIFOs and devices, files named to inject
// into CI logs. They are written by test code into temporary directories (`go run -tags
// kpltools ./internal/hostile/gen DIR` writes them for manual runs), never committed: some
// are megabytes, some are links and FIFOs that Git cannot hold.
//
// Every generator is deterministic, so a test failure reproduces.
package hostile

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// AliasBomb returns a YAML stream of docs documents of about size bytes each. Each document
// is a "billion laughs": levels lists whose every one of k elements aliases the level below,
// so that it expands to more than k^levels nodes while its source stays a few hundred bytes;
// the rest of size is a comment. kind is the documents' kind. With k = 31 and levels = 4 a
// document expands to about 954,000 nodes, just under the old per-document budget.
func AliasBomb(kind string, docs, size, k, levels int) []byte {
	var b strings.Builder
	for d := 0; d < docs; d++ {
		if d > 0 {
			b.WriteString("---\n")
		}
		start := b.Len()
		fmt.Fprintf(&b, "apiVersion: v1\nkind: %s\nmetadata:\n  name: bomb-%d\n", kind, d)
		b.WriteString("l0: &l0 [" + strings.TrimSuffix(strings.Repeat("lol,", k), ",") + "]\n")
		for l := 1; l < levels; l++ {
			fmt.Fprintf(&b, "l%d: &l%d [%s]\n", l, l, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d,", l-1), k), ","))
		}
		for b.Len()-start < size-4 {
			b.WriteString("# " + strings.Repeat("x", min(76, size-4-(b.Len()-start))) + "\n")
		}
	}
	return []byte(b.String())
}

// NestedConfigMaps returns a ConfigMap whose config.conf block scalar holds a ConfigMap whose
// config.conf holds another, levels deep, with a KubeProxyConfiguration at the bottom. pad
// bytes of comment at each level make the text that every level copies long. With 400
// levels and no padding it is about 1.9 MB.
func NestedConfigMaps(levels, pad int) []byte {
	type line struct {
		indent int
		text   string
	}
	lines := []line{{0, "apiVersion: kubeproxy.config.k8s.io/v1alpha1"}, {0, "kind: KubeProxyConfiguration"}, {0, "mode: ipvs"}}
	for l := 0; l < levels; l++ {
		for i := range lines {
			lines[i].indent += 4
		}
		head := []line{{0, "apiVersion: v1"}, {0, "kind: ConfigMap"}, {0, "metadata:"}, {2, fmt.Sprintf("name: kube-proxy-%d", l)}, {0, "data:"}, {2, "config.conf: |"}}
		lines = append(head, lines...)
		if pad > 0 {
			lines = append(lines, line{0, "# " + strings.Repeat("p", pad)})
		}
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(strings.Repeat(" ", l.indent))
		b.WriteString(l.text)
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// LoneCR returns a kube-proxy ConfigMap whose lines end in a lone CR (classic Mac OS).
func LoneCR() []byte {
	return []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\rkind: KubeProxyConfiguration\rmode: ipvs\r")
}

// InjectionNames are file names, valid on Unix, aimed at the consumers of the outputs: GitHub's
// workflow command parser, terminals, Markdown renderers. Each ends in .yaml.
var InjectionNames = []string{
	"x\n::stop-commands::h1de\n.yaml",
	"::error::pwned.yaml",
	"esc\x1b[2J\x1b]0;title\x07.yaml",
	"bidi\u202eslm.yaml",
	"md)@octocat **bold** (x.yaml",
	"##[error]v1.yaml",
	"..x.yaml",
}

// KubeProxyIPVS is a KubeProxyConfiguration in ipvs mode: a file every run reports on.
const KubeProxyIPVS = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"

// Write writes one directory per hostile repository below dir: aliases (30 alias bombs in one
// file and 30 files of one), nested (ConfigMaps 400 levels deep), lone-cr, names (files named
// to inject into CI logs and Markdown) and links (a configuration, .gitignore and output
// planted as links to /dev/zero and to a file outside the tree). FIFOs are left out: they are
// made by the tests.
func Write(dir string) error {
	files := map[string][]byte{
		"aliases/one-file.yaml": AliasBomb("Foo", 30, 8<<10, 31, 4),
		"nested/nested.yaml":    NestedConfigMaps(400, 0),
		"lone-cr/mac.yaml":      LoneCR(),
		"links/outside/id_ed25519": []byte("-----BEGIN OPENSSH PRIVATE KEY-----\n" +
			"not a real key\n-----END OPENSSH PRIVATE KEY-----\n"),
		"links/repo/kube-proxy.yaml": []byte(KubeProxyIPVS),
	}
	for i := range 30 {
		files[fmt.Sprintf("aliases/many/bomb%02d.yaml", i)] = AliasBomb("Foo", 1, 8<<10, 31, 4)
	}
	for _, n := range InjectionNames {
		files["names/"+n] = []byte(KubeProxyIPVS)
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return err
		}
	}
	repo := filepath.Join(dir, "links", "repo")
	for link, target := range map[string]string{
		".kube-proxy-lint.yaml": filepath.Join("..", "outside", "id_ed25519"),
		".gitignore":            "/dev/zero",
		"results.sarif":         filepath.Join("..", "outside", "id_ed25519"),
	} {
		p := filepath.Join(repo, link)
		_ = os.Remove(p)
		if err := os.Symlink(target, p); err != nil {
			return err
		}
	}
	return nil
}
