package load

import (
	"context"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/safefile"
)

// Helm charts (the seam between the loader and checker/helm): every directory of the linted
// tree holding a Chart.yaml is rendered with Helm's engine, once with its values.yaml and
// once per variant (the values files of HelmOptions, else values-*.yaml beside Chart.yaml),
// and the rendered manifests are decoded as virtual files (one per template and variant)
// whose positions map back to the values file or template that writes them
// (checker.RenderMap). A chart that renders replaces its templates' masked reading; a chart
// that does not is a notice, and its templates stay as they are read today.

// HelmOptions configure chart rendering.
type HelmOptions struct {
	// Disabled turns rendering off: templates are read masked, as any template.
	Disabled bool
	// Values lists, by chart directory (slash path relative to the root), the values files
	// (relative to the chart directory) to render as variants; a chart listed here does not
	// use the values-*.yaml convention.
	Values map[string][]string
	// Timeout bounds the rendering of one chart variant; 0 means DefaultHelmTimeout.
	Timeout time.Duration
	// RunBudget bounds the time spent rendering in one run, all charts and variants
	// together; 0 means DefaultHelmRunBudget.
	RunBudget time.Duration
	// MaxRendered bounds the rendered bytes the run holds, all charts and variants
	// together; 0 means DefaultMaxRendered.
	MaxRendered int64
	// ChildrenMemory is the memory all rendering children share; 0 means half of the
	// run's memory budget (internal/budget), else 2 GiB.
	ChildrenMemory int64
}

// Rendering bounds: per variant, and per run. Every values-*.yaml adds a rendering, so a
// hostile chart could otherwise multiply the per-variant bounds by its number of values
// files (issue 22, items 4 and 6).
const (
	// DefaultHelmTimeout bounds the rendering of one chart variant.
	DefaultHelmTimeout = 10 * time.Second
	// DefaultHelmRunBudget bounds the time one run spends rendering.
	DefaultHelmRunBudget = time.Minute
	// DefaultMaxRendered bounds the rendered output one run holds (its decoded documents
	// take several times as much).
	DefaultMaxRendered = 64 << 20
)

// Chart file limits: a chart is configuration, not data.
const (
	maxChartFiles = 5000
	maxChartBytes = 32 << 20
)

// chartInput is one chart found in the inputs.
type chartInput struct {
	dir  string // reported name of the chart directory ("" for the root)
	abs  string // directory on disk; "" for in-memory loads
	name string // reported name of its Chart.yaml
}

// findCharts lists the charts among the inputs: each Chart.yaml that is not in the charts/
// directory of another chart found (subcharts render with their parent).
func findCharts(inputs []input) []chartInput {
	var out []chartInput
	for _, in := range inputs {
		if path.Base(in.name) != "Chart.yaml" || in.name == "<stdin>" {
			continue
		}
		dir := path.Dir(in.name)
		if dir == "." {
			dir = ""
		}
		abs := ""
		if in.abs != "" {
			abs = filepath.Dir(in.abs)
		}
		out = append(out, chartInput{dir: dir, abs: abs, name: in.name})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].dir < out[j].dir })
	var top []chartInput
	for _, c := range out {
		sub := false
		for _, p := range top {
			if rest, ok := strings.CutPrefix(c.dir, joinDir(p.dir, "charts/")); ok && rest != "" {
				sub = true
				break
			}
		}
		if !sub {
			top = append(top, c)
		}
	}
	return top
}

func joinDir(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

// chartFiles collects the files of each chart from the inputs of the load: exactly the
// files the loader reads (the walk's .gitignore, skipped directories, links and names, so a
// credentials file a CI step wrote beside the chart is not in .Files), each read once and
// given to the deepest chart above it only (a chart nested in another chart's directory,
// outside its charts/, is rendered on its own and is not among the outer chart's files).
// mem holds the content of in-memory loads; nil reads from disk. A chart over the file
// limits gets an error instead of its files.
func chartFiles(charts []chartInput, inputs []input, mem map[string][]byte, maxSize int64) ([]map[string][]byte, []error) {
	files := make([]map[string][]byte, len(charts))
	errs := make([]error, len(charts))
	totals := make([]int, len(charts))
	byDir := make(map[string]int, len(charts))
	for i, c := range charts {
		byDir[c.dir] = i
		files[i] = map[string][]byte{}
	}
	for _, in := range inputs {
		owner, rel := -1, ""
		for d := in.name; ; {
			d = path.Dir(d)
			if d == "." {
				d = ""
			}
			if i, ok := byDir[d]; ok {
				owner, rel = i, strings.TrimPrefix(in.name, joinDir(d, ""))
				break
			}
			if d == "" {
				break
			}
		}
		if owner < 0 || errs[owner] != nil || unusedCopy(path.Base(rel)) || hiddenDir(rel) {
			continue
		}
		if len(files[owner]) >= maxChartFiles {
			errs[owner] = fmt.Errorf("the chart has more than %d files", maxChartFiles)
			continue
		}
		b, ok := mem[in.name]
		switch {
		case ok:
		case in.content != nil || in.abs == "":
			b = in.content // the overlay's content (--fix), or stdin
		default:
			var err error
			if b, err = safefile.ReadFile(in.abs, maxSize); err != nil {
				continue // unreadable or too large: Helm sees the chart without it
			}
		}
		if totals[owner] += len(b); totals[owner] > maxChartBytes {
			errs[owner] = fmt.Errorf("the chart is larger than %d bytes", maxChartBytes)
			continue
		}
		files[owner][rel] = b
	}
	for i := range files {
		if errs[i] != nil {
			files[i] = nil
		}
	}
	return files, errs
}

// hiddenDir reports whether a chart-relative name lies in a directory whose name starts with
// a dot (.github, .git): never part of a chart.
func hiddenDir(rel string) bool {
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if strings.HasPrefix(path.Base(d), ".") {
			return true
		}
	}
	return false
}

// unusedCopy reports whether a file is a copy not in use (a test golden, a backup, an editor's
// swap file): Helm would render it as a template, the loader never reads it, and neither
// does the chart reader.
func unusedCopy(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".golden", ".bak", ".orig", ".old", ".rej", ".swp", ".tmp", ".dist":
		return true
	}
	return strings.HasSuffix(name, "~")
}

// libraryChart reports whether Chart.yaml declares a library chart.
func libraryChart(b []byte) bool {
	var meta struct {
		Type string `yaml:"type"`
	}
	return yaml.Unmarshal(b, &meta) == nil && strings.EqualFold(meta.Type, "library")
}

// valuesVariantRe is the values-<env>.yaml convention.
var valuesVariantRe = regexp.MustCompile(`^values-[^/]+\.ya?ml$`)

// variants lists the values files a chart is rendered with: "" (values.yaml alone), then
// the configured files, else the values-*.yaml files beside Chart.yaml.
func variants(dir string, files map[string][]byte, opts HelmOptions) []string {
	out := []string{""}
	if conf, ok := opts.Values[dir]; ok {
		for _, v := range conf {
			if v != "values.yaml" {
				out = append(out, path.Clean(v))
			}
		}
		return out
	}
	var found []string
	for n := range files {
		if valuesVariantRe.MatchString(n) {
			found = append(found, n)
		}
	}
	sort.Strings(found)
	return append(out, found...)
}

// variantDir is the virtual directory of a variant's rendered files, below the chart. Its
// name starts with a NUL byte, which no file name on disk or in a Git tree can hold: a real
// file never shares a rendered file's path, so it is never mapped through a chart's render
// map (a real c/@values.yaml/templates/t.yaml was, issue 22 item 9).
func variantDir(variant string) string {
	if variant == "" {
		variant = "values.yaml"
	}
	return virtualMark + "@" + strings.ReplaceAll(variant, "/", "|")
}

// virtualMark starts the virtual directory of every rendered file.
const virtualMark = "\x00"

// renderCharts renders the charts found in the inputs into ws (before finish). files holds
// the content of in-memory loads; nil reads the charts from disk.
func renderCharts(ctx context.Context, ws *checker.Workspace, charts []chartInput, inputs []input, opts Options, mem map[string][]byte) {
	targets := preliminaryTargets(ws, charts, opts.Target)
	maxSize := opts.MaxFileSize
	if maxSize <= 0 {
		maxSize = DefaultMaxFileSize
	}
	// One job per chart and variant, rendered and decoded in parallel, added in order.
	type job struct {
		chart   int
		variant string
		req     helm.Request
		res     *helm.Result
		err     error
		files   []*checker.File
		probs   [][]checker.LoadProblem
	}
	var jobs []*job
	files, errs := chartFiles(charts, inputs, mem, maxSize)
	notices := make([][]string, len(charts))
	for i, c := range charts {
		if errs[i] != nil {
			notices[i] = append(notices[i], "Helm chart "+chartLabel(c.dir)+" not rendered: "+errs[i].Error()+"; its templates are checked unrendered (placeholders unknown)")
			continue
		}
		if libraryChart(files[i]["Chart.yaml"]) {
			// All partials: nothing renders, its helpers are read when a chart includes them.
			files[i] = nil
			continue
		}
		for _, v := range variants(c.dir, files[i], opts.Helm) {
			req := helm.Request{Files: files[i], KubeVersion: targets[i]}
			if v != "" {
				b, ok := files[i][v]
				if !ok {
					notices[i] = append(notices[i], fmt.Sprintf("Helm chart %s: values file %s (configured) does not exist", chartLabel(c.dir), escapeNotice(v)))
					continue
				}
				req.Values = b
			}
			jobs = append(jobs, &job{chart: i, variant: v, req: req})
		}
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rb := newRenderBudget(ctx, opts.Helm)
	// The children share one cap: as many of them at once as fit in it.
	workers = helm.ChildrenAtOnce(rb.childrenMemory, min(workers, max(len(jobs), 1)))
	pool := &helm.Pool{}
	defer pool.Close()
	defer rb.run.Reserve(rb.childrenMemory)()
	parallel(len(jobs), workers, func(k int) {
		j := jobs[k]
		if ctx.Err() != nil {
			j.err = ctx.Err()
			return
		}
		what := "Helm chart " + chartLabel(charts[j.chart].dir) + " rendered with " + variantFile(j.variant)
		j.res, j.err = rb.render(ctx, pool, j.req, what)
		if j.err == nil {
			j.files, j.probs = decodeRendered(charts[j.chart], j.variant, files[j.chart], j.res, opts)
		}
	})
	if ctx.Err() != nil {
		return
	}
	rendered := make([]bool, len(charts))
	for _, j := range jobs {
		rendered[j.chart] = rendered[j.chart] || j.err == nil
	}
	drop := map[string]bool{} // templates of charts that rendered: their masked reading goes
	k := 0
	noRenderer := false // a notice said that no renderer is installed
	for i, c := range charts {
		notice := func(msg string) {
			ws.Problems = append(ws.Problems, checker.LoadProblem{Pos: checker.Position{Filename: c.name, Line: 1, Column: 1}, Message: msg})
		}
		for _, n := range notices[i] {
			notice(n)
		}
		for ; k < len(jobs) && jobs[k].chart == i; k++ {
			j := jobs[k]
			with := variantFile(j.variant)
			if j.err != nil {
				rest := "its templates are checked unrendered (placeholders unknown)"
				if rendered[i] {
					rest = "this variant is not checked"
				}
				if errors.Is(j.err, helm.ErrNoRenderer) {
					// Once per chart, and what to install once per run.
					if k+1 < len(jobs) && jobs[k+1].chart == i {
						continue
					}
					msg := helmMessage(j.err)
					if noRenderer {
						msg = "no Helm renderer installed (" + helm.Helper + ")"
					}
					noRenderer = true
					notice(fmt.Sprintf("Helm chart %s not rendered: %s; %s", chartLabel(c.dir), msg, rest))
					continue
				}
				notice(fmt.Sprintf("Helm chart %s not rendered with %s: %s; %s", chartLabel(c.dir), escapeNotice(with), helmMessage(j.err), rest))
				continue
			}
			if j.variant == "" && len(j.res.Missing) > 0 {
				deps := dependencyPositions(c, files[i]["Chart.yaml"])
				for _, m := range j.res.Missing {
					pos, ok := deps[m]
					if !ok {
						pos = checker.Position{Filename: c.name, Line: 1, Column: 1}
					}
					ws.Problems = append(ws.Problems, checker.LoadProblem{Pos: pos,
						Message: fmt.Sprintf("Helm chart %s: dependency %s is not in charts/ (helm dependency build); rendered without it", chartLabel(c.dir), escapeNotice(m))})
				}
			}
			for x, f := range j.files {
				ws.AddRendered(f, joinDir(c.dir, variantDir(j.variant)), c.dir)
				for _, p := range j.probs[x] {
					p.Pos = ws.MapPosition(p.Pos)
					ws.Problems = append(ws.Problems, p)
				}
			}
		}
		if rendered[i] {
			for n := range files[i] {
				drop[joinDir(c.dir, n)] = isTemplateFile(n)
			}
		}
	}
	dropMasked(ws, drop)
}

// dependencyPositions maps each dependency name of Chart.yaml to the position of its name,
// parsed once per chart (a chart with thousands of missing dependencies parsed it once per
// dependency, issue 22 item 7).
func dependencyPositions(c chartInput, chartYAML []byte) map[string]checker.Position {
	out := map[string]checker.Position{}
	var n yaml.Node
	if yaml.Unmarshal(chartYAML, &n) != nil || len(n.Content) == 0 {
		return out
	}
	_, deps := checker.LookupNode(n.Content[0], checker.Path{"dependencies"})
	if deps == nil || deps.Kind != yaml.SequenceNode {
		return out
	}
	li := text.NewLineIndex(chartYAML)
	for _, d := range deps.Content {
		if _, v := checker.LookupNode(d, checker.Path{"name"}); v != nil {
			if _, seen := out[v.Value]; !seen {
				out[v.Value] = li.Position(c.name, li.Offset(v.Line, v.Column))
			}
		}
	}
	return out
}

// isTemplateFile reports whether a chart-relative name is a template of the chart or of a
// subchart.
func isTemplateFile(n string) bool {
	return strings.HasPrefix(n, "templates/") || strings.Contains(n, "/templates/") && strings.HasPrefix(n, "charts/")
}

// dropMasked removes the documents (and their load problems) of the templates of rendered
// charts: the rendered files are checked instead, and a finding must not be reported twice.
func dropMasked(ws *checker.Workspace, drop map[string]bool) {
	if len(drop) == 0 {
		return
	}
	for _, f := range ws.Files {
		if drop[f.Path] && f.Format == checker.FormatYAML {
			f.Docs = nil
		}
	}
	ws.Problems = slices.DeleteFunc(ws.Problems, func(p checker.LoadProblem) bool {
		return drop[p.Pos.Filename] && p.Pos.Line > 0
	})
}

func chartLabel(dir string) string {
	if dir == "" {
		return "."
	}
	return escapeNotice(dir)
}

// escapeNotice keeps a name printable (the output layer escapes again).
func escapeNotice(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

var quotedRe = regexp.MustCompile(`"(?:[^"\\]|\\.)*"|'[^']*'|<[^<>]*>`)

// helmMessage is Helm's error without the file content it may quote (the text of a fail or
// required call, a token, a value): quoted parts are elided, and the length is bounded.
func helmMessage(err error) string {
	if errors.Is(err, helm.ErrTimeout) || errors.Is(err, helm.ErrNoRenderer) {
		return err.Error()
	}
	msg := err.Error()
	if i := strings.Index(msg, "execution error at ("); i >= 0 {
		if j := strings.Index(msg[i:], "): "); j >= 0 {
			msg = msg[:i+j+1] + ": the template failed (fail or required)"
		}
	}
	msg = quotedRe.ReplaceAllStringFunc(msg, func(q string) string { return q[:1] + "…" + q[len(q)-1:] })
	msg = escapeNotice(strings.Join(strings.Fields(msg), " "))
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	return msg
}

// preliminaryTargets is the Kubernetes version each chart is rendered at (its
// .Capabilities.KubeVersion): the target of the chart's scope from the files as read.
func preliminaryTargets(ws *checker.Workspace, charts []chartInput, fixed *checker.Version) []string {
	out := make([]string, len(charts))
	if fixed != nil {
		for i := range out {
			out[i] = fixed.String()
		}
		return out
	}
	tmp := &checker.Workspace{Root: ws.Root, Files: slices.Clone(ws.Files)}
	finish(tmp, nil, nil)
	for i, c := range charts {
		out[i] = tmp.TargetOf(c.name).Version.String()
	}
	return out
}

// decodeRendered decodes the outputs of one rendered variant as virtual files, with their
// load problems (positions still in the virtual files).
func decodeRendered(c chartInput, variant string, files map[string][]byte, res *helm.Result, opts Options) ([]*checker.File, [][]checker.LoadProblem) {
	cm := &chartMaps{dir: c.dir, variant: variant, files: files, res: res, lines: map[string]*text.LineIndex{}, docs: map[string]*checker.Document{}}
	var out []*checker.File
	var probs [][]checker.LoadProblem
	for i := range res.Outputs {
		o := &res.Outputs[i]
		name := joinDir(joinDir(c.dir, variantDir(variant)), o.Name)
		f := newFile(name, o.Content)
		f.Reason = "rendered from Helm chart " + chartLabel(c.dir) + " with " + cm.variantFile()
		f.Render = &renderMap{chart: cm, out: o, file: f}
		ps := parseFile(f)
		for _, d := range f.Docs {
			ps = append(ps, decodeDoc(d)...)
		}
		for k := range ps {
			if ps[k].Document == nil {
				// The engine wrote text that is not YAML: Helm would refuse it too, but it is
				// the chart's problem, reported as a notice, never KP001.
				ps[k].Manifest = false
				ps[k].Message = "rendered chart output is not valid YAML (" + ps[k].Message + ")"
			}
		}
		if !opts.KeepTrees {
			pruneWith(f, opts.ruleFactsOf()) // as for the files read from disk (prune.go)
			if opts.WholeOnDemand {
				setRenderedRedecode(f, cm, o)
			} else {
				releaseMasked(f)
			}
		}
		out = append(out, f)
		probs = append(probs, ps)
	}
	return out, probs
}

// setRenderedRedecode lets a rendered file be decoded again whole (checker.File.Redecode,
// Options.WholeOnDemand) from the chart's output o, with its render map, as decodeRendered
// decoded it.
func setRenderedRedecode(f *checker.File, cm *chartMaps, o *helm.Output) {
	if !holdsReduced(f) {
		return
	}
	name, reason := f.Path, f.Reason
	f.Redecode = func() (*checker.File, error) {
		nf := newFile(name, o.Content)
		nf.Reason = reason
		nf.Render = &renderMap{chart: cm, out: o, file: nf}
		return redecoded(nf), nil
	}
}

// chartMaps is what the rendered files of one chart variant share for mapping positions.
type chartMaps struct {
	dir     string
	variant string
	files   map[string][]byte
	res     *helm.Result
	// mu guards the lazily built indexes: rules map positions from several goroutines.
	mu    sync.Mutex
	lines map[string]*text.LineIndex
	docs  map[string]*checker.Document // parsed values files, nil entries for unparsable
}

func (cm *chartMaps) variantFile() string {
	if cm.variant == "" {
		return "values.yaml"
	}
	return cm.variant
}

// pos is the position of byte off of a chart file.
func (cm *chartMaps) pos(rel string, off int) checker.Position {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	li := cm.lines[rel]
	if li == nil {
		li = text.NewLineIndex(cm.files[rel])
		cm.lines[rel] = li
	}
	return li.Position(joinDir(cm.dir, rel), off)
}

// valuesDoc parses a values file of the chart (chart-relative), once.
func (cm *chartMaps) valuesDoc(rel string) *checker.Document {
	cm.mu.Lock()
	defer cm.mu.Unlock()
	if d, ok := cm.docs[rel]; ok {
		return d
	}
	var d *checker.Document
	if b, ok := cm.files[rel]; ok {
		var n yaml.Node
		if yaml.Unmarshal(b, &n) == nil && len(n.Content) > 0 && n.Content[0].Kind == yaml.MappingNode {
			f := newFile(joinDir(cm.dir, rel), b)
			d = &checker.Document{File: f, Node: n.Content[0]}
		}
	}
	cm.docs[rel] = d
	return d
}

// valueSources lists where .Values.<p> of the template file tpl may be set, in precedence
// order: the variant file, then values.yaml, of the root chart (under the subchart's name
// for a subchart's template), then the subchart's own values.yaml.
func (cm *chartMaps) valueSources(tpl string, p []string) []valueSource {
	var out []valueSource
	// The chain of subcharts: "charts/a/charts/b/templates/x.yaml" → [a, b].
	var chain []string
	rest := tpl
	for {
		r, ok := strings.CutPrefix(rest, "charts/")
		if !ok {
			break
		}
		i := strings.IndexByte(r, '/')
		if i < 0 {
			break
		}
		chain = append(chain, r[:i])
		rest = r[i+1:]
	}
	global := len(p) > 0 && p[0] == "global"
	dirOf := func(k int) string { // chart-relative directory of chain[:k]
		d := ""
		for _, c := range chain[:k] {
			d += "charts/" + c + "/"
		}
		return d
	}
	for k := 0; k <= len(chain); k++ {
		// Values of the chart at level k: below it, the path goes through the names of
		// the subcharts chain[k:].
		var full []string
		if global {
			full = p
		} else {
			for _, c := range chain[k:] {
				full = append(full, cm.subchartName(dirOf(k)+"charts/"+c))
			}
			full = append(full, p...)
		}
		if k == 0 && cm.variant != "" {
			out = append(out, valueSource{file: cm.variant, path: full})
		}
		out = append(out, valueSource{file: dirOf(k) + "values.yaml", path: full})
	}
	return out
}

// subchartName is the name a subchart's values are found under: its Chart.yaml name.
func (cm *chartMaps) subchartName(dir string) string {
	var meta struct {
		Name string `yaml:"name"`
	}
	if b, ok := cm.files[dir+"/Chart.yaml"]; ok && yaml.Unmarshal(b, &meta) == nil && meta.Name != "" {
		return meta.Name
	}
	return path.Base(dir)
}

type valueSource struct {
	file string
	path []string
}

// renderMap maps one rendered file (checker.RenderMap).
type renderMap struct {
	chart *chartMaps
	out   *helm.Output
	file  *checker.File
}

// Documents returns the values files parsed for this chart and variant so far
// (Workspace.ReleaseTrees lets their trees go).
func (m *renderMap) Documents() []*checker.Document {
	m.chart.mu.Lock()
	defer m.chart.mu.Unlock()
	out := make([]*checker.Document, 0, len(m.chart.docs))
	for _, d := range m.chart.docs {
		if d != nil {
			out = append(out, d)
		}
	}
	return out
}

// segAt returns the index of the segment holding byte off (the last one for the end).
func (m *renderMap) segAt(off int) int {
	segs := m.out.Segments
	i := sort.Search(len(segs), func(i int) bool { return segs[i].To > off })
	if i >= len(segs) {
		return len(segs) - 1
	}
	return i
}

// Span implements checker.RenderMap.
func (m *renderMap) Span(from, to int, key string) checker.MappedSpan {
	content := m.out.Content
	segs := m.out.Segments
	if len(segs) == 0 {
		p := m.chart.pos("Chart.yaml", 0)
		return checker.MappedSpan{Pos: p, End: p, Approximate: true}
	}
	from = min(max(from, 0), len(content))
	to = min(max(to, from), len(content))
	// Quotes and blanks written literally around a value are not the value.
	for from < to && isQuoteOrBlank(content[from]) && segs[m.segAt(from)].Literal {
		from++
	}
	for to > from && isQuoteOrBlank(content[to-1]) && segs[m.segAt(to-1)].Literal {
		to--
	}
	a, b := m.segAt(from), m.segAt(max(from, to-1))
	sa, sb := segs[a], segs[b]
	if a == b && !sa.Literal {
		return m.actionSpan(sa, from, to, key)
	}
	// A value written into literal text (--proxy-mode={{ .Values.mode }}): the finding is
	// about the value, which the values file sets.
	value := -1
	for k := a; k <= b; k++ {
		if !segs[k].Literal {
			if value >= 0 {
				value = -1
				break
			}
			value = k
		}
	}
	if value >= 0 {
		s := segs[value]
		if vs, ok := m.valueSpan(s, s.From, s.To, key); ok {
			vs.Exact = false // the span holds more than the value
			return vs
		}
	}
	if sa.Literal {
		pos := m.chart.pos(sa.File, sa.Src+from-sa.From)
		ms := checker.MappedSpan{Pos: pos}
		switch {
		case sb.Literal && sb.File == sa.File:
			ms.End = m.chart.pos(sb.File, sb.Src+to-sb.From)
			ms.Exact = a == b
		default:
			ms.End = m.actionEnd(sb)
		}
		// The values written inside the span, as notes.
		for k := a; k <= b; k++ {
			if s := segs[k]; !s.Literal {
				if vs, ok := m.valueSpan(s, s.From, s.To, ""); ok {
					ms.Related = append(ms.Related, checker.Related{Pos: vs.Pos, End: vs.End, Message: "the value is set here"})
				}
			}
		}
		return ms
	}
	return m.actionSpan(sa, from, min(to, sa.To), key)
}

func isQuoteOrBlank(c byte) bool { return c == '"' || c == '\'' || c == ' ' || c == '\t' }

// actionEnd is the end of the last action of a segment's group, in its template.
func (m *renderMap) actionEnd(s helm.Segment) checker.Position {
	if s.Literal {
		return m.chart.pos(s.File, s.Src+s.To-s.From)
	}
	g := m.chart.res.Group(s.File, s.Src)
	if len(g) == 0 {
		return m.chart.pos(s.File, s.Src)
	}
	return m.chart.pos(s.File, g[len(g)-1].To)
}

// actionSpan maps a span inside one action segment: to the value that wrote it, else to a
// string literal of the action, else (approximate) to the action.
func (m *renderMap) actionSpan(s helm.Segment, from, to int, key string) checker.MappedSpan {
	if ms, ok := m.valueSpan(s, from, to, key); ok {
		return ms
	}
	g := m.chart.res.Group(s.File, s.Src)
	text := unquote(string(m.out.Content[from:to]))
	for _, a := range g {
		for _, l := range a.Strings {
			if l.Text == text && text != "" {
				return checker.MappedSpan{Pos: m.chart.pos(s.File, l.Pos+1), End: m.chart.pos(s.File, l.Pos+1+len(l.Text))}
			}
		}
	}
	if len(g) == 0 {
		p := m.chart.pos(s.File, s.Src)
		return checker.MappedSpan{Pos: p, End: p, Approximate: true}
	}
	return checker.MappedSpan{Pos: m.chart.pos(s.File, g[0].From), End: m.chart.pos(s.File, g[0].To), Approximate: true}
}

// valueSpan finds the values file entry that wrote rendered bytes [from, to) of segment s:
// a scalar at a .Values path the segment's actions read whose value is the text, or a
// scalar below a map or list they read (toYaml) with that value, under the key key when
// several match.
func (m *renderMap) valueSpan(s helm.Segment, from, to int, key string) (checker.MappedSpan, bool) {
	g := m.chart.res.Group(s.File, s.Src)
	if len(g) == 0 {
		return checker.MappedSpan{}, false
	}
	span := string(m.out.Content[from:to])
	text := unquote(strings.TrimSpace(span))
	whole := unquote(strings.TrimSpace(string(m.out.Content[s.From:s.To])))
	for _, a := range g {
		for _, p := range a.Paths {
			for _, src := range m.chart.valueSources(s.File, p) {
				d := m.chart.valuesDoc(src.file)
				if d == nil {
					continue
				}
				_, n := checker.LookupNode(d.Node, checker.Path(src.path))
				if n == nil {
					continue
				}
				if n.Kind == yaml.ScalarNode {
					if n.Value != text && n.Value != whole {
						break // set here to something else: the text came from elsewhere
					}
					return m.valueResult(s, a, d, n, n.Value == text && span == strings.TrimSpace(span)), true
				}
				if found := findScalar(n, text, key); found != nil {
					return m.valueResult(s, a, d, found, true), true
				}
				// The setting is here, under a different value: keep looking in the files of
				// lower precedence only when this one does not set it.
				break
			}
		}
	}
	return checker.MappedSpan{}, false
}

// valueResult is the mapped span of a values node, with the template action as a note.
func (m *renderMap) valueResult(s helm.Segment, a helm.Action, d *checker.Document, n *yaml.Node, exact bool) checker.MappedSpan {
	return checker.MappedSpan{
		Pos: d.NodePos(n), End: d.NodeEnd(n), Exact: exact && n.Kind == yaml.ScalarNode && !strings.Contains(n.Value, "\n"),
		Related: []checker.Related{{Pos: m.chart.pos(s.File, a.From), End: m.chart.pos(s.File, a.To),
			Message: "rendered by this template with " + m.chart.variantFile()}},
	}
}

// findScalar finds the scalar below n whose value is text: the one under key when several
// are, nil when that leaves more than one.
func findScalar(n *yaml.Node, text, key string) *yaml.Node {
	var all, keyed []*yaml.Node
	var walk func(n *yaml.Node, k string, depth int)
	walk = func(n *yaml.Node, k string, depth int) {
		if n == nil || depth > 100 || len(all) > 100 {
			return
		}
		switch n.Kind {
		case yaml.ScalarNode:
			if n.Value == text {
				all = append(all, n)
				if k == key {
					keyed = append(keyed, n)
				}
			}
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				walk(n.Content[i+1], n.Content[i].Value, depth+1)
			}
		case yaml.SequenceNode:
			for _, c := range n.Content {
				walk(c, k, depth+1)
			}
		}
	}
	walk(n, "", 0)
	switch {
	case len(all) == 1:
		return all[0]
	case len(keyed) == 1:
		return keyed[0]
	}
	return nil
}

// unquote removes one pair of quotes a template function (quote, squote) put around a value.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}
