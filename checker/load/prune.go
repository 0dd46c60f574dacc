package load

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/safefile"
)

// Pruning. Most documents of a large repository are application workloads and RBAC that no
// rule reads past their metadata, yet their node trees were most of a run's memory (half the
// nodes of the benchmark corpus are Deployments). Once a file is decoded, the documents of
// the kinds below whose lines hold none of pruneKeep's words keep only a header: their
// apiVersion, kind, name and namespace (Document fields) and their root node, where it was,
// enough for scopes, references and document ranges; their typed object is dropped (a
// suppression annotation's key names kube-proxy, a word of pruneKeep, so a document that has
// one is never pruned). The words are those every rule and built-in policy looks for in
// workloads (kube-proxy itself, host networking, loopback addresses, the chains, sets and
// tools of each mode, the replacements of kube-proxy, apiserver NodePort ranges): a file that
// names one keeps its tree. A rule that reads other workloads must add its word here; the
// rule fixtures run with pruning on, so a missing word fails them. Repository Rego policies
// may read any document: Options.KeepTrees turns pruning off for them.

// pruneKinds are the kinds whose trees are pruned: workloads other than DaemonSets and Pods
// (kube-proxy's own kinds, kept whole), PrometheusRules, and kinds no rule reads.
var pruneKinds = map[string]bool{
	"Deployment": true, "StatefulSet": true, "ReplicaSet": true, "Job": true, "CronJob": true,
	"HorizontalPodAutoscaler": true, "PodDisruptionBudget": true, "NetworkPolicy": true, "Ingress": true,
	"ServiceAccount": true, "Role": true, "RoleBinding": true, "ClusterRole": true, "ClusterRoleBinding": true,
	"PersistentVolumeClaim": true, "PersistentVolume": true, "StorageClass": true, "PriorityClass": true,
	"ResourceQuota": true, "LimitRange": true, "IngressClass": true, "Namespace": true,
	// Alert and recording rules matter only with a kube-proxy metric (KP501, KP502).
	"PrometheusRule": true,
	// Kustomizations (kustomize's and Flux's): no reader looks inside one; the cluster model
	// reads overlays from their directories.
	"Kustomization": true,
}

// pruneHolders are the kinds that hold other configurations in their strings: a ConfigMap's
// or Secret's data (an application's properties, a dashboard, a script, cloud-init). Their
// embedded documents are decoded with the file (a document that has any keeps its tree);
// what the readers that run once every file is loaded look for in strings names a word of
// pruneKeep (kube-proxy flags, scripts, chains, loopback registries) or of holderKeep
// (installers' command lines and configurations: kubeadm, k3s, RKE2, k0s, kops, Talos and its
// proxy key or patch path, kind, Cluster API) or is a document (an apiVersion besides the holder's own), so a holder that
// names none is pruned like the kinds above.
var pruneHolders = map[string]bool{"ConfigMap": true, "Secret": true}

// holderKeep are the words that keep a holder's tree (see pruneHolders).
var holderKeep = newWords(
	"proxy:", "/proxy", "\"proxy\"", "Proxy", "kubeadm", "k3s", "rke2", "k0s", "kops",
	"talos", "Talos", "machine:", "x-k8s.io", "kubelet", "cloud-config",
	"runcmd", "#!",
)

// versionKeep are the names of the images whose tag is a version source besides kube-proxy's
// (controlPlaneImages: a hosted control plane's kube-apiserver Deployment): a workload that
// names one is not pruned to a header, and keeps its containers' images (keepWorkloadFacts).
var versionKeep = func() *words {
	var out []string
	for name := range controlPlaneImages {
		if !mentionsString(name, pruneKeep) {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return newWords(out...)
}()

// holdsDocument reports whether a holder's text names an apiVersion besides its own.
func holdsDocument(text []byte) bool { return bytes.Count(text, []byte("apiVersion")) > 1 }

// pruneKeep are the words that keep every tree of a file.
var pruneKeep = newWords(
	"kube-proxy", "kubeproxy", "kube_proxy", "KubeProxy", "proxy-mode", "proxyMode",
	"hostNetwork", "localhost", "127.", v6Loopback, "[0:0:0:0:0:0:0:1]",
	"iptables", "ipvs", "IPVS", "ipset", "nft", "conntrack", "KUBE-",
	"service-node-port-range",
	"cilium", "calico", "antrea", "kube-router", "kube-ovn", "replacement",
	"kubeproxy_",
)

// isKubeconfig reports whether d is a kubeconfig (kind Config of v1): kube-proxy's ConfigMap
// carries one beside its configuration (kubeconfig.conf), and no rule reads it (KubeKey's
// Config has an apiVersion of its own). An embedded one keeps its header (issue 24 phase 8:
// 43,000 nodes at 100,000 files); its ConfigMap keeps its tree and text.
func isKubeconfig(d *checker.Document) bool {
	return d.Kind == "Config" && d.APIVersion == "v1" && !d.Pruned && d.Node != nil
}

// pruneKeepTemplated: a template placeholder may render into any of pruneKeep's words, so a
// document with one keeps its tree; not an alert rule, whose {{ $labels.x }} is Prometheus'
// own templating and whose placeholders KP501 and KP502 cannot read anyway.
var pruneKeepTemplated = newWords("{{", "{%", "${")

// prune replaces the trees of f's prunable documents by their metadata (see above). The words
// are looked for in each document's own lines (from its first line to the next document's),
// so that a Deployment beside a kube-proxy alert rule is still pruned.
func prune(f *checker.File) { pruneWith(f, newRuleFacts(nil)) }

// pruneWith is prune with the run's rules, whose DocFacts let a workload that only they
// read go to its header (keepWorkloadFacts).
func pruneWith(f *checker.File, rf *ruleFacts) {
	if f == nil || len(f.Docs) == 0 || f.Lines == nil {
		return
	}
	for i, d := range f.Docs {
		holder := pruneHolders[d.Kind] && d.APIVersion == "v1"
		if !pruneKinds[d.Kind] && !holder || !reducible(f, d) {
			continue
		}
		text := docText(f, i)
		if mentions(text, pruneKeep) || d.Kind != "PrometheusRule" && mentions(text, pruneKeepTemplated) || holder && (mentions(text, holderKeep) || holdsDocument(text)) ||
			checker.WorkloadPodSpec(d.Kind) != nil && mentions(text, versionKeep) {
			continue
		}
		pruneToHeader(d)
	}
	for _, d := range f.Docs {
		for _, e := range d.Embedded {
			if isKubeconfig(e) {
				pruneToHeader(e)
			}
		}
	}
	keepMetricFacts(f, rf)
	keepWorkloadFacts(f, rf)
	keepServiceFacts(f)
}

// releaseContent drops the content and line index of a file whose documents are all
// headers without facts (Document.Facts), and of its masked copy: nothing reads them once
// the file is loaded. No rule reports in such a file, and it names no word of pruneKeep, so Document.Contains of a rule
// word is false either way (checker.File.Content says so). A file with a suppression comment
// keeps them (its comments are read for KP900: one above its first document is outside every
// document's lines, so the document was pruned; the text is then released as a metric file's
// is, below, when it can be read again). The line index goes too, since it
// holds the content (columns count code points on lines with multi-byte characters).
//
// A file whose documents are all headers (the rules' facts of some: Document.Facts), metric
// facts (dashboards, alert rules) or Service facts lets its text go too when it can be read
// again (a file on disk: in.abs) and holds no suppression comment: findings point into its
// queries, whose offset maps are made before the text goes (keepQueryOffsets), Service facts
// and the rules' facts hold their positions, its line index keeps
// positions only (text.LineIndex.Release, when every line holds single-byte characters),
// and what needs the text after loading (fix checks, snippets, line hashes, the fixer) reads
// it again with checker.File.Text, which checks that it did not change. in is where f was
// read from. The masked copy's text goes first (releaseMasked).
func releaseContent(f *checker.File, probs []checker.LoadProblem, in input) {
	releaseMasked(f)
	if f == nil || f.Format != checker.FormatYAML || f.Parent != nil || len(f.Docs) == 0 || len(probs) > 0 {
		return
	}
	headers := true
	for _, d := range f.Docs {
		if len(d.Embedded) > 0 || d.File != f && (!d.File.Masked || d.File.Parent != f) || !keepsNoText(d) {
			return
		}
		headers = headers && d.Pruned && !d.Facts // findings in facts' files show their lines
	}
	if headers && !checker.MayHoldDirectives(f.Content) {
		for _, d := range f.Docs {
			d.File.Content, d.File.Lines = nil, nil
		}
		f.Content, f.Lines = nil, nil
		return
	}
	if in.abs == "" || checker.MayHoldDirectives(f.Content) || f.Docs[0].File != f && f.Docs[0].File.Content != nil {
		return // not on disk, a suppression comment, or a masked copy still needed
	}
	for _, d := range f.Docs {
		keepQueryOffsets(d) // masked ones were kept by releaseMasked: the memo answers
	}
	if f.Lines.Release() {
		f.Reread = rereadOf(in, f.Content)
		f.Content = nil
		f.Lines.Forget(f.Reread)
	}
}

// keepsNoText reports whether what the rules read of d needs none of its file's text once
// loaded: a header, metric facts (their offset maps made by keepQueryOffsets) or Service
// facts (their positions resolved).
func keepsNoText(d *checker.Document) bool {
	return d.Pruned || d.Metrics != nil || d.Service != nil
}

// rereadOf returns how to read in again for checker.File.Reread: through safefile as the
// first read (regular files only, never through a link), and only when it is what was read
// then (size and SHA-256 of content); nil for what is not a file on disk (stdin, Git objects).
func rereadOf(in input, content []byte) func() ([]byte, error) {
	if in.abs == "" {
		return nil
	}
	abs, name, size, sum := in.abs, in.name, len(content), sha256.Sum256(content)
	return func() ([]byte, error) {
		fh, st, err := safefile.Open(abs)
		if err != nil {
			return nil, fmt.Errorf("%s: cannot read again: %s", name, readReason(err))
		}
		defer func() { _ = fh.Close() }()
		b, err := readSized(fh, st.Size(), int64(size)+1)
		if err != nil || len(b) != size || sha256.Sum256(b) != sum {
			return nil, fmt.Errorf("%s: changed since it was read", name)
		}
		return b, nil
	}
}

// releaseMasked drops the masked copy's text and line index of a templated file whose
// documents are all headers, metric facts or Service facts (a Grafana dashboard, masked for
// its {{instance}} legends; alert rules beside a Service): the metric facts' positions are
// computed from the query scalars' offset maps, made here while the text is at hand
// (keepQueryOffsets), and map to the real file, which keeps its own; Service facts hold
// theirs. checker.MetricFacts.Mentions answers the rules' word checks from the facts.
func releaseMasked(f *checker.File) {
	if f == nil || f.Parent != nil || len(f.Docs) == 0 {
		return
	}
	v := f.Docs[0].File
	if !v.Masked || v.Parent != f {
		return
	}
	for _, d := range f.Docs {
		if d.File != v || len(d.Embedded) > 0 || !keepsNoText(d) {
			return
		}
	}
	for _, d := range f.Docs {
		keepQueryOffsets(d)
	}
	v.Content, v.Lines = nil, nil
}

// pruneToHeader reduces d to its header: the root node alone, where it was (apiVersion,
// kind, name and namespace are the document's fields), and no typed object.
func pruneToHeader(d *checker.Document) {
	d.DropGeneric()
	d.Node = &yaml.Node{Kind: d.Node.Kind, Tag: d.Node.Tag, Style: d.Node.Style, Line: d.Node.Line, Column: d.Node.Column}
	d.Object = nil
	d.Pruned = true
}

// docText returns the lines of f's document i: from its first line to the next document's.
func docText(f *checker.File, i int) []byte {
	d := f.Docs[i]
	from := f.Lines.LineStart(d.Node.Line)
	to := len(f.Content)
	if i+1 < len(f.Docs) && f.Docs[i+1].Node != nil {
		to = f.Lines.LineStart(f.Docs[i+1].Node.Line)
	}
	return f.Content[max(from, 0):max(min(to, len(f.Content)), from)]
}

// settle finishes a pruned file read from in: with Options.WholeOnDemand it lets it be
// decoded again whole (setRedecode) and keeps its text, else it lets go of the text nothing
// reads (releaseContent); then c moves what the file keeps into its slabs (compactFile).
func settle(f *checker.File, probs []checker.LoadProblem, in input, opts Options, c *compactor) {
	if opts.WholeOnDemand {
		setRedecode(f, in)
	} else {
		releaseContent(f, probs, in)
	}
	c.compactFile(f)
}

// setRedecode lets f be decoded again whole (checker.File.Redecode, Options.WholeOnDemand)
// when prune pruned or reduced one of its documents: from its content, which it keeps, as
// in was read (name, whether it was named on the command line, the run's alias budget).
func setRedecode(f *checker.File, in input) {
	if !holdsReduced(f) {
		return
	}
	name, content, explicit, aliases := in.name, f.Content, in.explicit, in.aliases
	f.Redecode = func() (*checker.File, error) {
		nf := newFile(name, content)
		nf.AliasBudget = aliases
		if class, _ := classifyWhy(name, content, explicit); class != classYAML {
			return nil, fmt.Errorf("%s: cannot be decoded again", name)
		}
		return redecoded(nf), nil
	}
}

// holdsReduced reports whether a document of f was pruned or reduced.
func holdsReduced(f *checker.File) bool {
	return f != nil && slices.ContainsFunc(f.Docs, func(d *checker.Document) bool { return d.Pruned || d.Reduced })
}

// redecoded decodes nf, a new file with the text (and render map) of one the loader read, as
// it was first: its documents' trees as parseFile gives them (templates masked as then),
// identified; not their typed objects, embedded documents or installers' settings, which the
// workspace holds already.
func redecoded(nf *checker.File) *checker.File {
	parseFile(nf)
	for _, d := range nf.Docs {
		identify(d)
	}
	return nf
}
