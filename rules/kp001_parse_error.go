package rules

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// KP001 reports manifests and kube-proxy configurations that cannot be decoded.
var KP001 = &checker.Rule{
	ID:       "KP001",
	Name:     "parse-error",
	Severity: checker.SeverityError,
	Kinds:    []string{"KubeProxyConfiguration", "ConfigMap", "DaemonSet", "Pod", "Deployment", "StatefulSet", "ReplicaSet", "Job", "CronJob", "Service"},
	Doc: withProse("kp001_parse_error.md", checker.Doc{
		Title:  "manifest or kube-proxy configuration cannot be decoded",
		Before: "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnodePortAddresses: [10.0.0.0/8, 192.168.0.0/16\nconntrack:\n  maxPerCore: lots\n",
		After:  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnodePortAddresses: [10.0.0.0/8, 192.168.0.0/16]\nconntrack:\n  maxPerCore: 32768\n",
		Since:  "0.1.0",
	}),
	Run: runKP001,
}

var (
	// kp001TemplateRe matches template placeholders (Helm, Jinja2, ERB, shell-style).
	kp001TemplateRe = regexp.MustCompile(`\{\{|\{%|<%|\$\{[A-Za-z_]|@@[A-Za-z_]`)
	// kp001TypeRe matches the loader's type error wording, to add the offending value.
	kp001TypeRe = regexp.MustCompile(`cannot use (\w+) value as`)
	// kp001DurationRe matches a duration parse error; the loader places it on the value.
	kp001DurationRe = regexp.MustCompile(`^cannot decode (\S+): (\S+): time: (.*) in duration "([^"]*)"$`)
	// kp001DurationFieldRe matches type errors on fields that hold durations.
	kp001DurationFieldRe = regexp.MustCompile(`(Period|Timeout|Frequency|Duration|Deadline): cannot use`)
)

func runKP001(p *checker.Pass) error {
	files := map[string]*checker.File{}
	for _, f := range p.Workspace.Files {
		files[f.Path] = f
	}
	if !slices.ContainsFunc(p.Workspace.Problems, func(pr checker.LoadProblem) bool { return pr.Manifest }) {
		return nil // no problem to judge: the related documents need not be found
	}
	related := kp001RelatedDocs(p.Workspace)
	for _, pr := range p.Workspace.Problems {
		if !pr.Manifest {
			continue
		}
		f := files[pr.Pos.Filename]
		if pr.Document != nil && !related[pr.Document] {
			// A Deployment with a <CPU_REQUESTS> placeholder is not ours to judge.
			continue
		}
		if pr.Document == nil && (f == nil || !kp001Related(f.Content)) {
			// A broken file that says nothing of kube-proxy or an installer: a notice only.
			continue
		}
		if f != nil && f.Templated && kp001NearTemplate(f, pr.Pos.Line) {
			// A placeholder such as `replicas: {{ .Values.n }}` decodes as a mapping: the
			// template engine, not the YAML, decides what the value becomes.
			continue
		}
		fd := checker.Finding{Pos: pr.Pos, Message: pr.Message}
		if d := pr.Document; d != nil {
			fd.Object = d.Ref()
			kp001Locate(d, &fd)
		}
		if !fd.End.IsValid() && f != nil {
			fd.End = kp001LineEnd(f, fd.Pos)
		}
		p.Report(fd)
	}
	return nil
}

// kp001RelatedRe matches files that concern kube-proxy or an installer that configures it.
// kp001RelatedWords are the words, in lower case, that make a file's DaemonSets, Pods and
// ConfigMaps worth judging (matched case-insensitively).
var kp001RelatedWords = [][]byte{[]byte("kubeproxy"), []byte("kube-proxy"), []byte("kube_proxy"), []byte("proxy-mode"), []byte("proxymode"),
	[]byte("kubeadm.k8s.io"), []byte("kind.x-k8s.io"), []byte("kops.k8s.io"), []byte("talos.dev"), []byte("eksctl.io"), []byte("k3s"),
	[]byte("rke2"), []byte("kubespray")}

// kp001Related reports whether content names one of kp001RelatedWords in any case. (It was a
// case-insensitive regular expression, which Go runs byte by byte: 40% of a large run.)
func kp001Related(content []byte) bool {
	return kp001RelatedIn(content, nil)
}

// kp001RelatedIn is kp001Related lowering ASCII content into *buf, reused from file to file
// (one lowered copy of every DaemonSet, Pod and ConfigMap file was the largest allocation of
// the rules on large repositories, issue 24); other content is lowered by bytes.ToLower.
func kp001RelatedIn(content []byte, buf *[]byte) bool {
	var lower []byte
	ascii := buf != nil
	for _, c := range content {
		if c >= 0x80 {
			ascii = false
			break
		}
	}
	if ascii {
		lower = append((*buf)[:0], content...)
		for i, c := range lower {
			if 'A' <= c && c <= 'Z' {
				lower[i] = c + 'a' - 'A'
			}
		}
		*buf = lower
	} else {
		lower = bytes.ToLower(content)
	}
	for _, w := range kp001RelatedWords {
		if bytes.Contains(lower, w) {
			return true
		}
	}
	return false
}

// kp001RelatedDocs are the documents KP001 judges: kube-proxy configurations, the workloads
// and ConfigMaps of kube-proxy instances, installer configs, and documents of files that name
// kube-proxy.
func kp001RelatedDocs(ws *checker.Workspace) map[*checker.Document]bool {
	out := map[*checker.Document]bool{}
	for _, in := range ws.Instances {
		for _, d := range []*checker.Document{in.Workload, in.Config} {
			for ; d != nil; d = d.Parent {
				out[d] = true
			}
		}
		if in.Installer != nil && in.Installer.Doc != nil {
			out[in.Installer.Doc] = true
		}
	}
	related := map[*checker.File]bool{} // per file, not per document: files hold many
	var buf []byte
	for _, d := range ws.Docs {
		if out[d] {
			continue
		}
		if d.Kind == "KubeProxyConfiguration" || strings.Contains(d.Name, "kube-proxy") || strings.Contains(d.APIVersion, "kubeadm.k8s.io") ||
			strings.Contains(d.APIVersion, "kind.x-k8s.io") || strings.Contains(d.APIVersion, "kops.k8s.io") || strings.Contains(d.APIVersion, "eksctl.io") {
			out[d] = true
			continue
		}
		if d.Kind == "DaemonSet" || d.Kind == "Pod" || d.Kind == "ConfigMap" {
			f := d.File.Outer()
			r, seen := related[f]
			if !seen {
				r = kp001RelatedIn(f.Content, &buf)
				related[f] = r
			}
			if r {
				out[d] = true
			}
		}
	}
	return out
}

// kp001Locate refines a type error: it names the offending value, and moves duration errors
// (which the loader reports on the kind line) to the value that failed to parse.
func kp001Locate(d *checker.Document, fd *checker.Finding) {
	if m := kp001DurationRe.FindStringSubmatch(fd.Message); m != nil {
		if n := kp001NodeAt(d, d.Node, fd.Pos); n != nil {
			fd.End = d.NodeEnd(n)
		}
		fd.Message = fmt.Sprintf("cannot decode %s: %s: %q is not a duration (%s; use a unit such as 30s or 1m)", m[1], m[2], m[4], m[3])
		return
	}
	n := kp001NodeAt(d, d.Node, fd.Pos)
	if n == nil {
		return
	}
	fd.End = d.NodeEnd(n)
	if n.Kind == yaml.ScalarNode && kp001TypeRe.MatchString(fd.Message) {
		typ := kp001TypeRe.FindStringSubmatch(fd.Message)[1]
		fd.Message = kp001TypeRe.ReplaceAllLiteralString(fd.Message, "cannot use "+typ+" value "+fmt.Sprintf("%q", n.Value)+" as")
		if typ == "number" && strings.HasSuffix(fd.Message, " as string") && kp001DurationFieldRe.MatchString(fd.Message) {
			fd.Message += " (a duration needs a unit, such as " + n.Value + "s)"
		}
	}
}

// kp001NodeAt returns the first value node (not a mapping key) that starts at pos, if any.
func kp001NodeAt(d *checker.Document, n *yaml.Node, pos checker.Position) *yaml.Node {
	if n == nil || n.Kind == yaml.AliasNode {
		return nil
	}
	if d.NodePos(n).Offset == pos.Offset {
		return n
	}
	for i, c := range n.Content {
		if n.Kind == yaml.MappingNode && i%2 == 0 {
			continue // keys are never the offending value
		}
		if f := kp001NodeAt(d, c, pos); f != nil {
			return f
		}
	}
	return nil
}

// kp001NearTemplate reports whether a template placeholder is within a line of line.
func kp001NearTemplate(f *checker.File, line int) bool {
	var b strings.Builder
	for l := max(1, line-2); l <= line+1 && l <= f.Lines.Lines(); l++ {
		b.WriteString(f.Lines.LineText(l))
		b.WriteByte('\n')
	}
	return kp001TemplateRe.MatchString(b.String())
}

// kp001LineEnd returns the end of pos's line (without the line break).
func kp001LineEnd(f *checker.File, pos checker.Position) checker.Position {
	if pos.Line < 1 {
		return pos
	}
	text := f.Lines.LineText(pos.Line)
	return f.Lines.Position(f.Path, f.Lines.LineStart(pos.Line)+len(text))
}
