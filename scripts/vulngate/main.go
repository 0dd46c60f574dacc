//go:build kpltools

// The kpltools build tag keeps this command out of `go install ./...`, which pre-commit's
// golang hook runs: only the CLI is installed.

// Command vulngate reads the JSON stream of `govulncheck -format json` on stdin and decides
// what fails CI: a known vulnerability that the code calls in a module this project requires
// (fixed by upgrading that module) fails. One in the Go standard library is fixed by building
// with a newer Go release: with -stdlib=fail (scripts/govulncheck.sh, which runs govulncheck
// with the release build's Go, .go-version) it fails too, since that is the toolchain the
// project chooses; with -stdlib=warn (a check of some other toolchain, such as a developer's)
// it is printed as a warning naming the release that fixes it. Vulnerabilities in code that
// is not called are counted.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

type message struct {
	Config *struct {
		GoVersion string `json:"go_version"`
		DB        string `json:"db"`
	} `json:"config"`
	OSV *struct {
		ID      string `json:"id"`
		Summary string `json:"summary"`
	} `json:"osv"`
	Finding *struct {
		OSV          string `json:"osv"`
		FixedVersion string `json:"fixed_version"`
		Trace        []struct {
			Module   string `json:"module"`
			Version  string `json:"version"`
			Function string `json:"function"`
		} `json:"trace"`
	} `json:"finding"`
}

func main() {
	stdlib := flag.String("stdlib", "fail", "what a called vulnerability of the standard library does: fail or warn")
	flag.Parse()
	if *stdlib != "fail" && *stdlib != "warn" {
		fmt.Fprintf(os.Stderr, "vulngate: -stdlib %q: want fail or warn\n", *stdlib)
		os.Exit(2)
	}
	os.Exit(gate(os.Stdin, os.Stdout, *stdlib == "fail"))
}

type vuln struct{ id, module, version, fixed string }

func gate(in io.Reader, out io.Writer, failStdlib bool) int {
	dec := json.NewDecoder(in)
	summaries := map[string]string{}
	called := map[vuln]bool{}
	uncalled := map[string]bool{}
	goVersion, db := "", ""
	for {
		var m message
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			fmt.Fprintf(out, "vulngate: read govulncheck output: %v\n", err)
			return 2
		}
		switch {
		case m.Config != nil:
			goVersion, db = m.Config.GoVersion, m.Config.DB
		case m.OSV != nil:
			summaries[m.OSV.ID] = m.OSV.Summary
		case m.Finding != nil && len(m.Finding.Trace) > 0:
			f := m.Finding
			if f.Trace[0].Function == "" {
				uncalled[f.OSV] = true
				continue
			}
			called[vuln{f.OSV, f.Trace[0].Module, f.Trace[0].Version, f.FixedVersion}] = true
		}
	}
	if goVersion == "" {
		fmt.Fprintln(out, "vulngate: no govulncheck output")
		return 2
	}
	var modules, stdlib []vuln
	for v := range called {
		delete(uncalled, v.id)
		if v.module == "stdlib" || v.module == "toolchain" {
			stdlib = append(stdlib, v)
		} else {
			modules = append(modules, v)
		}
	}
	sortVulns(modules)
	sortVulns(stdlib)
	fmt.Fprintf(out, "govulncheck (%s, database %s): %d called in modules, %d called in the standard library, %d not called\n",
		goVersion, db, len(modules), len(stdlib), len(uncalled))
	level := "warning"
	if failStdlib {
		level = "error"
	}
	for _, v := range stdlib {
		fmt.Fprintf(out, "%s: %s in the standard library of %s (fixed in go%s): %s\n", level, v.id, goVersion, strings.TrimPrefix(v.fixed, "v"), summaries[v.id])
	}
	if len(stdlib) > 0 && failStdlib {
		fmt.Fprintln(out, "error: release builds use this Go: set .go-version to a Go release that fixes these")
	} else if len(stdlib) > 0 {
		fmt.Fprintln(out, "warning: this is not the release build's Go (.go-version); releases are checked with theirs")
	}
	for _, v := range modules {
		fmt.Fprintf(out, "error: %s in %s@%s, called by kube-proxy-lint (fixed in %s): %s\n", v.id, v.module, v.version, v.fixed, summaries[v.id])
	}
	if len(modules) > 0 {
		fmt.Fprintln(out, "error: upgrade the modules above (go get module@fixed-version)")
	}
	if len(modules) > 0 || len(stdlib) > 0 && failStdlib {
		return 1
	}
	return 0
}

func sortVulns(vs []vuln) {
	sort.Slice(vs, func(i, j int) bool {
		if vs[i].module != vs[j].module {
			return vs[i].module < vs[j].module
		}
		return vs[i].id < vs[j].id
	})
}
