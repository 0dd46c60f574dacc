package load

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"

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
// .tf file; ${…} and %{…} are template placeholders. yamlencode({…}) and jsonencode({…})
// objects are written out as flow YAML mapped to their HCL tokens (decodeEncodedObject). Only
// text that parses cleanly into those documents is kept. Quoted strings are not read: a
// document in one needs \n escapes, which the map cannot align. TOML and INI string values are
// not read at all (the loader reads no TOML or INI values beyond containerd's hosts and
// kubespray's inventories).

func init() {
	// A Terraform file is Terraform even when a heredoc holds "kind: KubeProxyConfiguration":
	// read as YAML it was a false KP001.
	textFirst = append(textFirst, func(name string, _ []byte) bool { return isTerraformName(name) })
	textDecoders = append(textDecoders, decodeHCLStrings)
}

// mayHoldDocument is the cheap test of a Terraform file or a heredoc body.
func mayHoldDocument(b []byte) bool {
	return bytes.Contains(b, []byte("KubeProxyConfiguration")) || bytes.Contains(b, []byte("kubeadm.k8s.io/")) ||
		bytes.Contains(b, []byte("proxy")) && bytes.Contains(b, []byte("cluster")) || namesInstallerGroup(b)
}

// namesInstallerGroup reports whether b names the API group of an installer document that
// strings may hold whole (embedded_blocks.go, installerDocRe).
func namesInstallerGroup(b []byte) bool {
	return bytes.Contains(b, []byte("k0s.k0sproject.io/")) || bytes.Contains(b, []byte("kops.k8s.io/")) ||
		bytes.Contains(b, []byte("core.gardener.cloud/"))
}

// isInstallerDocument reports whether d is a whole installer document that names its
// installer by apiVersion and kind: a k0s ClusterConfig, a kops Cluster, a Gardener Shoot.
func isInstallerDocument(d *checker.Document) bool {
	switch d.Kind {
	case "ClusterConfig":
		return strings.HasPrefix(d.APIVersion, "k0s.k0sproject.io/")
	case "Cluster":
		return strings.HasPrefix(d.APIVersion, "kops.k8s.io/")
	case "Shoot":
		return strings.HasPrefix(d.APIVersion, "core.gardener.cloud/")
	}
	return false
}

// decodeHCLStrings decodes the documents of a Terraform file's heredocs into f.Docs.
func decodeHCLStrings(f *checker.File) []checker.LoadProblem {
	if !isTerraformName(f.Path) || !bytes.Contains(f.Content, []byte("<<")) && !bytes.Contains(f.Content, []byte("encode(")) ||
		!mayHoldDocument(f.Content) {
		return nil
	}
	body, ok := parseHCL(f)
	if !ok {
		return nil
	}
	var probs []checker.LoadProblem
	n0 := len(f.Docs)
	defer func() {
		// A body's attributes are a map: the walk's order is not the file's. The documents
		// go in the order of their text, each with its index in the file.
		added := f.Docs[n0:]
		sort.SliceStable(added, func(i, j int) bool { return docStart(added[i]) < docStart(added[j]) })
		for i, d := range added {
			d.Index = n0 + i
		}
	}()
	_ = hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		switch x := n.(type) {
		case *hclsyntax.TemplateExpr:
			probs = append(probs, decodeHeredocString(f, x.SrcRange)...)
		case *hclsyntax.FunctionCallExpr:
			if (x.Name == "yamlencode" || x.Name == "jsonencode") && len(x.Args) == 1 {
				probs = append(probs, decodeEncodedObject(f, x.Args[0])...)
			}
		}
		return nil
	})
	return probs
}

// decodeEncodedObject decodes the object or tuple that yamlencode(…) or jsonencode(…) turns
// into a string (config_patches = [yamlencode({cluster = {proxy = {mode = "ipvs"}}})]) when it
// is a document about kube-proxy: the expression is written out as a flow YAML document whose
// bytes map to the HCL tokens they come from (literal strings byte for byte), values that are
// not literals (references, calls, interpolations) as placeholders.
func decodeEncodedObject(f *checker.File, e hclsyntax.Expression) []checker.LoadProblem {
	r := e.Range()
	src := f.Content[r.Start.Byte:r.End.Byte]
	if !mayHoldDocument(src) {
		return nil
	}
	switch e.(type) {
	case *hclsyntax.ObjectConsExpr, *hclsyntax.TupleConsExpr:
	default:
		return nil
	}
	s := &hclSynth{src: f.Content}
	if !s.expr(e, 0) {
		return nil
	}
	s.offs = append(s.offs, r.End.Byte)
	return decodeSynthesized(f, s.out, s.offs, holdsKPCObject(src) || bytes.Contains(src, []byte("kubeadm.k8s.io/")) || namesInstallerGroup(src))
}

// holdsKPCObject is the cheap test of an HCL object that names a KubeProxyConfiguration.
func holdsKPCObject(src []byte) bool { return bytes.Contains(src, []byte("KubeProxyConfiguration")) }

// hclSynth writes an HCL object or tuple expression as flow YAML with a byte map to the
// source.
type hclSynth struct {
	src  []byte
	out  []byte
	offs []int
}

// emit appends b with every byte mapped to source offset at.
func (s *hclSynth) emit(b string, at int) {
	s.out = append(s.out, b...)
	for range len(b) {
		s.offs = append(s.offs, at)
	}
}

// emitSource appends the source bytes [from, to) mapped to themselves.
func (s *hclSynth) emitSource(from, to int) {
	s.out = append(s.out, s.src[from:to]...)
	for i := from; i < to; i++ {
		s.offs = append(s.offs, i)
	}
}

// jsonString is v as a JSON string, without HTML escaping.
func jsonString(v string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// str writes the string value of expression range r: the source itself when the source is
// the same JSON string (every byte maps exactly), else the encoded value mapped to its start.
func (s *hclSynth) str(v string, r hcl.Range) {
	j := jsonString(v)
	if string(s.src[r.Start.Byte:r.End.Byte]) == j {
		s.emitSource(r.Start.Byte, r.End.Byte)
		return
	}
	if string(s.src[r.Start.Byte:r.End.Byte]) == v && !strings.ContainsAny(v, `\"`) {
		// A bare identifier key (mode = …): quoted here, the name maps to itself.
		s.emit(`"`, r.Start.Byte)
		s.emitSource(r.Start.Byte, r.End.Byte)
		s.emit(`"`, r.End.Byte)
		return
	}
	s.emit(j, r.Start.Byte)
}

// expr writes e; false when it cannot be written as YAML (a computed key, too deep).
func (s *hclSynth) expr(e hclsyntax.Expression, depth int) bool {
	if depth > 64 {
		return false
	}
	r := e.Range()
	switch x := e.(type) {
	case *hclsyntax.ObjectConsExpr:
		s.emit("{", r.Start.Byte)
		for i, it := range x.Items {
			kr := it.KeyExpr.Range()
			if i > 0 {
				s.emit(", ", kr.Start.Byte)
			}
			k, ok := tfKey(it.KeyExpr)
			if !ok {
				return false
			}
			s.str(k, kr)
			s.emit(": ", kr.End.Byte)
			if !s.expr(it.ValueExpr, depth+1) {
				return false
			}
		}
		s.emit("}", r.End.Byte-1)
	case *hclsyntax.TupleConsExpr:
		s.emit("[", r.Start.Byte)
		for i, it := range x.Exprs {
			if i > 0 {
				s.emit(", ", it.Range().Start.Byte)
			}
			if !s.expr(it, depth+1) {
				return false
			}
		}
		s.emit("]", r.End.Byte-1)
	case *hclsyntax.ParenthesesExpr:
		return s.expr(x.Expression, depth+1)
	default:
		v, ok := tfString(e)
		switch {
		case !ok:
			// A reference, a call, an interpolation: unknown until Terraform runs, a
			// placeholder that shows the expression when it reads well in one.
			src := string(s.src[r.Start.Byte:r.End.Byte])
			if len(src) > 80 || strings.ContainsAny(src, "\"\\\n{}") {
				src = "terraform"
			}
			s.emit(`"${`+src+`}"`, r.Start.Byte)
		case isTemplateExpr(e):
			s.str(v, r)
		default:
			s.emitSource(r.Start.Byte, r.End.Byte) // a number or a bool as written
		}
	}
	return true
}

// docStart is the offset in the real file where document d's text starts.
func docStart(d *checker.Document) int {
	if d.Node == nil {
		return d.File.OuterOffset(0)
	}
	return d.File.OuterOffset(d.File.Lines.LineStart(d.Node.Line) + max(d.Node.Column-1, 0))
}

// isTemplateExpr reports whether e is a string (a quoted template or heredoc) rather than a
// number or bool.
func isTemplateExpr(e hclsyntax.Expression) bool {
	_, ok := e.(*hclsyntax.TemplateExpr)
	return ok
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
	if !holdsConfig(s) && !maybeTalosFragment(s) {
		return nil
	}
	return decodeSynthesized(f, body, offs, holdsConfig(s))
}

// decodeSynthesized decodes the virtual file body (offsets offs in f) and keeps the documents
// about kube-proxy in f.Docs: a KubeProxyConfiguration or kubeadm config (when config says the
// text names one), a Talos fragment, or a document without a kind whose strings hold one.
func decodeSynthesized(f *checker.File, body []byte, offs []int, config bool) []checker.LoadProblem {
	talos := maybeTalosFragment(string(body))
	inner := &checker.File{Path: f.Path, Content: body, Parent: f, ParentOffsets: offs}
	inner.Lines = text.NewLineIndex(inner.Content)
	if ps := parseFile(inner); len(ps) > 0 || len(inner.Docs) == 0 {
		return nil // not a clean document: left alone rather than reported
	}
	var probs []checker.LoadProblem
	for _, d := range inner.Docs {
		probs = append(probs, decodeDoc(d)...)
		switch {
		case config && (d.Kind == "KubeProxyConfiguration" || isKubeadm(d) || isInstallerDocument(d)):
		case talos && (isTalosStrategicFragment(d.Node) || isTalosKubeProxyConfig(d.Node) || talosJSONPatch(d.Node)):
		case config && d.Kind == "" && d.File.EmbedDepth() < maxEmbedDepth:
			// Cloud-init user data (or another document without a kind) whose strings hold
			// the configuration: decodeDoc leaves embedded files' strings alone.
			probs = append(probs, decodeBlocks(d)...)
			if len(d.Embedded) == 0 {
				continue
			}
		default:
			continue
		}
		// Its index in the Terraform file, not in its string, is set once all are read:
		// documents are identified by file and index (Rego's input ids).
		f.Docs = append(f.Docs, d)
	}
	return probs
}
