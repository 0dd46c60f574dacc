//go:build kpltools

// The kpltools build tag keeps this command out of `go install ./...`, which pre-commit's
// golang hook runs: only the CLI is installed.

// Command gen writes the hostile repositories of internal/hostile into a directory, to look at
// them or to run kube-proxy-lint on them by hand:
//
//	go run -tags kpltools ./internal/hostile/gen /tmp/hostile
//	kube-proxy-lint /tmp/hostile/aliases
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/kube-proxy-lint/kube-proxy-lint/internal/hostile"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen DIR")
		os.Exit(2)
	}
	if err := hostile.Write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Println("wrote", filepath.Clean(os.Args[1]))
}
