package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"
	"github.com/spf13/pflag"
)

// commit and date are set by release builds (GoReleaser) with -ldflags "-X main.commit=...
// -X main.date=..."; other builds take them from the Go build info (the VCS stamp of a
// build in a Git checkout).
var commit, date string

// versionInfo is what `version` reports.
type versionInfo struct {
	Version string `json:"version"`
	// Commit is the Git commit the binary was built from; Date the commit or build time
	// (RFC 3339); Modified is true when the work tree had uncommitted changes.
	Commit    string `json:"commit,omitempty"`
	Date      string `json:"date,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
	// Module is the main module's path and Sum its checksum, set for go install …@version.
	Module string `json:"module,omitempty"`
	Sum    string `json:"sum,omitempty"`
	// HelmRenderer is the kube-proxy-lint-helm that renders charts (checker/helm), empty when
	// none is installed beside the binary or on PATH. Only --format json has it: the text form
	// stays one line (the Action writes it to a step output).
	HelmRenderer string `json:"helmRenderer,omitempty"`
}

// buildVersion collects the version of this binary: the -ldflags values of a release build,
// else the module version of go install …@vX, else "dev", with the VCS stamp when present.
func buildVersion() versionInfo {
	v := versionInfo{Version: versionString(), Commit: commit, Date: date, GoVersion: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.GoVersion = bi.GoVersion
	v.Module, v.Sum = bi.Main.Path, bi.Main.Sum
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			if v.Commit == "" {
				v.Commit = s.Value
			}
		case "vcs.time":
			if v.Date == "" {
				v.Date = s.Value
			}
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

// String is the one-line text form: "kube-proxy-lint v0.2.0 (commit 1a2b3c4d5e6f, 2026-…; go1.26.0 linux/amd64)".
func (v versionInfo) String() string {
	var details []string
	if v.Commit != "" {
		c := v.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		if v.Modified {
			c += "-dirty"
		}
		details = append(details, "commit "+c)
	}
	if v.Date != "" {
		details = append(details, v.Date)
	}
	s := progName + " " + v.Version
	build := v.GoVersion + " " + v.Platform
	if len(details) > 0 {
		return s + " (" + strings.Join(details, ", ") + "; " + build + ")"
	}
	return s + " (" + build + ")"
}

const versionUsage = `Usage: kube-proxy-lint version [--format text|json]

Print the version of kube-proxy-lint, the commit and date it was built from, and the Go
version and platform. --format json writes them as an object with the keys version, commit,
date, modified, goVersion, platform, module, sum and helmRenderer (the kube-proxy-lint-helm
that renders Helm charts; empty ones are left out).

Flags:
`

// versionFlags are the flags of `version`.
type versionFlags struct {
	format string
	help   bool
}

func newVersionFlagSet(f *versionFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet(progName+" version", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVarP(&f.format, "format", "f", "text", "output `FORMAT`: text or json")
	fs.BoolVarP(&f.help, "help", "h", false, "print this help and exit")
	return fs
}

// versionCmd implements `kube-proxy-lint version`.
func (c *cli) versionCmd(args []string) int {
	const cmd = progName + " version"
	var f versionFlags
	fs := newVersionFlagSet(&f)
	if err := fs.Parse(args); err != nil {
		return c.fail(&usageError{err: err, help: cmd})
	}
	if f.help {
		fmt.Fprint(c.stdout, versionUsage+flagUsages(fs))
		return exitOK
	}
	if fs.NArg() > 0 {
		return c.fail(usagef(cmd, "version takes no arguments"))
	}
	v := buildVersion()
	switch f.format {
	case "text":
		fmt.Fprintln(c.stdout, v.String())
	case "json":
		v.HelmRenderer, _ = helm.FindHelper()
		enc := json.NewEncoder(c.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(v); err != nil {
			return c.fail(fmt.Errorf("write version: %w", err))
		}
	default:
		return c.fail(usagef(cmd, "parse --format: unknown format %q (want text or json)", f.format))
	}
	return exitOK
}
