package load

import (
	"bytes"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Terraform heredoc strings that hold a document (issue 21 item 1): a KubeProxyConfiguration
// or kubeadm configuration (kubeadm_config = <<-EOF), cloud-init user data whose write_files
// hold one (user_data = <<EOF), a Talos machine-config patch (config_patches = [<<EOT …]). The
// heredoc's body is a virtual file of the Terraform file, mapped byte for byte (an indented
// <<- heredoc loses its common indentation, which the map skips), so findings point into the
// .tf file; ${…} and %{…} are template placeholders. Only bodies that parse cleanly into those
// documents are kept. Quoted strings are not read: a document in one needs \n escapes, which
// the map cannot align. TOML and INI string values are not read at all (the loader reads no
// TOML or INI values beyond containerd's hosts and kubespray's inventories).

func init() {
	// A Terraform file is Terraform even when a heredoc holds "kind: KubeProxyConfiguration":
	// read as YAML it was a false KP001.
	textFirst = append(textFirst, func(name string, _ []byte) bool { return isTerraformName(name) })
	textDecoders = append(textDecoders, decodeHCLStrings)
}

// mayHoldDocument is the cheap test of a Terraform file or a heredoc body.
func mayHoldDocument(b []byte) bool {
	return bytes.Contains(b, []byte("KubeProxyConfiguration")) || bytes.Contains(b, []byte("kubeadm.k8s.io/")) ||
		bytes.Contains(b, []byte("proxy")) && bytes.Contains(b, []byte("cluster"))
}

// decodeHCLStrings decodes the documents of a Terraform file's heredocs into f.Docs.
func decodeHCLStrings(f *checker.File) []checker.LoadProblem {
	if !isTerraformName(f.Path) || !bytes.Contains(f.Content, []byte("<<")) || !mayHoldDocument(f.Content) {
		return nil
	}
	if _, ok := hclNestingWithin(f.Content, maxHCLNesting); !ok {
		return nil // checkTerraformNesting reports it
	}
	file, diags := hclsyntax.ParseConfig(f.Content, f.Path, hcl.InitialPos)
	if diags.HasErrors() || file == nil {
		return nil
	}
	body, ok := file.Body.(*hclsyntax.Body)
	if !ok {
		return nil
	}
	var probs []checker.LoadProblem
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if te, ok := n.(*hclsyntax.TemplateExpr); ok {
			probs = append(probs, decodeHeredocString(f, te.SrcRange)...)
		}
		return nil
	})
	return probs
}

// heredocBody returns the body of the heredoc at r of src with its byte offsets in src (one
// extra entry for the end), its common indentation removed for <<-; false when r is no
// heredoc or its indentation mixes tabs in.
func heredocBody(src []byte, r hcl.Range) ([]byte, []int, bool) {
	h := src[r.Start.Byte:r.End.Byte]
	if !bytes.HasPrefix(h, []byte("<<")) {
		return nil, nil, false
	}
	flush := bytes.HasPrefix(h, []byte("<<-"))
	open := bytes.IndexByte(h, '\n')
	closing := bytes.LastIndexByte(h, '\n')
	if open < 0 || closing < open {
		return nil, nil, false
	}
	start, end := r.Start.Byte+open+1, r.Start.Byte+closing+1
	lines := bytes.SplitAfter(src[start:end], []byte("\n"))
	indent := 0
	if flush {
		indent = -1
		for _, l := range lines {
			t := bytes.TrimLeft(l, " ")
			if len(bytes.TrimSpace(t)) == 0 {
				continue
			}
			if t[0] == '\t' {
				return nil, nil, false
			}
			if n := len(l) - len(t); indent < 0 || n < indent {
				indent = n
			}
		}
		indent = max(indent, 0)
	}
	var out []byte
	var offs []int
	at := start
	for _, l := range lines {
		skip := 0
		for skip < indent && skip < len(l) && l[skip] == ' ' {
			skip++
		}
		for i := skip; i < len(l); i++ {
			out = append(out, l[i])
			offs = append(offs, at+i)
		}
		at += len(l)
	}
	offs = append(offs, at)
	return out, offs, true
}

// decodeHeredocString decodes the heredoc at r of Terraform file f when it holds a document
// about kube-proxy.
func decodeHeredocString(f *checker.File, r hcl.Range) []checker.LoadProblem {
	body, offs, ok := heredocBody(f.Content, r)
	if !ok || !mayHoldDocument(body) || bytes.Contains(body, []byte("$${")) || bytes.Contains(body, []byte("%%{")) {
		return nil
	}
	s := string(body)
	talos := maybeTalosFragment(s)
	if !holdsConfig(s) && !talos {
		return nil
	}
	inner := &checker.File{Path: f.Path, Content: body, Parent: f, ParentOffsets: offs}
	inner.Lines = text.NewLineIndex(inner.Content)
	if ps := parseFile(inner); len(ps) > 0 || len(inner.Docs) == 0 {
		return nil // not a clean document: left alone rather than reported
	}
	var probs []checker.LoadProblem
	for _, d := range inner.Docs {
		probs = append(probs, decodeDoc(d)...)
		switch {
		case d.Kind == "KubeProxyConfiguration" || isKubeadm(d):
		case talos && (isTalosStrategicFragment(d.Node) || isTalosKubeProxyConfig(d.Node) || talosJSONPatch(d.Node)):
		case d.Kind == "" && d.File.EmbedDepth() < maxEmbedDepth:
			// Cloud-init user data (or another document without a kind) whose strings hold
			// the configuration: decodeDoc leaves embedded files' strings alone.
			probs = append(probs, decodeBlocks(d)...)
			if len(d.Embedded) == 0 {
				continue
			}
		default:
			continue
		}
		f.Docs = append(f.Docs, d)
	}
	return probs
}
