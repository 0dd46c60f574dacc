//go:build kpltools

// The kpltools build tag keeps this command out of `go install ./...`, which pre-commit's
// golang hook runs: only the CLI is installed.

// Command gen writes the rule documentation (docs/rules/<ID>.md and its index) from the
// registry. Run it through `make docs` (go run -tags kpltools ./internal/ruledoc/gen) from the
// repository root.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/ruledoc"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

func main() {
	dir := flag.String("dir", "docs/rules", "directory to write the rule pages to")
	flag.Parse()
	all := policy.Merge(rules.All(), policy.Builtin())
	if err := checker.Validate(all); err != nil {
		fmt.Fprintln(os.Stderr, "gen: invalid rule registry:", err)
		os.Exit(1)
	}
	if err := ruledoc.WriteDocs(*dir, all); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
