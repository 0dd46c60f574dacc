//go:build kpltools

// The kpltools build tag keeps this command out of `go install ./...`, which pre-commit's
// golang hook runs: only the CLI is installed.

// Command gen writes a generated corpus for benchmarks against other tools:
//
//	go run -tags kpltools ./internal/corpus/gen -n 20000 DIR
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/kube-proxy-lint/kube-proxy-lint/internal/corpus"
)

func main() {
	n := flag.Int("n", 1000, "number of files")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gen [-n N] DIR")
		os.Exit(2)
	}
	written, err := corpus.Generate(flag.Arg(0), *n)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(written, "files")
}
