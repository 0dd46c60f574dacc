package main

import (
	"context"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
)

// argKind is what the positional arguments of a command are, for completion and the manual.
type argKind int

const (
	argNone   argKind = iota
	argPaths          // files and directories
	argDirs           // directories
	argRules          // rule IDs and names
	argShells         // bash, zsh, fish
)

// command is a subcommand of kube-proxy-lint.
type command struct {
	name string
	// synopsis is the line of the main --help and the manual that introduces it; summary is
	// a short description for shell completion.
	synopsis string
	summary  string
	run      func(c *cli, ctx context.Context, args []string) int
	// flags returns a fresh flag set of the command, for completion and the manual.
	flags func() *pflag.FlagSet
	// words are fixed first arguments (policy test, config print); args what follows.
	words []string
	args  argKind
	// formats are the values of its --format flag, for completion.
	formats []string
}

// lintFormats are the --format values of a lint run and of report.
func lintFormats() []string { return report.Formats() }

// commands are the subcommands, in the order --help lists them. Their names are reserved: a
// directory of that name is linted as ./NAME. It is set in init: completion and man read it.
var commands []*command

func init() {
	commands = []*command{
		{name: "report", synopsis: "report [PATH...]       write the migration readiness report (see report --help)",
			summary: "write the migration readiness report",
			run:     func(c *cli, ctx context.Context, args []string) int { return c.reportCmd(ctx, args) },
			flags:   func() *pflag.FlagSet { return newLintFlagSetWith(&lintFlags{}, reportDefaults) }, args: argPaths,
			formats: lintFormats()},
		{name: "clusters", synopsis: "clusters [PATH...]     print each cluster: files, version, modes, replacement",
			summary: "print the clusters and their files",
			run:     func(c *cli, ctx context.Context, args []string) int { return c.clustersCmd(ctx, args) },
			flags:   func() *pflag.FlagSet { return newClustersFlagSet(&clustersFlags{}) }, args: argPaths,
			formats: clustersFormats},
		{name: "rules", synopsis: "rules [--format F]     list the rules and their severities at the target",
			summary: "list the rules",
			run:     func(c *cli, _ context.Context, args []string) int { return c.rules(args) },
			flags:   func() *pflag.FlagSet { return newRulesFlagSet(&rulesFlags{}) }, formats: []string{"text", "json", "markdown"}},
		{name: "explain", synopsis: "explain RULE...        print the documentation of rules, by ID or name",
			summary: "print the documentation of rules",
			run:     func(c *cli, _ context.Context, args []string) int { return c.explain(args) },
			flags:   func() *pflag.FlagSet { return newExplainFlagSet(&explainFlags{}) }, args: argRules,
			formats: []string{"text", "markdown"}},
		{name: "policy", synopsis: "policy test DIR...     run the Rego unit tests of user policies",
			summary: "run the Rego unit tests of user policies",
			run:     func(c *cli, _ context.Context, args []string) int { return c.policyCmd(args) },
			flags:   func() *pflag.FlagSet { return newPolicyFlagSet(&policyFlags{}) }, words: []string{"test"}, args: argDirs},
		{name: "config", synopsis: "config print [PATH]    print the effective configuration and target",
			summary: "print the effective configuration",
			run:     func(c *cli, ctx context.Context, args []string) int { return c.configCmd(ctx, args) },
			flags:   func() *pflag.FlagSet { return newConfigFlagSet(&configCmdFlags{}) }, words: []string{"print"}, args: argPaths},
		{name: "version", synopsis: "version [--format F]   print the version (F: text, json)",
			summary: "print the version",
			run:     func(c *cli, _ context.Context, args []string) int { return c.versionCmd(args) },
			flags:   func() *pflag.FlagSet { return newVersionFlagSet(&versionFlags{}) }, formats: []string{"text", "json"}},
		{name: "completion", synopsis: "completion SHELL       print a completion script for bash, zsh or fish",
			summary: "print a shell completion script",
			run:     func(c *cli, _ context.Context, args []string) int { return c.completion(args) },
			flags:   func() *pflag.FlagSet { return newHelpOnlyFlagSet("completion", new(bool)) }, args: argShells},
		{name: "man", synopsis: "man                    print the manual page (roff)",
			summary: "print the manual page",
			run:     func(c *cli, _ context.Context, args []string) int { return c.manCmd(args) },
			flags:   func() *pflag.FlagSet { return newHelpOnlyFlagSet("man", new(bool)) }},
	}
}

// newHelpOnlyFlagSet is the flag set of a command that takes only --help.
func newHelpOnlyFlagSet(name string, help *bool) *pflag.FlagSet {
	fs := pflag.NewFlagSet(progName+" "+name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVarP(help, "help", "h", false, "print this help and exit")
	return fs
}

// lookupCommand returns the subcommand called name, or nil.
func lookupCommand(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// commandNames are the reserved words: "rules", "explain", ... .
func commandNames() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}

// splitCommand finds the subcommand in args: the first argument that is not a flag or a
// flag's value. Flags before it belong to it, as in `--config c.yaml config print` or
// `--policy p explain ORG001`, and are passed on with the rest; a flag the subcommand does not
// take is then its usage error. It returns nil when the first such argument is a path (or
// there is none), and the main command lints args.
func splitCommand(args []string) (*command, []string) {
	var lf lintFlags
	fs := newLintFlagSet(&lf)
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return nil, args
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if f := fs.Lookup(name); f != nil && !hasValue && f.NoOptDefVal == "" {
				i++ // the flag's value
			}
			continue
		case strings.HasPrefix(a, "-") && a != "-":
			// -qf json, -f json, -fjson: a value-taking shorthand consumes the rest of the
			// argument, or the next argument when it ends the group.
			for j := 1; j < len(a); j++ {
				f := fs.ShorthandLookup(a[j : j+1])
				if f == nil || f.NoOptDefVal != "" {
					continue
				}
				if j == len(a)-1 {
					i++
				}
				break
			}
			continue
		}
		cmd := lookupCommand(a)
		if cmd == nil {
			return nil, args
		}
		rest := make([]string, 0, len(args)-1)
		rest = append(rest, args[:i]...)
		return cmd, append(rest, args[i+1:]...)
	}
	return nil, args
}
