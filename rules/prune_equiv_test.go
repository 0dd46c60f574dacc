package rules_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestPruneKeepsFindings: every Go and built-in Rego rule finds the same on every rule
// fixture (single files included, which the fixture harness loads without pruning) whether
// the loader prunes documents and reduces them to their facts (with the rules' own facts,
// checker.Rule.DocFacts, as the CLI loads, or without) or keeps every tree
// (load.Options.KeepTrees): what pruning drops is what no rule reads (checker/load/prune.go,
// checker/load/facts.go).
func TestPruneKeepsFindings(t *testing.T) {
	all := append(rules.All(), policy.Builtin()...)
	var noReads []*checker.Rule
	for _, r := range all {
		if len(r.Reads) == 0 {
			noReads = append(noReads, r)
		}
	}
	if len(noReads) == len(all) {
		t.Fatal("no rule reads workloads whole (checker.Rule.Reads): KP603 does")
	}
	dirs, err := os.ReadDir(fixtureRoot)
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range dirs {
		entries, err := os.ReadDir(filepath.Join(fixtureRoot, dir.Name()))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".golden") || strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(fixtureRoot, dir.Name(), e.Name())
			root := path
			if !e.IsDir() {
				root = filepath.Dir(path)
			}
			// Pruning with the rules' facts (the CLI's way), without them, and every tree;
			// then with the facts of a run without the rules that read workloads whole
			// (checker.Rule.Reads: KP603), which lets more go, against every tree.
			var got [5]string
			variants := []struct {
				opts  load.Options
				rules []*checker.Rule
			}{{load.Options{Facts: all}, all}, {load.Options{}, all}, {load.Options{KeepTrees: true}, all},
				{load.Options{Facts: noReads}, noReads}, {load.Options{KeepTrees: true}, noReads}}
			for i, v := range variants {
				opts := v.opts
				opts.Paths, opts.Root = []string{path}, root
				ws, err := load.Load(context.Background(), opts)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				out, err := engine.Run(context.Background(), ws, v.rules)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				b, err := json.Marshal(out.Findings)
				if err != nil {
					t.Fatal(err)
				}
				got[i] = string(b)
			}
			if got[0] != got[2] {
				t.Errorf("%s: findings with pruning and the rules' facts differ from those with every tree:\n%s\n%s", path, got[0], got[2])
			}
			if got[1] != got[2] {
				t.Errorf("%s: findings with pruning differ from those with every tree:\n%s\n%s", path, got[1], got[2])
			}
			if got[3] != got[4] {
				t.Errorf("%s: findings with the facts of the rules that read no workload whole differ from those with every tree:\n%s\n%s", path, got[3], got[4])
			}
		}
	}
}
