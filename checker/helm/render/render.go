// Package render renders Helm charts with Helm's own engine (helm.sh/helm/v3) for the loader,
// and says, for every byte of the output, where it is written: a template's literal text, or
// the output of a template action and the .Values paths that action reads. It only sees the
// files it is given (never the file system or the network: `lookup` returns nothing, `.Files`
// holds the chart's own files) and it is the only package that imports Helm. Only the
// renderer executable (cmd/kube-proxy-lint-helm, started by package helm's Pool) and tests
// link it.
package render

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"

	"fmt"
	"io"
	"log"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
)

var quietLog sync.Once

// Render renders the chart of req with Helm's engine. It does not bound time: see
// RenderBounded.
func Render(req helm.Request) (res *helm.Result, err error) {
	// Helm's loader and value coalescing log warnings (with value keys in them) through the
	// standard logger: nothing of the chart may reach the terminal unescaped.
	quietLog.Do(func() { log.SetOutput(io.Discard) })
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, &helm.Error{Msg: fmt.Sprintf("rendering panicked: %v", r)}
		}
	}()
	names := make([]string, 0, len(req.Files))
	for n := range req.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	// Parse and instrument every template file (text/template syntax).
	var tplNames []string
	infos := map[string]*fileInfo{}
	for _, n := range names {
		if isTemplate(n) {
			tplNames = append(tplNames, n)
			infos[n] = analyze(n, string(req.Files[n]))
		}
	}
	all := make([]*fileInfo, 0, len(tplNames))
	for _, n := range tplNames {
		all = append(all, infos[n])
	}
	resolveIncludes(all)
	if err := checkCounts(tplNames, infos, req); err != nil {
		return nil, err
	}
	ids := map[string]int{}
	for i, n := range tplNames {
		ids[n] = i
	}
	build := func(instrumented bool) []*loader.BufferedFile {
		files := make([]*loader.BufferedFile, 0, len(names))
		for _, n := range names {
			data := req.Files[n]
			if fi := infos[n]; instrumented && fi != nil && fi.err == nil && !strings.HasPrefix(path.Base(n), "_") {
				data = []byte(instrument(ids[n], string(data), fi))
			}
			files = append(files, &loader.BufferedFile{Name: n, Data: data})
		}
		return files
	}
	out, missing, err := renderFiles(build(true), req)
	exact := true
	if err != nil {
		// Render as written: Helm's own message (its columns are the file's), and a chart the
		// markers would break still renders.
		out, missing, err = renderFiles(build(false), req)
		if err != nil {
			return nil, err
		}
		exact = false
	}
	res = &helm.Result{Actions: map[string][]helm.Action{}, Missing: missing, Texts: map[string][][2]int{}}
	for _, n := range tplNames {
		res.Actions[n] = infos[n].actions
		res.Texts[n] = infos[n].texts
	}
	max := req.MaxOutput
	if max <= 0 {
		max = helm.DefaultMaxOutput
	}
	total := 0
	keys := make([]string, 0, len(out))
	for k := range out {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		text := out[k]
		total += len(text)
		if total > max {
			return nil, &helm.Error{Msg: fmt.Sprintf("rendered output is larger than %d bytes", max)}
		}
		var o helm.Output
		if exact {
			o = split(text, tplNames, req.Files)
		} else {
			o = approximate(k, text, tplNames)
		}
		if o.Name == "" || path.Base(o.Name) == "NOTES.txt" || strings.TrimSpace(string(o.Content)) == "" {
			continue
		}
		res.Outputs = append(res.Outputs, o)
	}
	sort.Slice(res.Outputs, func(i, j int) bool { return res.Outputs[i].Name < res.Outputs[j].Name })
	return res, nil
}

// checkCounts refuses a chart whose templates ask for a loop or string larger than maxCount,
// written in a template or set in a values file: text/template cannot be interrupted, so the
// bound is checked before rendering.
func checkCounts(tplNames []string, infos map[string]*fileInfo, req helm.Request) error {
	var sources []map[string]any
	for n, b := range req.Files {
		if path.Base(n) == "values.yaml" {
			if v, err := chartutil.ReadValues(b); err == nil {
				sources = append(sources, v)
			}
		}
	}
	if req.Values != nil {
		if v, err := chartutil.ReadValues(req.Values); err == nil {
			sources = append(sources, v)
		}
	}
	for _, n := range tplNames {
		fi := infos[n]
		if fi.bound != "" {
			return &helm.Error{Msg: fmt.Sprintf("%s asks for a loop or string of %s items (more than %d); not rendered", n, fi.bound, maxCount)}
		}
		for _, p := range fi.counts {
			for _, src := range sources {
				if f, ok := number(lookup(src, p)); ok && (f > maxCount || f < -maxCount) {
					return &helm.Error{Msg: fmt.Sprintf("%s asks for a loop or string of .Values.%s items (more than %d); not rendered", n, strings.Join(p, "."), maxCount)}
				}
			}
		}
	}
	return nil
}

func lookup(v any, p []string) any {
	for _, k := range p {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	return 0, false
}

// isTemplate reports whether a chart-relative file is a template of the chart or of a
// subchart in charts/ (not of an archive).
func isTemplate(n string) bool {
	for {
		if strings.HasPrefix(n, "templates/") {
			return true
		}
		rest, ok := strings.CutPrefix(n, "charts/")
		if !ok {
			return false
		}
		i := strings.IndexByte(rest, '/')
		if i < 0 {
			return false
		}
		n = rest[i+1:]
	}
}

// renderFiles loads the files as a chart and renders it as `helm template` does: release
// "release-name" in namespace "default", an install, the chart's values with req.Values on
// top, dependencies enabled by their conditions and tags, values.schema.json not checked
// (its $refs may name URLs).
func renderFiles(files []*loader.BufferedFile, req helm.Request) (map[string]string, []string, error) {
	ch, err := loader.LoadFiles(files)
	if err != nil {
		return nil, nil, &helm.Error{Msg: "load chart: " + err.Error()}
	}
	if err := ch.Validate(); err != nil {
		return nil, nil, &helm.Error{Msg: "invalid Chart.yaml: " + err.Error()}
	}
	if ch.Metadata != nil && strings.EqualFold(ch.Metadata.Type, "library") {
		return nil, nil, &helm.Error{Msg: "a library chart renders nothing"}
	}
	missing := missingDeps(ch)
	vals := map[string]any{}
	if req.Values != nil {
		v, err := chartutil.ReadValues(req.Values)
		if err != nil {
			return nil, nil, &helm.Error{Msg: "read values: " + err.Error()}
		}
		vals = v
	}
	if err := chartutil.ProcessDependenciesWithMerge(ch, vals); err != nil {
		return nil, nil, &helm.Error{Msg: "dependencies: " + err.Error()}
	}
	caps := chartutil.DefaultCapabilities.Copy()
	kube := req.KubeVersion
	if strings.Count(kube, ".") == 1 {
		kube += ".0" // 1.40 is v1.40.0, as a cluster reports it
	}
	if kv, err := chartutil.ParseKubeVersion(kube); err == nil {
		caps.KubeVersion = *kv
	}
	top, err := chartutil.ToRenderValuesWithSchemaValidation(ch, vals, chartutil.ReleaseOptions{Name: "release-name", Namespace: "default", IsInstall: true}, caps, true)
	if err != nil {
		return nil, nil, &helm.Error{Msg: "values: " + err.Error()}
	}
	// As helm lint does: a required value or a fail the user would set at install time does
	// not stop the rendering (required renders "", fail nothing).
	out, err := engine.Engine{LintMode: true}.Render(ch, top)
	if err != nil {
		return nil, nil, &helm.Error{Msg: err.Error()}
	}
	return out, missing, nil
}

// missingDeps lists the dependencies Chart.yaml names that charts/ does not hold.
func missingDeps(ch *chart.Chart) []string {
	if ch.Metadata == nil {
		return nil
	}
	have := map[string]bool{}
	for _, d := range ch.Dependencies() {
		have[d.Name()] = true
	}
	var out []string
	for _, d := range ch.Metadata.Dependencies {
		if d != nil && !have[d.Name] {
			out = append(out, d.Name)
		}
	}
	return out
}

// split removes the markers from one rendered template and returns its segments.
func split(text string, tplNames []string, files map[string][]byte) helm.Output {
	var o helm.Output
	var b strings.Builder
	b.Grow(len(text))
	file, src, literal := -1, 0, false
	segStart := 0
	flush := func() {
		if file < 0 {
			return // bytes before the file marker belong to the file's first segment
		}
		if b.Len() > segStart {
			o.Segments = append(o.Segments, helm.Segment{From: segStart, To: b.Len(), File: tplNames[file], Literal: literal, Src: src})
		}
		segStart = b.Len()
	}
	var cur []byte // source of the current file, for literal runs
	for i := 0; i < len(text); {
		if strings.HasPrefix(text[i:], markOpen) {
			if kind, id, off, n, ok := parseMarker(text[i:], len(tplNames)); ok {
				switch kind {
				case 'f':
					if file < 0 {
						file, src, literal = id, 0, false
						o.Name = tplNames[id]
						cur = files[o.Name]
					}
				case 's', 'e':
					flush()
					file, src, literal = id, off, kind == 's'
					cur = files[tplNames[id]]
				}
				i += n
				continue
			}
		}
		c := text[i]
		if literal {
			// The literal text must be the source's, byte for byte; where it is not (text of
			// a whole file included and re-indented), it is action output from here on.
			pos := src + (b.Len() - segStart)
			if pos >= len(cur) || cur[pos] != c {
				flush()
				literal, src = false, pos
			}
		}
		b.WriteByte(c)
		i++
	}
	flush()
	o.Content = []byte(b.String())
	return o
}

// parseMarker reads a marker at the start of s: its kind, file id, offset and length.
func parseMarker(s string, files int) (kind byte, id, off, n int, ok bool) {
	end := strings.Index(s, markClose)
	if end < 0 || end > 40 {
		return 0, 0, 0, 0, false
	}
	body := s[len(markOpen):end]
	if body == "" {
		return 0, 0, 0, 0, false
	}
	kind = body[0]
	idText, offText, hasOff := strings.Cut(body[1:], ".")
	id, err := strconv.Atoi(idText)
	if err != nil || id < 0 || id >= files {
		return 0, 0, 0, 0, false
	}
	switch kind {
	case 'f':
		if hasOff {
			return 0, 0, 0, 0, false
		}
	case 's', 'e':
		if off, err = strconv.Atoi(offText); err != nil || off < 0 {
			return 0, 0, 0, 0, false
		}
	default:
		return 0, 0, 0, 0, false
	}
	return kind, id, off, end + len(markClose), true
}

// approximate is the output of a chart rendered without markers: every byte is attributed to
// the start of its template file.
func approximate(helmName, text string, tplNames []string) helm.Output {
	// Helm names outputs "<chart>/templates/x.yaml", "<chart>/charts/<sub>/templates/x.yaml";
	// with subcharts named as their directories this is the file's path below the chart.
	_, rel, _ := strings.Cut(helmName, "/")
	for _, n := range tplNames {
		if n == rel {
			return helm.Output{Name: n, Content: []byte(text), Segments: []helm.Segment{{From: 0, To: len(text), File: n}}}
		}
	}
	return helm.Output{}
}
