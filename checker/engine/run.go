package engine

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
)

// runRules runs every rule on a bounded pool of goroutines. Each rule collects into its own
// slice and the slices are joined in rule order, so the result does not depend on scheduling.
func runRules(st *state) error {
	n := len(st.rules)
	found := make([]findingBlocks, n)
	failed := make([]*Failure, n)
	workers := min(runtime.GOMAXPROCS(0), n)
	// What the rules share for the run (the Rego rules' view of the workspace) is released
	// once they have all returned, before the findings are processed and written; what the
	// rules of a group share (Rule.Shares), once that group's rules have.
	ctx, rulesDone := checker.WithAfterRules(st.ctx)
	order, groups := runOrder(ctx, st.rules)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				i := order[k]
				g := groups[st.rules[i].Shares]
				rctx := ctx
				if g != nil {
					rctx = g.ctx
				}
				found[i], failed[i] = runRule(rctx, st.ws, st.rules[i], st.proc.Registry)
				if g != nil && g.left.Add(-1) == 0 {
					g.done()
				}
			}
		})
	}
	// On cancellation the run is abandoned without waiting for a rule that does not check
	// the context: the process is about to exit and no finding of this run is reported.
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
		for _, g := range groups {
			g.done() // a group whose rules did not all run (the run was cancelled): no-op otherwise
		}
		rulesDone()
	case <-st.ctx.Done():
		return st.ctx.Err()
	}
	if err := st.ctx.Err(); err != nil {
		return err
	}
	total := len(st.out.Findings)
	for i := range found {
		total += found[i].n + 1 // and a failure's finding
	}
	// Sized once: grown by appending, the slice was copied as it doubled while every rule's
	// findings were still held (issue 24: 40 MB at 100,000 files, at the run's peak).
	st.out.Findings = slices.Grow(st.out.Findings, total-len(st.out.Findings))
	for i, r := range st.rules {
		for _, b := range found[i].blocks {
			st.out.Findings = append(st.out.Findings, b...)
		}
		found[i] = findingBlocks{}
		if f := failed[i]; f != nil {
			st.out.Failures = append(st.out.Failures, *f)
			st.out.Findings = append(st.out.Findings, internalFinding(st.ws, r, f.Err))
		}
	}
	st.out.InternalErrors = len(st.out.Failures)
	setSubjects(st.ws, st.out.Findings)
	return nil
}

// findingBlocks holds a rule's findings in blocks that grow to maxFindingBlock findings:
// appended to one slice, they were copied each time it doubled and held in an array up to
// twice their size (issue 24: KP401's 41,000 findings at 100,000 files, 12 MB, in 19 MB).
type findingBlocks struct {
	blocks [][]checker.Finding
	n      int
}

// maxFindingBlock is the most findings a block of findingBlocks holds (74 KiB).
const maxFindingBlock = 256

func (b *findingBlocks) add(f checker.Finding) {
	if k := len(b.blocks); k == 0 || len(b.blocks[k-1]) == cap(b.blocks[k-1]) {
		b.blocks = append(b.blocks, make([]checker.Finding, 0, min(max(4, b.n), maxFindingBlock)))
	}
	k := len(b.blocks) - 1
	b.blocks[k] = append(b.blocks[k], f)
	b.n++
}

// shareGroup is the rules of a run that name one Rule.Shares: their context, for AfterRules,
// how many have not returned yet, and what the last one to return calls.
type shareGroup struct {
	ctx  context.Context
	left atomic.Int32
	done func()
}

// runOrder returns the order in which the rules are started (those that share something
// first, in their order, then the others; findings keep the rules' order) and the groups of
// those that share.
func runOrder(ctx context.Context, rules []*checker.Rule) ([]int, map[string]*shareGroup) {
	order := make([]int, 0, len(rules))
	groups := map[string]*shareGroup{}
	for i, r := range rules {
		if r.Shares == "" {
			continue
		}
		order = append(order, i)
		g := groups[r.Shares]
		if g == nil {
			g = &shareGroup{}
			g.ctx, g.done = checker.WithAfterRules(ctx)
			groups[r.Shares] = g
		}
		g.left.Add(1)
	}
	for i, r := range rules {
		if r.Shares == "" {
			order = append(order, i)
		}
	}
	return order, groups
}

// setSubjects fills Finding.Subject, the identity of findings without a field path, from the
// source text of their spans.
func setSubjects(ws *checker.Workspace, fs []checker.Finding) {
	// The files with such findings, found once each: a map of every file was 10 MB at
	// 100,000 files, at the run's peak.
	files := map[string]*checker.File{}
	fileOf := func(name string) *checker.File {
		file, ok := files[name]
		if !ok {
			file = ws.File(name)
			files[name] = file
		}
		return file
	}
	for i := range fs {
		f := &fs[i]
		if len(f.Path) > 0 || f.Internal || f.End.Filename != f.Pos.Filename {
			continue
		}
		var content []byte
		if file := fileOf(f.Pos.Filename); file != nil {
			content, _ = file.TextOnce() // released content is read again; nil if it changed
		}
		f.Subject = checker.SubjectOf(content, f.Pos.Offset, f.End.Offset)
	}
}

// runRule runs one rule, turning a panic or an error into a Failure. Findings reported before
// a failure are kept: they are real, and the run exits with an error anyway.
func runRule(ctx context.Context, ws *checker.Workspace, r *checker.Rule, registry []*checker.Rule) (fs findingBlocks, fail *Failure) {
	var mu sync.Mutex
	closed := false
	pass := checker.NewPass(r, ws, func(f checker.Finding) {
		// A rule may report from goroutines of its own, even after Run returned; the lock
		// keeps that race-free and closed drops late reports.
		mu.Lock()
		defer mu.Unlock()
		if !closed {
			fs.add(f)
		}
	})
	pass.Registry = registry
	pass.Ctx = ctx
	budget.From(ctx).Do("running rule " + r.ID)
	defer func() {
		v := recover()
		mu.Lock()
		closed = true
		mu.Unlock()
		if v != nil {
			fail = &Failure{Rule: r, Err: fmt.Errorf("rule panicked: %v", v), Stack: debug.Stack()}
		}
	}()
	if r.Run == nil {
		return findingBlocks{}, &Failure{Rule: r, Err: fmt.Errorf("rule failed: no Run function")}
	}
	if err := r.Run(pass); err != nil {
		return fs, &Failure{Rule: r, Err: fmt.Errorf("rule failed: %w", err)}
	}
	return fs, nil
}

// internalFinding reports a broken rule at the start of the workspace's first real file, so
// that every output format, which needs a location, can show it.
func internalFinding(ws *checker.Workspace, r *checker.Rule, err error) checker.Finding {
	f := checker.Finding{
		RuleID:   r.ID,
		RuleName: r.Name,
		Severity: checker.SeverityError,
		Message:  "internal error: " + err.Error(),
		Internal: true,
	}
	for _, file := range ws.Files {
		if file.Parent == nil {
			f.Pos = checker.Position{Filename: file.Path, Line: 1, Column: 1}
			f.End = f.Pos
			break
		}
	}
	return f
}
