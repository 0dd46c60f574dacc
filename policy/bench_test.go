package policy_test

import (
	"context"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// BenchmarkCompileBuiltin is the startup cost of the embedded policies: parse, check, compile
// and prepare one query per rule.
func BenchmarkCompileBuiltin(b *testing.B) {
	srcs, err := policy.BuiltinSources(false)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := policy.Compile(srcs, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSingleFile is a pre-commit sized run: every built-in Rego rule on one file.
func BenchmarkSingleFile(b *testing.B) {
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{"../fixtures/repos/kubeadm-ipvs"}, Root: "../fixtures/repos/kubeadm-ipvs"})
	if err != nil {
		b.Fatal(err)
	}
	rules := policy.Builtin()
	for b.Loop() {
		cp := *ws
		for _, r := range rules {
			if err := r.Run(checker.NewPass(r, &cp, func(checker.Finding) {})); err != nil {
				b.Fatal(err)
			}
		}
	}
}
