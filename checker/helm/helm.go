// Package helm is the side of Helm rendering that runs in kube-proxy-lint itself: what a
// rendering is asked (Request) and answers (Result: the rendered manifests, and for every
// byte of them where it is written, a template's literal text or the output of a template
// action and the .Values paths that action reads), and the child processes that render
// (Pool). It does not import Helm: Helm's engine and everything it brings (a JSON Schema
// compiler, client-go's scheme) cost a third of the start-up of every run, charts or not, so
// they live in package render, which only the renderer executable kube-proxy-lint-helm (and
// tests) link.
package helm

import (
	"errors"
	"time"
)

// Request is one chart and one set of values to render.
type Request struct {
	// Files are the chart's files by slash path relative to the chart directory
	// ("Chart.yaml", "values.yaml", "templates/ds.yaml", "charts/sub/templates/x.yaml").
	Files map[string][]byte
	// Values is the content of a values file given on top of the chart's values.yaml (a
	// variant such as values-prod.yaml), or nil.
	Values []byte
	// KubeVersion is the Kubernetes version of .Capabilities ("1.40").
	KubeVersion string
	// MaxOutput bounds the rendered bytes of the whole chart; 0 means DefaultMaxOutput.
	MaxOutput int
}

// DefaultMaxOutput is the default bound of a chart's rendered output.
const DefaultMaxOutput = 16 << 20

// Result is a rendered chart.
type Result struct {
	// Outputs are the rendered manifests, one per template file, sorted by Name.
	Outputs []Output
	// Actions are the output actions of each template file (by chart-relative name).
	Actions map[string][]Action
	// Missing names the dependencies of Chart.yaml that are not in charts/.
	Missing []string
	// Texts are the literal text nodes of each template file ([from, to) offsets).
	Texts map[string][][2]int
}

// Group returns the output actions that follow offset src of file up to its next literal
// text: the actions that wrote a non-literal Segment with that Src.
func (r *Result) Group(file string, src int) []Action {
	end := int(^uint(0) >> 1)
	for _, t := range r.Texts[file] {
		if t[0] > src {
			end = t[0]
			break
		}
	}
	var out []Action
	for _, a := range r.Actions[file] {
		if a.From >= src && a.From < end {
			out = append(out, a)
		}
	}
	return out
}

// Output is what one template file rendered.
type Output struct {
	// Name is the template file, relative to the chart directory.
	Name string
	// Content is the rendered text.
	Content []byte
	// Segments cover Content in order: each is a template's literal text or an action's
	// output.
	Segments []Segment
}

// Segment is a run of rendered bytes that come from one place.
type Segment struct {
	// From and To are offsets in Output.Content.
	From, To int
	// File is the template file (chart-relative) the bytes come from.
	File string
	// Literal is true for a template's literal text: byte From is byte Src of File and the
	// rest follow one to one. Otherwise the bytes are the output of the actions that follow
	// offset Src in File (up to the next literal text).
	Literal bool
	Src     int
}

// Error is a chart that could not be rendered: Helm's message.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Action is one template action that writes output ({{ .Values.x }}, {{ include "h" . }},
// {{ template "t" . }}), with what it reads: the .Values paths of its pipeline (and of the
// helpers it includes) and its string literals (the default of `default "iptables"`).
type Action struct {
	// From and To are the byte offsets of the action in its file, "{{" to "}}" inclusive.
	From, To int
	// Paths are the .Values paths the action reads, relative to the chart's values.
	Paths [][]string
	// Strings are the string literals of the pipeline: their text and offset (of the quote).
	Strings []Literal
}

// Literal is a string literal of a template action.
type Literal struct {
	Text string
	Pos  int
}

// ErrTimeout is returned by RenderBounded when rendering takes too long.
var ErrTimeout = errors.New("rendering took too long")

// RenderBounded renders req in this process with Renderer, with a time limit: a chart that loops (`range until 100000000`)
// is abandoned after timeout. Rendering runs on its own goroutine; an abandoned rendering
// runs on until its loop ends, bounded by the output limit of its writer's memory, so the
// run itself is never held up.
func RenderBounded(req Request, timeout time.Duration) (*Result, error) {
	type answer struct {
		res *Result
		err error
	}
	ch := make(chan answer, 1)
	render := Renderer
	if render == nil {
		return nil, ErrNoRenderer
	}
	go func() {
		res, err := render(req)
		ch <- answer{res, err}
	}()
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case a := <-ch:
		return a.res, a.err
	case <-t.C:
		return nil, ErrTimeout
	}
}
