// Command kube-proxy-lint checks kube-proxy configuration in infrastructure repositories:
// DaemonSets, ConfigMaps, kubeadm configs and KubeProxyConfiguration files.
//
// Usage:
//
//	kube-proxy-lint [flags] [PATH...]
//	kube-proxy-lint rules [--format text|json|markdown]
//	kube-proxy-lint explain RULE...
//	kube-proxy-lint policy test DIR...
//	kube-proxy-lint config print [PATH]
//	kube-proxy-lint report [PATH...]
//	kube-proxy-lint clusters [PATH...]
//
// Run kube-proxy-lint --help for the flags, output syntax and exit codes.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sync"
	"syscall"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3"; see versionString.
var version string

// registry returns the rules the CLI knows; tests replace it with fake rules.
var registry = builtinRules

// Exit codes.
const (
	exitOK       = 0 // nothing at or above --fail-on
	exitFindings = 1 // findings at or above --fail-on
	exitError    = 2 // usage, load or internal error
)

func main() {
	// Helm charts are rendered by children of the renderer executable (cmd/kube-proxy-lint-helm),
	// found when the first chart is rendered.
	helm.Command = helm.HelperCommand()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run is the whole program behind main, minus os.Exit: it parses args, does the work and
// returns the exit code.
//
// SIGINT and SIGTERM cancel the run's context, which the loader, the engine and the Rego
// rules check inside their loops. If the work has not stopped within interruptGrace (a rule
// or decoder deep in one large input, or a read from a stdin that never ends), run returns
// anyway: temporary output files are removed and the exit code is 128 + the signal (130,
// 143), as shells report a process killed by it. A second signal ends the wait at once.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	return runWithSignals(args, stdin, stdout, stderr, sigs)
}

// inFlight counts the runs still working, also those an interrupt abandoned; tests wait for
// them before starting the next run, which shares process-wide settings (policy.Timeout).
var inFlight sync.WaitGroup

// interruptGrace is how long an interrupted run may take to stop on its own.
const interruptGrace = 500 * time.Millisecond

func runWithSignals(args []string, stdin io.Reader, stdout, stderr io.Writer, sigs <-chan os.Signal) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr}
	done := make(chan int, 1)
	inFlight.Add(1)
	go func() {
		defer inFlight.Done()
		done <- c.dispatch(ctx, args)
	}()
	var sig os.Signal
	select {
	case code := <-done:
		return code
	case sig = <-sigs:
	}
	cancel()
	timer := time.NewTimer(interruptGrace)
	defer timer.Stop()
	select {
	case <-done:
	case <-timer.C:
	case <-sigs:
	}
	removeTemps()
	fmt.Fprintf(stderr, "%s: interrupted by %s\n", progName, sig)
	return signalExitCode(sig)
}

// signalExitCode is 128 + the signal number: 130 for SIGINT, 143 for SIGTERM.
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 128 + int(syscall.SIGINT)
}

// dispatch runs the subcommand named by args.
func (c *cli) dispatch(ctx context.Context, args []string) int {
	if cmd, rest := splitCommand(args); cmd != nil {
		return cmd.run(c, ctx, rest)
	}
	return c.lint(ctx, args)
}

// cli holds the streams of one invocation.
type cli struct {
	stdin          io.Reader
	stdout, stderr io.Writer
}

// usageError is an error in the command line; it earns a hint to --help.
type usageError struct {
	err  error
	help string // the command whose --help to suggest
}

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(help, format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...), help: help}
}

// fail prints err as the single error line (plus the --help hint for usage errors) and
// returns the exit code for errors.
func (c *cli) fail(err error) int {
	if errors.Is(err, context.Canceled) {
		// Interrupted: run reports the signal, once.
		return exitError
	}
	// Errors may name files and quote values of the repository under test: every line is
	// escaped for the terminal and the CI log.
	fmt.Fprintf(c.stderr, "%s: %s\n", progName, report.TerminalLines(err.Error()))
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(c.stderr, "Run '%s --help' for usage.\n", ue.help)
	}
	return exitError
}

const progName = "kube-proxy-lint"

// versionString is the -ldflags version, else the module version from the build info
// (go install …@v1.2.3), else "dev".
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}
