package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// builtinRules is the built-in registry: the Go rules and the embedded Rego rules.
func builtinRules() []*checker.Rule {
	return policy.Merge(rules.All(), policy.Builtin())
}

// policyFlagUsage documents --policy the same way in every command that takes it.
const policyFlagUsage = "load user Rego policies from `DIR` (*.rego, recursively, tests excluded); repeatable"

// withPolicies adds the user policies in dirs, and those already read (srcs), to the registry
// all and validates the result. A policy that does not load, or whose ID or name is taken, is
// an error naming file:line.
func withPolicies(all []*checker.Rule, dirs []string, srcs []policy.Source) ([]*checker.Rule, error) {
	if len(dirs) == 0 && len(srcs) == 0 {
		return all, nil
	}
	read, err := policy.ReadDirs(dirs, false)
	if err != nil {
		return nil, fmt.Errorf("load policies: %w", err)
	}
	user, err := policy.LoadSources(append(srcs, read...), all)
	if err != nil {
		return nil, fmt.Errorf("load policies: %w", err)
	}
	merged := policy.Merge(all, user)
	if err := checker.Validate(merged); err != nil {
		return nil, fmt.Errorf("load policies: %w", err)
	}
	return merged, nil
}

const policyUsage = `Usage: kube-proxy-lint policy test [--run REGEX] [--verbose] DIR...

Run the Rego unit tests (test_ rules in *_test.rego) of the policies in each DIR, in the
same sandbox as lint runs, and print pass or fail per test. Exit 0 when every test passes,
1 when one fails, 2 when a policy does not load.

Flags:
`

// policyFlags are the flags of `policy test`.
type policyFlags struct {
	run     string
	verbose bool
	timeout time.Duration
	help    bool
}

func newPolicyFlagSet(f *policyFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet(progName+" policy", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&f.run, "run", "", "run only the tests whose package.name matches `REGEX`")
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "print print() output and durations of every test")
	fs.DurationVar(&f.timeout, "timeout", policy.DefaultTimeout, "stop a test after `DURATION`")
	fs.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	return fs
}

// policyCmd implements `kube-proxy-lint policy test DIR...`.
func (c *cli) policyCmd(args []string) int {
	const cmd = progName + " policy"
	var pf policyFlags
	fs := newPolicyFlagSet(&pf)
	run, verbose, timeout, help := &pf.run, &pf.verbose, &pf.timeout, &pf.help
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if *help {
		fmt.Fprint(c.stdout, policyUsage+flagUsages(fs))
		return exitOK
	}
	if fs.NArg() == 0 || fs.Arg(0) != "test" {
		return c.fail(usagef(cmd, "policy needs a subcommand: '%s policy test DIR...'", progName))
	}
	dirs := fs.Args()[1:]
	if len(dirs) == 0 {
		return c.fail(usagef(cmd, "policy test needs a policy directory, e.g. '%s policy test policies/'", progName))
	}
	policy.Timeout = *timeout
	srcs, err := policy.ReadDirs(dirs, true)
	if err != nil {
		return c.fail(err)
	}
	res, err := policy.RunTests(context.Background(), srcs, *run)
	if err != nil {
		return c.fail(fmt.Errorf("load policies: %w", err))
	}
	failed, passed, skipped := 0, 0, 0
	for _, r := range res {
		status := "PASS"
		switch {
		case r.Skip:
			status = "SKIP"
			skipped++
		case r.Err != nil:
			status = "ERROR"
			failed++
		case !r.Pass:
			status = "FAIL"
			failed++
		default:
			passed++
		}
		line := fmt.Sprintf("%s %s: %s", status, report.Terminal(r.Location), report.Terminal(r.Name))
		if *verbose {
			line += fmt.Sprintf(" (%s)", r.Duration.Round(time.Microsecond))
		}
		fmt.Fprintln(c.stdout, line)
		if r.Err != nil {
			fmt.Fprint(c.stdout, indent(report.TerminalLines(r.Err.Error()), "  "))
		}
		if r.FailedAt != "" && status == "FAIL" {
			fmt.Fprintf(c.stdout, "  failed at %s\n", report.Terminal(r.FailedAt))
		}
		if len(r.Output) > 0 && (*verbose || status != "PASS") {
			fmt.Fprintf(c.stdout, "  output:\n%s", indent(report.TerminalLines(string(r.Output)), "    "))
		}
	}
	fmt.Fprintf(c.stdout, "%d passed, %d failed", passed, failed)
	if skipped > 0 {
		fmt.Fprintf(c.stdout, ", %d skipped", skipped)
	}
	fmt.Fprintln(c.stdout)
	if len(res) == 0 {
		fmt.Fprintf(c.stderr, "%s: no tests found (test rules are named test_... in *_test.rego files)\n", progName)
		return exitFindings
	}
	if failed > 0 {
		return exitFindings
	}
	return exitOK
}

func indent(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		b.WriteString(prefix + l + "\n")
	}
	return b.String()
}
