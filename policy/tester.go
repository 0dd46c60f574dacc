package policy

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/tester"
)

// TestResult is the outcome of one test_ rule.
type TestResult struct {
	// Name is package.test_name; Location is file:line.
	Name     string
	Location string
	Pass     bool
	Skip     bool
	// Err is set when the test could not be evaluated (an error, not a failure).
	Err      error
	Duration time.Duration
	// Output is what print() wrote during the test.
	Output []byte
	// FailedAt is the file:line of the expression that failed.
	FailedAt string

	file string
	line int
}

// RunTests runs the test_ rules of srcs (policies and their *_test.rego files) with OPA's test
// runner, in the same sandbox as lint runs. Load errors (syntax, type, forbidden builtins)
// are returned as one error naming file:line; the results are sorted by file and line. A
// non-empty filter is a regular expression on package.test_name.
func RunTests(ctx context.Context, srcs []Source, filter string) ([]TestResult, error) {
	mods, err := Parse(srcs)
	if err != nil {
		return nil, err
	}
	c, err := capabilities()
	if err != nil {
		return nil, err
	}
	compiler := ast.NewCompiler().WithCapabilities(c).WithDefaultRegoVersion(ast.RegoV1).WithEnablePrintStatements(true)
	ch, err := tester.NewRunner().
		SetCompiler(compiler).
		AddCustomBuiltins(customTestBuiltins()).
		SetDefaultRegoVersion(ast.RegoV1).
		RaiseBuiltinErrors(true).
		CapturePrintOutput(true).
		SetTimeout(Timeout).
		Filter(filter).
		SetModules(mods).
		RunTests(ctx, nil)
	if err != nil {
		return nil, errors.Join(regoErrors(err)...)
	}
	var out []TestResult
	for r := range ch {
		tr := TestResult{
			Name:     strings.TrimPrefix(r.Package, "data.") + "." + r.Name,
			Location: where(r.Location),
			Pass:     r.Pass() && !r.Skip,
			Skip:     r.Skip,
			Err:      r.Error,
			Duration: r.Duration,
			Output:   r.Output,
		}
		if r.Location != nil {
			tr.file, tr.line = r.Location.File, r.Location.Row
		}
		if r.Fail && r.FailedAt != nil && r.FailedAt.Location != nil {
			tr.FailedAt = where(r.FailedAt.Location)
		}
		out = append(out, tr)
	}
	if ctx.Err() != nil {
		return out, fmt.Errorf("run policy tests: %w", ctx.Err())
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].file != out[j].file {
			return out[i].file < out[j].file
		}
		return out[i].line < out[j].line
	})
	return out, nil
}
