package policy_test

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/hostile"
)

// TestHostileAliasInput: the Rego input of an alias bomb within the budgets shares what the
// aliases share, so building it for every document costs memory in proportion to the source,
// not to the million nodes each document expands to (issue 11, item 7).
func TestHostileAliasInput(t *testing.T) {
	files := map[string][]byte{}
	for i := range 4 {
		files[fmt.Sprintf("bomb%d.yaml", i)] = hostile.AliasBomb("Foo", 1, 1<<10, 31, 4)
	}
	ws := load.Files(files, nil)
	r := compile(t, `findings contains {"msg": sprintf("%d", [count(input.object.l3)]), "path": []} if {
	input.kind == "Foo"
}
`)
	var fs []checker.Finding
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { fs = append(fs, f) })); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if len(fs) != 4 || fs[0].Message != "31" {
		t.Fatalf("findings = %+v", fs)
	}
	// Expanded, the four inputs would be 3.8 million terms (hundreds of megabytes).
	if got := after.TotalAlloc - before.TotalAlloc; got > 32<<20 {
		t.Errorf("evaluating over 4 alias bombs allocated %d MB, budget 32 MB", got>>20)
	}
}
