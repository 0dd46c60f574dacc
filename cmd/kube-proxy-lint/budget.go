package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/config"
)

// The run's resource budget (internal/budget, docs/security.md): --max-memory and --timeout,
// or the configuration file's max-memory and timeout.

// budgetFlags are --max-memory and --timeout.
type budgetFlags struct {
	maxMemory          int64
	timeout            time.Duration
	maxSet, timeoutSet bool
}

func (f *budgetFlags) register(fs *pflag.FlagSet) {
	f.maxMemory, f.timeout = budget.DefaultMaxMemory, budget.DefaultTimeout
	fs.Var((*sizeValue)(&f.maxMemory), "max-memory", "stop the run (exit 2) when it needs more than `SIZE` of memory, Helm's rendering children included")
	fs.DurationVar(&f.timeout, "timeout", budget.DefaultTimeout, "stop the run (exit 2) when it takes longer than `DURATION`")
}

// parsed records which of the flags were given: they win over the configuration file.
func (f *budgetFlags) parsed(fs *pflag.FlagSet) {
	f.maxSet, f.timeoutSet = fs.Changed("max-memory"), fs.Changed("timeout")
}

// resolve is the run's budget from the flags and the configuration file (display names it).
func (f *budgetFlags) resolve(conf *config.Config, display string) (*budget.Budget, error) {
	b := &budget.Budget{MaxMemory: f.maxMemory, Timeout: f.timeout}
	if !f.maxSet && conf.MaxMemory != "" {
		n, err := config.ParseSize(conf.MaxMemory)
		if err != nil {
			return nil, fmt.Errorf("config %s: max-memory: %w", display, err)
		}
		b.MaxMemory = n
	}
	if !f.timeoutSet && conf.Timeout != "" {
		d, err := time.ParseDuration(conf.Timeout)
		if err != nil {
			return nil, fmt.Errorf("config %s: timeout: %w", display, err)
		}
		b.Timeout = d
	}
	switch {
	case b.MaxMemory < config.MinMaxMemory:
		return nil, usagef(progName, "parse --max-memory: must be at least 256MiB, got %s", config.FormatSize(b.MaxMemory))
	case b.Timeout <= 0:
		return nil, usagef(progName, "parse --timeout: must be positive, got %s", b.Timeout)
	}
	return b, nil
}

// runBudgeted runs the lint within cfg's budget: the memory cap through the Go runtime's
// soft limit and explicit charges, the deadline through the context. An overrun is exit 2
// with the budget's message, whatever the run had found.
func (c *cli) runBudgeted(ctx context.Context, cfg *lintConfig) int {
	b := cfg.budget
	ctx, stop := budget.Start(ctx, b)
	defer stop()
	// While Helm's children render, their share is theirs (load.renderCharts reserves it).
	unwatch := b.Watch(50 * time.Millisecond)
	defer unwatch()
	code := c.runLint(ctx, cfg)
	if err := b.Err(); err != nil {
		fmt.Fprintf(c.stderr, "%s: error: %s\n", progName, report.Terminal(err.Error()))
		return exitError
	}
	return code
}
