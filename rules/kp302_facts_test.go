package rules_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestKP302Facts: with the run's rules (as the CLI loads), the application workloads that
// only KP302 reads keep their header and KP302's facts (checker.Rule.DocFacts), their file's
// text is released, and KP302 finds what it finds on every tree, at the same positions.
func TestKP302Facts(t *testing.T) {
	dir := filepath.Join(fixtureRoot, "KP302", "facts")
	run := func(opts load.Options) (*checker.Workspace, string) {
		opts.Paths, opts.Root = []string{dir}, dir
		ws, err := load.Load(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		out, err := engine.Run(context.Background(), ws, []*checker.Rule{rules.KP302})
		if err != nil {
			t.Fatal(err)
		}
		if len(out.Findings) != 4 {
			t.Errorf("%d findings, want 4", len(out.Findings))
		}
		b, err := json.Marshal(out.Findings)
		if err != nil {
			t.Fatal(err)
		}
		return ws, string(b)
	}
	ws, facts := run(load.Options{Facts: rules.All()})
	_, whole := run(load.Options{KeepTrees: true})
	if facts != whole {
		t.Errorf("findings from facts differ from those on every tree:\n%s\n%s", facts, whole)
	}
	f := ws.File("relay.yaml")
	if f == nil || len(f.Docs) != 3 {
		t.Fatalf("relay.yaml: %v", f)
	}
	for i, d := range f.Docs {
		// The third names no loopback address: a header without facts, as before.
		if !d.Pruned || d.Facts != (i < 2) || d.Node == nil || len(d.Node.Content) != 0 {
			t.Errorf("%s %s: pruned %v, facts %v", d.Kind, d.Name, d.Pruned, d.Facts)
		}
	}
	if f.Content != nil || f.Reread == nil {
		t.Error("relay.yaml: its text is held; want it released, to be read again")
	}
	if d := ws.File("agent.yaml").Docs[0]; !d.Pruned || !d.Facts {
		t.Errorf("DaemonSet agent: pruned %v, facts %v: want a header with facts", d.Pruned, d.Facts)
	}
	// Without the rules' facts the workloads keep what KP302 reads of their trees.
	ws, _ = run(load.Options{})
	for _, d := range append(ws.File("relay.yaml").Docs[:2], ws.File("agent.yaml").Docs[0]) {
		if d.Facts || !d.Reduced {
			t.Errorf("%s %s without facts: reduced %v, facts %v", d.Kind, d.Name, d.Reduced, d.Facts)
		}
	}
	// With KP603 in the run (checker.Rule.Reads: every DaemonSet), the DaemonSet keeps its
	// fields; the others still go to their headers.
	ws, withKP603 := run(load.Options{Facts: append(rules.All(), policy.Builtin()...)})
	if withKP603 != whole {
		t.Errorf("findings with KP603 in the run differ from those on every tree:\n%s\n%s", withKP603, whole)
	}
	if d := ws.File("agent.yaml").Docs[0]; d.Facts || !d.Reduced {
		t.Errorf("DaemonSet agent with KP603: reduced %v, facts %v", d.Reduced, d.Facts)
	}
	if d := ws.File("relay.yaml").Docs[0]; !d.Facts {
		t.Error("Deployment relay with KP603: no facts")
	}
}
