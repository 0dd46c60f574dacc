// Package load turns paths on disk (or stdin) into a checker.Workspace: it walks directories
// honouring .gitignore, decodes YAML with positions, decodes typed objects, resolves embedded
// documents and derives the kube-proxy instances and the target version.
package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sort"
	"strings"
	"sync"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/cluster"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
)

// Options configure a load.
type Options struct {
	// Paths are files or directories; "-" reads Stdin. Empty means ".".
	Paths []string
	// Root is the directory that reported file names are relative to. Empty means the
	// current directory.
	Root string
	// Stdin is read for the path "-"; StdinName is the name its findings carry ("<stdin>"
	// when empty).
	Stdin     io.Reader
	StdinName string
	// Target overrides version detection when set.
	Target *checker.Version
	// Fallback is the target of a cluster (and of the shared files) that names no version
	// itself: the configuration file's target-version (RULES.md "Target version per
	// cluster"). nil means checker.DefaultTarget.
	Fallback *checker.Target
	// MaxFileSize skips larger files with a notice; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// Workers bounds parallel decoding; 0 means GOMAXPROCS.
	Workers int
	// Overlay replaces the content of files by their reported name (slash-separated,
	// relative to Root): the walk is the same, the content is the overlay's. `--fix` lints
	// the fixed files this way before writing them.
	Overlay map[string][]byte
	// IncludeTestdata walks directories named testdata too; by default they are skipped, as
	// Go tools skip them (their files are test inputs, not the user's clusters). A testdata
	// directory named on the command line is always read.
	IncludeTestdata bool
	// KeepTrees keeps the whole node tree of every document: no pruning (prune.go). Set it
	// when repository or --policy Rego rules run, since they may read any document.
	KeepTrees bool
	// WholeOnDemand prunes and reduces the trees as usual but keeps every file's content and
	// lets each file with a pruned or reduced document be decoded again (File.Redecode), so
	// that a reader that needs whole documents gets them one file at a time
	// (checker.WholeDocs). Set it when repository or --policy Rego rules run, since they may
	// read any document. Helm renderings are decoded again from the chart's output.
	WholeOnDemand bool
	// Facts are the run's rules: those with DocFacts have them computed for the documents
	// whose trees the loader drops and could not drop without them (checker.Rule.DocFacts;
	// prune.go). Without them those documents keep the fields the rules read.
	Facts []*checker.Rule
	// ruleFacts sums up Facts once per load (Load and FromGit set it; ruleFactsOf).
	ruleFacts *ruleFacts
	// Clusters are the clusters declared in the configuration file; they replace inference
	// for the files their globs match.
	Clusters []cluster.Declared
	// ClustersPartial is set when the run reads only part of the tree the declared clusters
	// are written for (a subdirectory, stdin): a glob that matches no file read is then not
	// an error.
	ClustersPartial bool
	// Helm configures the rendering of Helm charts (helm.go).
	Helm HelmOptions
	// ReportIgnored adds one notice that lists what .gitignore files left out (files Git does
	// not track; tracked ones are always read). Set it when the run's trust comes from
	// elsewhere (--config-from-base): the tree's .gitignore is the pull request's.
	ReportIgnored bool
	// Trace, when set, is told about every file and directory the load leaves out, and why
	// (--verbose): a name it does not read, .gitignore, a directory it never enters, a file
	// whose content is nothing it checks. It may be called from several goroutines.
	Trace func(name, reason string)
}

// Reasons given to Options.Trace.
const (
	TraceName      = "not a kind of file kube-proxy-lint reads (by its name)"
	TraceIgnored   = "ignored by .gitignore"
	TraceSkipDir   = "a directory kube-proxy-lint never enters"
	TraceTestdata  = "a testdata directory (--include-testdata reads it)"
	TraceContent   = "read, but it holds nothing kube-proxy-lint checks"
	TraceSubmodule = "a Git submodule: another repository"
)

// trace calls opts.Trace when it is set.
// ruleFactsOf returns the summary of the run's rules: the one Load made, or one made now for
// options that did not go through Load (it writes nothing: goroutines share the options).
func (o *Options) ruleFactsOf() *ruleFacts {
	if o.ruleFacts == nil {
		return newRuleFacts(o.Facts)
	}
	return o.ruleFacts
}

func (o *Options) trace(name, reason string) {
	if o.Trace != nil {
		o.Trace(name, reason)
	}
}

// DefaultMaxFileSize is the largest file decoded by default. Kubernetes objects are limited
// to about 1.5 MiB by etcd; anything far larger is generated data, not configuration.
const DefaultMaxFileSize = 4 << 20

// Load reads every path and builds the workspace. It returns an error only for usage problems
// (a path that does not exist); bad files become workspace Problems.
func Load(ctx context.Context, opts Options) (*checker.Workspace, error) {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	opts.ruleFacts = newRuleFacts(opts.Facts)
	inputs, probs, root, err := collect(opts)
	if err != nil {
		return nil, err
	}
	for i := range inputs {
		if c, ok := opts.Overlay[inputs[i].name]; ok {
			inputs[i].content, inputs[i].abs = c, ""
		}
	}
	ws := &checker.Workspace{Root: root}
	ws.Problems = append(ws.Problems, probs...)
	aliases := checker.NewAliasBudget(checker.MaxRunAliasNodes)
	order := newTurns(len(inputs))
	for i := range inputs {
		inputs[i].aliases, inputs[i].turns, inputs[i].index = aliases, order, i
	}
	files := make([]*checker.File, len(inputs))
	fileProbs := make([][]checker.LoadProblem, len(inputs))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	run := budget.From(ctx)
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var c compactor
			for i := range next {
				if ctx.Err() == nil {
					if run != nil {
						run.Do("loading " + inputs[i].name)
					}
					files[i], fileProbs[i] = readAndParse(ctx, inputs[i], opts.MaxFileSize)
					if files[i] != nil && run != nil {
						// What the run holds of the file: its bytes (its decoded documents are
						// watched through the heap, budget.Watch).
						_ = run.Charge(int64(len(files[i].Content)), inputs[i].name)
					}
					if !opts.KeepTrees {
						pruneWith(files[i], opts.ruleFactsOf())
						settle(files[i], fileProbs[i], inputs[i], opts, &c)
					}
					if files[i] == nil && len(fileProbs[i]) == 0 {
						opts.trace(inputs[i].name, TraceContent)
					}
				}
				order.finish(i)
			}
		}()
	}
	sent := 0
	for ; sent < len(inputs) && ctx.Err() == nil; sent++ {
		next <- sent
	}
	for i := sent; i < len(inputs); i++ {
		order.finish(i) // never read: nobody waits for them
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("load files: %w", err)
	}
	for i, f := range files {
		ws.Problems = append(ws.Problems, fileProbs[i]...)
		if f != nil {
			ws.Files = append(ws.Files, f)
		}
	}
	if !opts.Helm.Disabled {
		if charts := findCharts(inputs); len(charts) > 0 {
			renderCharts(ctx, ws, charts, inputs, opts, nil)
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("render Helm charts: %w", err)
		}
	}
	ws.TargetFallback = opts.Fallback
	if errs := declaredErrors(finish(ws, opts.Target, opts.Clusters), opts.ClustersPartial); len(errs) > 0 {
		return ws, errors.Join(errs...)
	}
	return ws, nil
}

// declaredErrors drops the errors about globs that match no file when the run read only
// part of the tree.
func declaredErrors(errs []error, partial bool) []error {
	if !partial {
		return errs
	}
	var out []error
	for _, err := range errs {
		var ce *cluster.Error
		if errors.As(err, &ce) && ce.Unmatched {
			continue
		}
		out = append(out, err)
	}
	return out
}

// Bytes loads one in-memory file as a workspace, for tests and fuzzing.
func Bytes(name string, content []byte, target *checker.Version) *checker.Workspace {
	return Files(map[string][]byte{name: content}, target)
}

// Files loads in-memory files (slash paths to contents) as a workspace.
func Files(files map[string][]byte, target *checker.Version) *checker.Workspace {
	ws := &checker.Workspace{Root: "."}
	aliases := checker.NewAliasBudget(checker.MaxRunAliasNodes)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	var inputs []input
	for _, n := range names {
		in := input{name: n, content: files[n], explicit: true, aliases: aliases}
		inputs = append(inputs, in)
		f, probs := readAndParse(context.Background(), in, DefaultMaxFileSize)
		ws.Problems = append(ws.Problems, probs...)
		if f != nil {
			ws.Files = append(ws.Files, f)
		}
	}
	if charts := findCharts(inputs); len(charts) > 0 {
		renderCharts(context.Background(), ws, charts, inputs, Options{Target: target, KeepTrees: true}, files)
	}
	finish(ws, target, nil)
	return ws
}

// Reparse decodes one file of a workspace alone, with new content, and returns its load
// problems: whether an edit leaves the file decodable. Cross-file problems are not seen.
func Reparse(name string, content []byte) []checker.LoadProblem {
	_, probs := readAndParse(context.Background(), input{name: name, content: content, explicit: true}, DefaultMaxFileSize)
	return probs
}

func newFile(name string, content []byte) *checker.File {
	return &checker.File{Path: name, Content: content, Lines: text.NewLineIndex(content)}
}

// aliasMark is what a document that holds a YAML alias holds. decodeDoc asks each document
// once (Document.ContainsOnce): through Contains, a file that let its text go kept the offsets
// of every "*" of its PromQL queries to the end of the run.
const aliasMark = "*"

// maxEmbedDepth is how deep documents embedded in scalars of documents are decoded.
const maxEmbedDepth = 4

// decodeDoc identifies a document, decodes it and any documents embedded in it.
func decodeDoc(d *checker.Document) []checker.LoadProblem {
	var probs []checker.LoadProblem
	identify(d)
	if p := decodeTyped(d); p != nil {
		probs = append(probs, *p)
	} else if _, typed := knownTypes[typeKey{groupOf(d.APIVersion), d.Kind}]; !typed && d.ContainsOnce(aliasMark) {
		// Only aliases make the generic form fail (recursion, expansion beyond the budget):
		// report it here, once, rather than in every rule that reads the document.
		// Uncached: only the error is needed here (a form that spent alias budget is kept).
		if _, err := d.GenericUncached(); err != nil {
			pos, _ := d.KindPos()
			probs = append(probs, checker.LoadProblem{Pos: pos, Message: "cannot decode document: " + err.Error(),
				Manifest: d.Kind != "" && looksLikeManifest(d.File.Content), Document: d})
		}
	}
	if d.File.EmbedDepth() >= maxEmbedDepth {
		// A ConfigMap in a ConfigMap's config.conf in …: real configurations nest two or
		// three levels (a script's heredoc holding a ConfigMap holding a config); deeper is
		// a blow-up attempt, and each level would copy the text again.
		if bytes.Contains(d.File.Content, []byte("\n")) && (d.Kind == "ConfigMap" || d.Kind == "") {
			pos, _ := d.KindPos()
			probs = append(probs, checker.LoadProblem{Pos: pos, Message: fmt.Sprintf("documents embedded more than %d levels deep are not decoded", maxEmbedDepth), Document: d})
		}
		return probs
	}
	if d.Kind == "ConfigMap" {
		probs = append(probs, decodeEmbedded(d)...)
	}
	if d.Kind == "GrafanaDashboard" {
		probs = append(probs, decodeGrafanaDashboard(d)...)
	}
	for _, dec := range docDecoders {
		probs = append(probs, dec(d)...)
	}
	// After the known paths' decoders: the content-first walk only fills their gaps.
	probs = append(probs, decodeEmbeddedBlocks(d)...)
	return probs
}

// docDecoders decode documents embedded in an installer's own fields (kind's
// kubeadmConfigPatches): each source file registers its own in an init function. A decoder
// appends what it decodes to d.Embedded, so the documents are checked like any other.
var docDecoders []func(d *checker.Document) []checker.LoadProblem

// decodeEmbedded parses ConfigMap data values that hold Kubernetes-style documents (a
// KubeProxyConfiguration in config.conf, kubeadm's ClusterConfiguration) as documents of
// their own whose positions map back to the ConfigMap's file.
func decodeEmbedded(cm *checker.Document) []checker.LoadProblem {
	_, data := cm.Lookup(checker.Path{"data"})
	if data == nil || data.Kind != yaml.MappingNode {
		return nil
	}
	var probs []checker.LoadProblem
	for i := 0; i+1 < len(data.Content); i += 2 {
		k, v := data.Content[i], data.Content[i+1]
		if v.Kind != yaml.ScalarNode || (!declaresManifest(v.Value) && !embedsMonitoring(k.Value, v.Value)) {
			continue
		}
		inner := &checker.File{
			Path:      cm.File.Path,
			Content:   []byte(v.Value),
			Parent:    cm.File,
			ParentMap: checker.ScalarOffsetMap(cm.File, v),
		}
		inner.Lines = text.NewLineIndex(inner.Content)
		probs = append(probs, parseFile(inner)...)
		for _, d := range inner.Docs {
			d.Parent = cm
			d.ParentPath = checker.Path{"data", k.Value}
			probs = append(probs, decodeDoc(d)...)
			cm.Embedded = append(cm.Embedded, d)
		}
	}
	return probs
}

// finish derives the workspace view once all files are decoded. The errors are about the
// declared clusters.
func finish(ws *checker.Workspace, target *checker.Version, declared []cluster.Declared) []error {
	sort.Slice(ws.Files, func(i, j int) bool { return ws.Files[i].Path < ws.Files[j].Path })
	splitKindHeredocs(ws)
	for _, f := range ws.Files {
		for _, d := range f.Docs {
			ws.Docs = append(ws.Docs, d)
			ws.Docs = append(ws.Docs, d.Embedded...)
		}
	}
	for _, f := range ws.Rendered {
		for _, d := range f.Docs {
			ws.Docs = append(ws.Docs, d)
			ws.Docs = append(ws.Docs, d.Embedded...)
		}
	}
	sort.SliceStable(ws.Problems, func(i, j int) bool { return ws.Problems[i].Pos.Less(ws.Problems[j].Pos) })
	propagateOpen(ws)
	ws.Instances = findInstances(ws)
	for _, find := range instanceFinders {
		ws.Instances = append(ws.Instances, find(ws)...)
	}
	// Last, so that flags the finders above read are not found again in their strings.
	ws.Instances = append(ws.Instances, stringFlagInstances(ws, ws.Instances)...)
	var standalone []*checker.Instance
	for _, in := range ws.Instances {
		if in.Kind == checker.InstanceConfig {
			standalone = append(standalone, in)
		}
	}
	ws.Instances = dropClaimedConfigs(ws.Instances)
	ws.Instances = dropJoinOnly(ws.Instances)
	quoteSpans(ws)
	errs := cluster.Infer(ws, declared)
	pairEnvFilesByName(ws)
	unpairAcrossClusters(ws, standalone)
	setTargets(ws, target)
	ws.Nodes = repoNodes(ws)
	forgetLoadMemos(ws)
	return errs
}

// forgetLoadMemos drops what the readers above shared while loading (File.Memo) and the
// rules do not need held (issue 24): the shell lexing of every file (the rules that read
// scripts after loading, KP401 and KP402, read the few that name what they look for, and lex
// those again) and the offsets of the words the readers asked every document for
// (File.ForgetContains).
func forgetLoadMemos(ws *checker.Workspace) {
	isScript := func(k any) bool { _, ok := k.(shell.MemoKey); return ok }
	forget := func(f *checker.File) {
		f.Forget(isScript)
		f.ForgetContains()
	}
	for _, f := range ws.Files {
		forget(f)
	}
	for _, d := range ws.Docs {
		forget(d.File)
	}
}

// unpairAcrossClusters undoes a --config pairing that crosses a cluster boundary: a workload
// whose cluster holds no ConfigMap for its --config was paired with the nearest one of
// another cluster. Its configuration is then unknown, and the ConfigMap, unless another
// kube-proxy uses it, is a standalone configuration of its own cluster again.
func unpairAcrossClusters(ws *checker.Workspace, standalone []*checker.Instance) {
	var freed []*checker.Document
	for _, in := range ws.Instances {
		if in.Workload == nil || in.Config == nil || in.Config.File.Outer().Render != nil {
			continue
		}
		wc, cc := ws.ClusterOf(in.Workload.File.Outer().Path), ws.ClusterOf(in.Config.File.Outer().Path)
		if wc == nil || cc == nil || wc == cc {
			continue
		}
		in.ConfigUnresolved = "the ConfigMap that matches --config is in cluster " + cc.Name + ", not in this kube-proxy's cluster " + wc.Name
		freed = append(freed, in.Config)
		in.Config, in.ConfigVia = nil, nil
	}
	if len(freed) == 0 {
		return
	}
	claimed := map[*checker.Document]bool{}
	for _, in := range ws.Instances {
		if in.Config != nil {
			claimed[in.Config] = true
		}
	}
	for _, d := range freed {
		if claimed[d] {
			continue
		}
		for _, sa := range standalone {
			if sa.Config == d {
				ws.Instances = append(ws.Instances, sa)
				claimed[d] = true
			}
		}
	}
}

// dropJoinOnly drops the kube-proxies configured in kubeadm join files (a JoinConfiguration
// and no InitConfiguration): kubeadm join ignores their ClusterConfiguration and
// KubeProxyConfiguration, so they configure no kube-proxy.
func dropJoinOnly(ins []*checker.Instance) []*checker.Instance {
	out := ins[:0]
	// Each file is judged once: JoinOnly reads all of a file's documents, and a file of
	// 90,000 configurations has 90,000 instances (issue 22, "also seen").
	joinOnly := map[*checker.File]bool{}
	for _, in := range ins {
		if in.Workload == nil && in.Kind != checker.InstanceCommand {
			var f *checker.File
			switch {
			case in.Config != nil:
				f = kubeadmFileOf(in.Config)
			case in.Installer != nil && in.Installer.Doc != nil:
				f = kubeadmFileOf(in.Installer.Doc)
			}
			if f != nil {
				j, ok := joinOnly[f]
				if !ok {
					j = cluster.JoinOnly(f)
					joinOnly[f] = j
				}
				if j {
					continue
				}
			}
		}
		out = append(out, in)
	}
	return out
}

// kubeadmFileOf returns the file that is one kubeadm config for document d: its file, for a
// heredoc of a script the heredoc's body (a script may write an init and a join config in two
// heredocs), and for a string of another document (cloud-init write_files, a CI step's
// heredoc) that string (a join config written next to an init config). The kubeadm-config
// ConfigMap's copy belongs to its file.
func kubeadmFileOf(d *checker.Document) *checker.File {
	if d.Parent != nil && d.Parent.Kind != "ConfigMap" {
		return d.File
	}
	if o := d.File.Outer(); o.Format != checker.FormatText || d.Parent != nil {
		return o
	}
	return d.File
}

// propagateOpen marks an embedded document open when the scalar holding it held an output
// placeholder alone on its line (`config.conf: |` then `{{ .Values.config | nindent 4 }}`):
// the outer masking emptied that line, so the inner decoding cannot see it.
func propagateOpen(ws *checker.Workspace) {
	for _, d := range ws.Docs {
		if d.Parent == nil || d.Open {
			continue
		}
		outer := d.File.Outer()
		if len(outer.Open) == 0 {
			continue
		}
		_, n := d.Parent.Lookup(d.ParentPath)
		if n == nil {
			continue
		}
		from := d.Parent.NodePos(n).Line
		to := max(d.Parent.NodeEnd(n).Line, from+strings.Count(n.Value, "\n")+1)
		// Placeholder lines at the end of a block scalar were emptied by the masking, so the
		// scalar seems to end before them.
		for to < outer.Lines.Lines() && isTemplateLine(outer.Lines.LineText(to+1)) {
			to++
		}
		for _, o := range outer.Open {
			if o.Line >= from && o.Line <= to {
				d.Open = true
				break
			}
		}
	}
}

// isTemplateLine reports whether a line starts with a template tag.
func isTemplateLine(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return strings.HasPrefix(s, "{{") || strings.HasPrefix(s, "{%") || strings.HasPrefix(s, "<%") || strings.HasPrefix(s, "%{")
}

// instanceFinders find kube-proxy instances in other sources than workloads and standalone
// configurations (scripts, units, installer configs). Each source file registers its finder
// in an init function; they run in registration order after the built-in finder.
var instanceFinders []func(ws *checker.Workspace) []*checker.Instance
