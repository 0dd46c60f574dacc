package load

import (
	"bytes"
	"path"
	"regexp"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

func init() {
	textDecoders = append(textDecoders, decodeHeredocs)
}

// decodeHeredocs decodes the KubeProxyConfiguration documents (alone or in a kubeadm
// multi-document config) that a script writes with a heredoc (cat <<EOF, <<-EOF, quoted
// delimiters) as documents of the script: each lives in a virtual file whose offsets map to
// the body's bytes in the script, so findings point into the script. A text file with
// template placeholders is marked Templated.
func decodeHeredocs(f *checker.File) []checker.LoadProblem {
	d := shell.DialectOf(f.Path, f.Content)
	neutral := shell.Neutralize(f.Content)
	if neutral != nil {
		f.Templated = true
	}
	if d == shell.DialectNone || d == shell.DialectFlags || !bytes.Contains(f.Content, []byte("<<")) || !heredocWorthDecoding(f.Content) {
		return nil
	}
	return decodeScriptHeredocs(f, lexScript(f, d))
}

// kubeadmClusterRe finds a kubeadm ClusterConfiguration: kubeadm writes kube-proxy's
// configuration from it, so one in a heredoc is a kube-proxy setting even without a
// KubeProxyConfiguration beside it (KP101 when none follows).
var kubeadmClusterRe = regexp.MustCompile(`kind:\s*["']?ClusterConfiguration`)

// heredocWorthDecoding reports whether b (a script or a heredoc body) may hold a document
// about kube-proxy: a KubeProxyConfiguration, a kubeadm ClusterConfiguration or a kind
// Cluster (cat <<EOF | kind create cluster --config=-).
func heredocWorthDecoding(b []byte) bool {
	return looksLikeKPC(b) || bytes.Contains(b, []byte("kubeadm.k8s.io/")) && kubeadmClusterRe.Match(b) || holdsKindCluster(b)
}

// decodeScriptHeredocs decodes the KubeProxyConfiguration heredocs of script s, lexed from
// f, into f.Docs.
func decodeScriptHeredocs(f *checker.File, s *shell.Script) []checker.LoadProblem {
	var probs []checker.LoadProblem
	var vars *heredocVars
	for i := range s.Heredocs {
		h := &s.Heredocs[i]
		if !heredocWorthDecoding(h.Body) {
			continue
		}
		body, bodyOffs := h.Body, h.Offs
		if !h.Quoted && bytes.IndexByte(body, '$') >= 0 {
			// mode: $MODE where the script assigns MODE a literal: the assignment's value
			// is the mode, positioned there.
			if vars == nil {
				vars = &heredocVars{f: f, s: s}
			}
			body, bodyOffs = vars.substitute(body, bodyOffs)
		}
		inner := &checker.File{Path: f.Path, Content: body, Parent: f, ParentOffsets: bodyOffs}
		var open []text.OpenPlaceholder
		var subst []text.TemplateSpan
		if !h.Quoted {
			// The shell expands an unquoted body: its $(...), backquotes and ${...} are
			// placeholders (a `hostname` value is no YAML error).
			subst = shellExpansionSpans(body)
		}
		if m := text.MaskTemplateWith(body, subst); m != nil {
			// Template placeholders in the script are placeholders in the body too: decode
			// the YAML-safe masked body, mapped through the body to the script.
			offs := m.Map.Table()
			for k, o := range offs {
				offs[k] = bodyOffs[min(o, len(bodyOffs)-1)]
			}
			inner.Content, inner.ParentOffsets, inner.Masked = m.Content, offs, true
			open = m.Open
		}
		inner.Lines = text.NewLineIndex(inner.Content)
		if !h.Quoted && (bytes.Contains(h.Body, []byte("$")) || bytes.Contains(h.Body, []byte("`"))) {
			// The shell expands the body: $VAR and $(...) are placeholders.
			f.Templated = true
		}
		probs = append(probs, parseFile(inner)...)
		if inner.Masked {
			restorePlaceholders(inner, inner.Docs)
			inner.Open = open
			markOpen(inner, inner.Docs)
		}
		for _, doc := range inner.Docs {
			probs = append(probs, decodeDoc(doc)...)
			f.Docs = append(f.Docs, doc)
		}
	}
	return probs
}

// heredocTargets maps the cleaned path a heredoc is written to (cat > PATH <<EOF,
// tee PATH <<EOF) to the documents decoded from it, over every text file.
func heredocTargets(ws *checker.Workspace) map[string][]*checker.Document {
	out := map[string][]*checker.Document{}
	for _, f := range ws.Files {
		if f.Format != checker.FormatText || len(f.Docs) == 0 {
			continue
		}
		d := shell.DialectOf(f.Path, f.Content)
		s := lexScript(f, d)
		for _, h := range s.Heredocs {
			if h.Command < 0 || h.Command >= len(s.Commands) || len(h.Offs) == 0 {
				continue
			}
			target := writeTarget(&s.Commands[h.Command])
			if target == "" {
				continue
			}
			for _, doc := range f.Docs {
				if len(doc.File.ParentOffsets) > 0 && doc.File.ParentOffsets[0] == h.Offs[0] {
					out[target] = append(out[target], doc)
				}
			}
		}
	}
	return out
}

// writeTarget returns the file a command writes its input to: the target of > or >>, or the
// first file argument of tee.
func writeTarget(c *shell.Command) string {
	for _, r := range c.Redirects {
		if (r.Op == ">" || r.Op == ">>" || r.Op == ">|") && r.Target.Text != "" {
			return path.Clean(r.Target.Text)
		}
	}
	if c.Name() == "tee" {
		for _, w := range c.Words[c.Program()+1:] {
			if !strings.HasPrefix(w.Text, "-") {
				return path.Clean(w.Text)
			}
		}
	}
	return ""
}

// scriptOf returns f's shell commands in dialect d, parsed once per file and shared
// (checker.File.Memo) by the readers that ask for it again, a flag or a heredoc at a time,
// until the end of loading (forgetLoadMemos).
func scriptOf(f *checker.File, d shell.Dialect) *shell.Script {
	return f.Memo(shell.MemoKey{Dialect: d}, func() any { return shell.ParseFile(d, f.Content) }).(*shell.Script)
}

// lexScript returns f's shell commands in dialect d for a reader that goes through every
// script once (heredocs while a file loads, mode switches, kube-proxy command lines, heredoc
// targets): the lexing scriptOf shares when a reader made one, else one of its own that is
// not kept. Shared, the lexings of every script were held from the first of these readers
// to the end of loading: 100 MB at 100,000 files, where that run's peak was (issue 24
// phase 8). Each reader now lexes the scripts it reads again, a few hundred milliseconds
// of CPU at 100,000 files, and at most one is held per loading goroutine.
func lexScript(f *checker.File, d shell.Dialect) *shell.Script {
	if s, ok := f.Memoized(shell.MemoKey{Dialect: d}); ok {
		return s.(*shell.Script)
	}
	return shell.ParseFile(d, f.Content)
}

// shellExpansionSpans finds the expansions the shell performs in an unquoted heredoc body:
// command substitutions $(...) and `...`, arithmetic $((...)) and parameter expansions
// ${...}, each with its nesting and quotes. A backslash escapes the next byte; an expansion
// that does not close is left alone (the YAML around it decides).
func shellExpansionSpans(body []byte) []text.TemplateSpan {
	if bytes.IndexByte(body, '$') < 0 && bytes.IndexByte(body, '`') < 0 {
		return nil
	}
	var out []text.TemplateSpan
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			i++
		case c == '`':
			j := i + 1
			for j < len(body) && body[j] != '`' {
				if body[j] == '\\' {
					j++
				}
				j++
			}
			if j < len(body) {
				out = append(out, text.TemplateSpan{From: i, To: j + 1, Output: true})
				i = j
			}
		case c == '$' && i+1 < len(body) && (body[i+1] == '(' || body[i+1] == '{'):
			if j := closeExpansion(body, i+1); j > 0 {
				out = append(out, text.TemplateSpan{From: i, To: j, Output: true})
				i = j - 1
			}
		}
	}
	return out
}

// closeExpansion returns the offset after the bracket that closes the one at open, or -1,
// skipping quoted text and escaped bytes inside.
func closeExpansion(b []byte, open int) int {
	o, c := b[open], byte(')')
	if o == '{' {
		c = '}'
	}
	depth := 0
	for i := open; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '\'':
			if o == '(' {
				k := bytes.IndexByte(b[i+1:], '\'')
				if k < 0 {
					return -1
				}
				i += k + 1
			}
		case '"':
			k := i + 1
			for k < len(b) && b[k] != '"' {
				if b[k] == '\\' {
					k++
				}
				k++
			}
			if k >= len(b) {
				return -1
			}
			i = k
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return -1
}
