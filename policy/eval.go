package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/topdown"
	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
)

// dataRef is where the workspace view appears to policies.
var dataRef = ast.MustParseRef("data.kube_proxy_lint")

// run evaluates the rule on every matching document of the workspace. The workspace view
// is built, and an embedded rule compiled, only once a document the rule applies to is found.
func (rr *regoRule) run(p *checker.Pass) error {
	ws := p.Workspace
	ctx, cancel := context.WithTimeout(p.Context(), Timeout)
	defer cancel()
	// One canceller for the whole run instead of a watcher goroutine per evaluation.
	c := topdown.NewCancel()
	stop := context.AfterFunc(ctx, c.Cancel)
	defer stop()
	// The workspace's state is built on first need (once per workspace for every Rego rule),
	// and the rule prepared on the first input it is evaluated on.
	var st *wsState
	state := func() *wsState {
		if st == nil {
			st = stateFor(ws)
			releaseAfterRules(p.Context(), ws, st)
		}
		return st
	}
	// The resolvers serve data.kube_proxy_lint from the workspace view (fieldResolver), so
	// that one prepared query serves every workspace.
	var opts []rego.EvalOption
	prepared := false
	ready := func() error {
		if prepared {
			return nil
		}
		if err := rr.prepare(); err != nil {
			return err
		}
		opts = append(append(opts, state().resolvers...), rego.EvalExternalCancel(c))
		prepared = true
		return nil
	}
	if rr.needsReplacements && len(state().viewGo.Replacements) == 0 {
		return nil
	}
	// Documents the loader pruned or reduced are read whole from their file when the run
	// keeps that possible (repository policies: load.Options.WholeOnDemand), a file at a time.
	var whole checker.WholeDocs
	for _, d := range ws.Docs {
		if d.Node == nil || (rr.kinds != nil && !rr.kinds[d.Kind]) {
			continue
		}
		if (rr.kubeProxyWorkloads && workloadKinds[d.Kind]) || rr.modes != nil {
			// Both need a kube-proxy that the document runs or configures (in the view).
			if ins := state().byDoc[docID(d)]; len(ins) == 0 || !rr.inModes(ins) {
				continue
			}
		}
		wd := d
		if rr.src == nil {
			// A repository policy may read any field; the built-in rules read only what
			// pruning and the reductions keep (checker/load/prune.go, TestPruneKeepsFindings).
			var err error
			if wd, err = whole.Of(d); err != nil {
				rr.internal(p, d, err)
				continue
			}
		}
		// The document's generic form and its input are built for this evaluation and
		// dropped after it (issue 24): no document holds them for the rest of the run.
		obj, err := wd.GenericUncached()
		if err != nil {
			continue // the loader reports documents that cannot be converted (KP001 or a notice)
		}
		if err := ready(); err != nil {
			return err
		}
		in, held, err := st.input(ws, d, obj)
		if err != nil {
			rr.internal(p, wd, err)
			continue
		}
		run := budget.From(ctx)
		if run != nil {
			// Held while evaluated: charged now, released once the evaluation is done.
			if err := run.Charge(held, "the policy input of "+docID(d)); err != nil {
				return err
			}
			run.Do("evaluating " + rr.file + " on " + d.File.Path)
		}
		mctx, m := withMeter(ctx, func() string { return "policy " + rr.file + " on " + docID(d) })
		rs, err := rr.query.Eval(mctx, append(opts, rego.EvalParsedInput(in))...)
		m.done()
		run.Release(held)
		if err := ctx.Err(); err != nil {
			if be := budget.From(ctx).Err(); be != nil {
				return be
			}
			if p.Cancelled() {
				return fmt.Errorf("evaluate %s: %w", rr.file, p.Context().Err())
			}
			return fmt.Errorf("evaluate %s: timed out after %s (at %s)", rr.file, Timeout, docID(d))
		}
		if err != nil {
			rr.internal(p, wd, err)
			continue
		}
		if err := rr.report(p, st, wd, rs); err != nil {
			return err
		}
	}
	if !rr.commandLines || !hasCommandLines(ws) {
		return nil
	}
	for _, file := range state().commandFiles {
		if !rr.inModes(st.byCommandFile[file]) {
			continue
		}
		if err := ready(); err != nil {
			return err
		}
		mctx, m := withMeter(ctx, func() string { return "policy " + rr.file + " on the command lines of " + file })
		rs, err := rr.query.Eval(mctx, append(opts, rego.EvalParsedInput(st.commandInput(file)))...)
		m.done()
		if ctx.Err() != nil {
			if be := budget.From(ctx).Err(); be != nil {
				return be
			}
			if p.Cancelled() {
				return fmt.Errorf("evaluate %s: %w", rr.file, p.Context().Err())
			}
			return fmt.Errorf("evaluate %s: timed out after %s (at %s)", rr.file, Timeout, file)
		}
		if err == nil {
			if err := rr.report(p, st, nil, rs); err != nil {
				return err
			}
			continue
		}
		p.Report(checker.Finding{
			Severity: checker.SeverityError,
			Message:  fmt.Sprintf("internal error: evaluate %s on the command lines of this file: %s", rr.file, strings.Join(strings.Fields(err.Error()), " ")),
			Pos:      checker.Position{Filename: file}, Internal: true,
		})
	}
	return nil
}

// internal reports a runtime error of the rule on one document; the run goes on.
func (rr *regoRule) internal(p *checker.Pass, d *checker.Document, err error) {
	pos, end := d.KindPos()
	msg := strings.Join(strings.Fields(err.Error()), " ")
	p.Report(checker.Finding{
		Severity: checker.SeverityError,
		Message:  fmt.Sprintf("internal error: evaluate %s on this document: %s", rr.file, msg),
		Pos:      pos, End: end, Object: d.Ref(), Internal: true,
	})
}

// contractError is a finding that breaks the contract: the rule is broken, not the input.
func (rr *regoRule) contractError(format string, args ...any) error {
	return fmt.Errorf("%s:%d: findings: %s", rr.file, rr.findingsLine, fmt.Sprintf(format, args...))
}

func (rr *regoRule) report(p *checker.Pass, st *wsState, d *checker.Document, rs rego.ResultSet) error {
	if len(rs) == 0 || len(rs[0].Expressions) == 0 {
		return nil
	}
	items, ok := rs[0].Expressions[0].Value.([]any)
	if !ok {
		return rr.contractError("must be a set of objects, got %T", rs[0].Expressions[0].Value)
	}
	for _, it := range items {
		f, err := rr.finding(st, d, it)
		if err != nil {
			return err
		}
		p.Report(f)
	}
	return nil
}

// finding maps one element of findings to a checker.Finding.
func (rr *regoRule) finding(st *wsState, d *checker.Document, it any) (checker.Finding, error) {
	obj, ok := it.(map[string]any)
	if !ok {
		return checker.Finding{}, rr.contractError("finding must be an object with msg and path, got %s", short(it))
	}
	msg, ok := obj["msg"].(string)
	if !ok || strings.TrimSpace(msg) == "" {
		return checker.Finding{}, rr.contractError("finding without a \"msg\" string: %s", short(it))
	}
	raw, present := obj["path"]
	path, err := toPath(raw)
	if !present || err != nil {
		if !present {
			err = errors.New("missing")
		}
		return checker.Finding{}, rr.contractError("finding with a malformed \"path\" (%v; want an array of keys and indices): %s", err, short(it))
	}
	if d == nil {
		// Command lines in a text file: no document, so the location says where.
		return rr.commandFinding(st, obj, msg, it)
	}
	f := checker.Finding{Message: msg, Object: d.Ref(), Path: path}
	if s, ok := obj["severity"].(string); ok {
		sev, err := checker.ParseSeverity(s)
		if err != nil || sev == checker.SeverityNone {
			return checker.Finding{}, rr.contractError("finding with a bad \"severity\" %q: %s", s, short(it))
		}
		f.Severity = sev
	}
	atKey := obj["at"] == "key"
	f.Pos, f.End, f.Message = rr.position(d, path, atKey, msg)
	// null is no location: policies copy locations from the data, where an unknown one is null
	// (a mode that comes from a default has none).
	if l, ok := obj["location"]; ok && l != nil {
		pos, end, err := st.location(l)
		if err != nil {
			return checker.Finding{}, rr.contractError("finding with a bad \"location\" (%v): %s", err, short(it))
		}
		f.Pos, f.End = pos, end
	}
	if rel, ok := obj["related"]; ok {
		list, ok := rel.([]any)
		if !ok {
			return checker.Finding{}, rr.contractError("\"related\" must be an array: %s", short(it))
		}
		for _, r := range list {
			ro, _ := r.(map[string]any)
			m, _ := ro["msg"].(string)
			pos, end, err := st.location(ro["location"])
			if ro == nil || m == "" || err != nil {
				return checker.Finding{}, rr.contractError("related entries need msg and location {file, line, column}: %s", short(r))
			}
			f.Related = append(f.Related, checker.Related{Pos: pos, End: end, Message: m})
		}
	}
	if fx, ok := obj["fix"]; ok {
		fix, err := rr.fix(d, path, fx)
		if err != nil {
			return checker.Finding{}, err
		}
		f.Fixes = []checker.Fix{fix}
	}
	return f, nil
}

// commandFinding maps a finding on the command lines of a text file (CommandLineKind): it
// needs a location, has no path into a document, and offers no fix.
func (rr *regoRule) commandFinding(st *wsState, obj map[string]any, msg string, it any) (checker.Finding, error) {
	l, ok := obj["location"]
	if !ok {
		return checker.Finding{}, rr.contractError("a finding on command lines (input.kind %q) needs a \"location\": %s", CommandLineKind, short(it))
	}
	if _, ok := obj["fix"]; ok {
		return checker.Finding{}, rr.contractError("a finding on command lines (input.kind %q) cannot have a \"fix\": %s", CommandLineKind, short(it))
	}
	f := checker.Finding{Message: msg}
	if s, ok := obj["severity"].(string); ok {
		sev, err := checker.ParseSeverity(s)
		if err != nil || sev == checker.SeverityNone {
			return checker.Finding{}, rr.contractError("finding with a bad \"severity\" %q: %s", s, short(it))
		}
		f.Severity = sev
	}
	var err error
	if f.Pos, f.End, err = st.location(l); err != nil {
		return checker.Finding{}, rr.contractError("finding with a bad \"location\" (%v): %s", err, short(it))
	}
	if rel, ok := obj["related"].([]any); ok {
		for _, r := range rel {
			ro, _ := r.(map[string]any)
			m, _ := ro["msg"].(string)
			pos, end, err := st.location(ro["location"])
			if ro == nil || m == "" || err != nil {
				return checker.Finding{}, rr.contractError("related entries need msg and location {file, line, column}: %s", short(r))
			}
			f.Related = append(f.Related, checker.Related{Pos: pos, End: end, Message: m})
		}
	}
	return f, nil
}

// position maps a path to a span: the value for a scalar, the key otherwise (or when atKey).
// A path that does not exist falls back to its nearest existing parent, and the message
// says so, since the policy meant another place.
func (rr *regoRule) position(d *checker.Document, path checker.Path, atKey bool, msg string) (checker.Position, checker.Position, string) {
	if _, v := d.Lookup(path); v != nil {
		if v.Kind == yaml.ScalarNode && !atKey {
			pos, end, _ := d.ValuePos(path)
			return pos, end, msg
		}
		pos, end, _ := d.KeyPos(path)
		return pos, end, msg
	}
	for i := len(path) - 1; i >= 1; i-- {
		if pos, end, ok := d.KeyPos(path[:i]); ok {
			return pos, end, fmt.Sprintf("%s (reported at %s: %s does not exist)", msg, path[:i], path)
		}
	}
	pos, end := d.KindPos()
	return pos, end, fmt.Sprintf("%s (reported at the document: %s does not exist)", msg, path)
}

// location resolves a {file, line, column, endLine?, endColumn?} object to positions.
func (st *wsState) location(v any) (checker.Position, checker.Position, error) {
	o, ok := v.(map[string]any)
	if !ok {
		return checker.Position{}, checker.Position{}, errors.New("not an object")
	}
	file, _ := o["file"].(string)
	f := st.files[file]
	if f == nil {
		return checker.Position{}, checker.Position{}, fmt.Errorf("no file %q in the workspace", file)
	}
	num := func(k string) int {
		n, _ := toInt(o[k])
		return n
	}
	line, col := num("line"), num("column")
	if line < 1 || col < 1 || line > f.Lines.Lines() {
		return checker.Position{}, checker.Position{}, errors.New("line and column must be within the file")
	}
	pos := f.Lines.Position(f.Path, f.Lines.Offset(line, col))
	end := pos
	if el, ec := num("endLine"), num("endColumn"); el >= line && ec >= 1 {
		end = f.Lines.Position(f.Path, f.Lines.Offset(el, ec))
	}
	return pos, end, nil
}

// fix builds a fix that replaces the scalar at fix.path (default: the finding's path) with
// fix.newText.
func (rr *regoRule) fix(d *checker.Document, path checker.Path, v any) (checker.Fix, error) {
	o, ok := v.(map[string]any)
	if !ok {
		return checker.Fix{}, rr.contractError("\"fix\" must be an object {msg, newText, path?, safe?}")
	}
	text, ok := o["newText"].(string)
	if !ok {
		return checker.Fix{}, rr.contractError("\"fix\" needs a newText string")
	}
	if p, ok := o["path"]; ok {
		var err error
		if path, err = toPath(p); err != nil {
			return checker.Fix{}, rr.contractError("\"fix\" has a malformed path: %v", err)
		}
	}
	_, n := d.Lookup(path)
	if n == nil || n.Kind != yaml.ScalarNode || strings.Contains(n.Value, "\n") {
		return checker.Fix{}, rr.contractError("\"fix\" path %s is not a one-line scalar", path)
	}
	pos, end, _ := d.ValuePos(path)
	msg, _ := o["msg"].(string)
	if msg == "" {
		msg = "Set " + path.String() + " to " + text
	}
	fix := checker.Fix{Message: msg, Edits: []checker.TextEdit{{Pos: pos, End: end, NewText: text}}}
	// A policy's fix is unsafe (applied only with --unsafe-fixes) unless it says otherwise.
	if v, ok := o["safe"]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return checker.Fix{}, rr.contractError("\"fix\" safe must be a boolean")
		}
		if b {
			fix.Safety = checker.Safe
		}
	}
	return fix, nil
}

// toPath converts a Rego path (array of strings and non-negative integers) to a Path.
func toPath(v any) (checker.Path, error) {
	arr, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("got %s", short(v))
	}
	p := make(checker.Path, 0, len(arr))
	for _, e := range arr {
		switch x := e.(type) {
		case string:
			p = append(p, x)
		default:
			n, ok := toInt(x)
			if !ok || n < 0 {
				return nil, fmt.Errorf("element %s is neither a key nor an index", short(e))
			}
			p = append(p, strconv.Itoa(n))
		}
	}
	return p, nil
}

func toInt(v any) (int, bool) {
	switch x := v.(type) {
	case json.Number:
		i, err := x.Int64()
		return int(i), err == nil
	case int:
		return x, true
	case int64:
		return int(x), true
	case float64:
		if x == math.Trunc(x) {
			return int(x), true
		}
	}
	return 0, false
}

// short renders a value for an error message.
func short(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// workloadKinds are the kinds with a pod spec, which custom.workloads: kube-proxy narrows.
var workloadKinds = map[string]bool{
	"Pod": true, "DaemonSet": true, "Deployment": true, "StatefulSet": true,
	"ReplicaSet": true, "Job": true, "CronJob": true,
}

// inModes reports whether one of ins runs in one of the rule's modes (custom.modes), or the
// rule names no modes.
func (rr *regoRule) inModes(ins []InstanceView) bool {
	if rr.modes == nil {
		return true
	}
	for _, in := range ins {
		if rr.modes[in.Mode.Value] {
			return true
		}
	}
	return false
}

// hasCommandLines reports whether ws has kube-proxy command lines in text files, the input
// of rules whose kinds list CommandLineKind (see wsState.commandFiles).
func hasCommandLines(ws *checker.Workspace) bool {
	for _, in := range ws.Instances {
		if in.Kind == checker.InstanceCommand && in.Source != nil {
			return true
		}
	}
	return false
}
