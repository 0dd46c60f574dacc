package rules_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
			// Pruning with the rules' facts (the CLI's way), without them, and every tree.
			var got [3]string
			for i, opts := range []load.Options{{Facts: all}, {}, {KeepTrees: true}} {
				opts.Paths, opts.Root = []string{path}, root
				ws, err := load.Load(context.Background(), opts)
				if err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				out, err := engine.Run(context.Background(), ws, all)
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
		}
	}
}
