package load

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
)

// renderBudget is what the renderings of one run share: their time, the rendered output the
// parent holds, and the memory of the children. Going over it is an overrun of the run's
// budget (the run stops, exit 2); without a run budget (a library caller, tests) the variant
// is not rendered and a notice says why.
type renderBudget struct {
	run            *budget.Budget
	timeout, total time.Duration
	maxRendered    int64
	childrenMemory int64

	spent    atomic.Int64 // nanoseconds
	rendered atomic.Int64
}

func newRenderBudget(ctx context.Context, h HelmOptions) *renderBudget {
	rb := &renderBudget{run: budget.From(ctx), timeout: h.Timeout, total: h.RunBudget, maxRendered: h.MaxRendered, childrenMemory: h.ChildrenMemory}
	if rb.timeout <= 0 {
		rb.timeout = DefaultHelmTimeout
	}
	if rb.total <= 0 {
		rb.total = DefaultHelmRunBudget
	}
	if rb.maxRendered <= 0 {
		rb.maxRendered = DefaultMaxRendered
	}
	if rb.childrenMemory <= 0 {
		rb.childrenMemory = rb.run.Fraction(2, helm.ChildMemory)
	}
	return rb
}

// render renders one variant (what names it) within what is left of the budget.
func (rb *renderBudget) render(ctx context.Context, pool *helm.Pool, req helm.Request, what string) (*helm.Result, error) {
	rb.run.Do(what)
	left := rb.total - time.Duration(rb.spent.Load())
	if left <= 0 {
		return nil, rb.over(&budget.ExceededError{Resource: budget.RenderTime, Limit: int64(rb.total), What: what})
	}
	t := min(rb.timeout, left)
	start := time.Now()
	res, err := pool.RenderContext(ctx, req, t)
	rb.spent.Add(int64(time.Since(start)))
	if errors.Is(err, helm.ErrTimeout) && t < rb.timeout {
		return nil, rb.over(&budget.ExceededError{Resource: budget.RenderTime, Limit: int64(rb.total), What: what})
	}
	if err != nil {
		return nil, err
	}
	var n int64
	for _, o := range res.Outputs {
		n += int64(len(o.Content))
	}
	if total := rb.rendered.Add(n); total > rb.maxRendered {
		return nil, rb.over(&budget.ExceededError{Resource: budget.RenderedOutput, Limit: rb.maxRendered, Used: total, What: what})
	}
	if err := rb.run.Charge(n, what); err != nil {
		return nil, err
	}
	return res, nil
}

// over stops the run when it has a budget, and returns the error for the variant's notice.
func (rb *renderBudget) over(e *budget.ExceededError) error {
	rb.run.Fail(e)
	return e
}

// variantFile names the values file of a variant.
func variantFile(variant string) string {
	if variant == "" {
		return "values.yaml"
	}
	return variant
}
