package policy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/topdown"
)

// smallBounds lowers the evaluation's memory bounds for one test: the tests build kilobytes
// where the escapes of issue 22 built gigabytes.
func smallBounds(t *testing.T, value, eval int64) {
	t.Helper()
	oldV, oldE := policy.MaxValueBytes, policy.MaxEvalBytes
	policy.MaxValueBytes, policy.MaxEvalBytes = value, eval
	t.Cleanup(func() { policy.MaxValueBytes, policy.MaxEvalBytes = oldV, oldE })
}

// bigConfigMap is a ConfigMap whose data.s is n bytes.
func bigConfigMap(n int) *checker.Workspace {
	return load.Bytes("a.yaml", []byte("apiVersion: v1\nkind: ConfigMap\ndata:\n  s: "+strings.Repeat("a", n)+"\n"), nil)
}

// evalFindings runs a one-rule policy on ws and returns its findings' messages.
func evalFindings(t *testing.T, ws *checker.Workspace, body string) ([]string, error) {
	t.Helper()
	r := compile(t, body)
	var msgs []string
	err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { msgs = append(msgs, f.Message) }))
	return msgs, err
}

// TestRefusedUninterruptible: strings.render_template (Go text/template: two nested ranges
// spun for hours past --policy-timeout) and graph.reachable_paths (10^12 paths of a ladder
// graph) cannot be stopped once called; the sandbox refuses them at compile time (issue 22,
// items 1 and 2).
func TestRefusedUninterruptible(t *testing.T) {
	for name, call := range map[string]string{
		"strings.render_template": `strings.render_template("{{range .a}}{{range $.a}}x{{end}}{{end}}", {"a": numbers.range(1, 1000000)})`,
		"graph.reachable_paths":   `graph.reachable_paths({"a": ["b", "c"], "b": ["d"], "c": ["d"], "d": []}, {"a"})`,
	} {
		_, err := policy.Compile([]policy.Source{src("100", `findings contains {"msg": sprintf("%v", [x]), "path": []} if {
	x := `+call+`
}
`)}, false)
		if err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: compile error = %v, want it refused", name, err)
		}
	}
}

// TestReplaceGrowthBounded: replace(s, "", s) on a 1 MB string reached 8 GB before the 30 s
// timeout fired (issue 22, item 3). The call is refused before it allocates; the rule stops on
// that document with an internal error that says why.
func TestReplaceGrowthBounded(t *testing.T) {
	smallBounds(t, 1<<20, 4<<20)
	for name, expr := range map[string]string{
		"replace":                       `replace(s, "", s)`,
		"strings.replace_n":             `strings.replace_n({"": s}, s)`,
		"regex.replace":                 `regex.replace(s, "", s)`,
		"regex.replace $":               `regex.replace(s, "(a*)", "$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1$1")`,
		"concat separator":              `concat(s, ["b" | some _ in numbers.range(1, 1000)])`,
		"sprintf width":                 `sprintf("%0999999999d", [1])`,
		"bits.lsh":                      `bits.lsh(1, 1000000000)`,
		"split":                         `split(concat("", [s, s, s, s, s, s, s, s, s, s, s, s, s, s, s, s]), "")`,
		"json.marshal of a shared tree": `json.marshal([a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4, a4])`,
	} {
		msgs, err := evalFindings(t, bigConfigMap(4096), `findings contains {"msg": type_name(x), "path": []} if {
	s := input.object.data.s
	a1 := [s, s, s, s, s, s, s, s]
	a2 := [a1, a1, a1, a1, a1, a1, a1, a1]
	a3 := [a2, a2, a2, a2, a2, a2, a2, a2]
	a4 := [a3, a3, a3, a3, a3, a3, a3, a3]
	x := `+expr+`
}
`)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], "internal error") || !strings.Contains(msgs[0], "memory budget") {
			t.Errorf("%s: findings = %.300q, want one internal error about the memory budget", name, msgs)
		}
	}
}

// TestBoundsKeepOrdinaryCalls: calls within the bounds give their results.
func TestBoundsKeepOrdinaryCalls(t *testing.T) {
	smallBounds(t, 1<<20, 4<<20)
	msgs, err := evalFindings(t, bigConfigMap(4096), `findings contains {"msg": msg, "path": []} if {
	s := input.object.data.s
	r := replace(s, "a", "bb")
	m := strings.replace_n({"a": "cc"}, s)
	g := regex.replace(s, "a+", "${0}x")
	j := json.marshal([s, s])
	msg := sprintf("%d %d %d %d %s %d", [count(r), count(m), count(g), count(j), sprintf("%5d", [1]), count(split(s, ""))])
}
`)
	if err != nil || len(msgs) != 1 || msgs[0] != "8192 8192 4097 8199     1 4096" {
		t.Errorf("findings = %q, err = %v", msgs, err)
	}
}

// TestEvaluationMeter: many values within the bound of one value still exhaust the bound of
// the evaluation; with a run budget, the run stops and the error names the policy and the
// document.
func TestEvaluationMeter(t *testing.T) {
	smallBounds(t, 1<<20, 2<<20)
	body := `findings contains {"msg": sprintf("%d", [count(xs)]), "path": []} if {
	s := input.object.data.s
	xs := [replace(s, "a", sprintf("%d", [i])) | some i in numbers.range(100000, 100100)]
}
`
	msgs, err := evalFindings(t, bigConfigMap(64<<10), body)
	if err != nil || len(msgs) != 1 || !strings.Contains(msgs[0], "memory budget") {
		t.Fatalf("findings = %.300q, err = %v", msgs, err)
	}
	b := &budget.Budget{MaxMemory: 64 << 20}
	ctx, stop := budget.Start(context.Background(), b)
	defer stop()
	r := compile(t, body)
	p := checker.NewPass(r, bigConfigMap(64<<10), func(checker.Finding) {})
	p.Ctx = ctx
	err = r.Run(p)
	var be *budget.ExceededError
	if !errors.As(err, &be) || !strings.Contains(be.Error(), "a.yaml#0") || !strings.Contains(be.Error(), "--max-memory") {
		t.Errorf("err = %v, want the run's budget exceeded by the policy on a.yaml#0", err)
	}
}

// TestValueBuildersRegistered: every builtin the limits wrap exists in the linked OPA, so an
// upgrade that renames one does not leave it unwrapped.
func TestValueBuildersRegistered(t *testing.T) {
	allowed := map[string]bool{}
	for _, b := range policy.Capabilities().Builtins {
		allowed[b.Name] = true
	}
	for _, name := range policy.LimitedBuiltins() {
		if topdown.GetBuiltin(name) == nil || !allowed[name] && ast.BuiltinMap[name] == nil {
			t.Errorf("limited builtin %s is not in OPA", name)
		}
	}
}

// The input of a document is built for its evaluation and dropped after it (issue 24): it is
// charged to the run's budget while the rule evaluates it and released after, so a document
// whose input does not fit stops the run, and inputs of many documents never add up.
func TestInputCharged(t *testing.T) {
	doc := "apiVersion: v1\nkind: ConfigMap\ndata:\n  s: " + strings.Repeat("a", 64<<10) + "\n"
	ws := load.Bytes("a.yaml", []byte(doc+"---\n"+doc+"---\n"+doc), nil)
	body := `findings contains {"msg": "x", "path": []} if {
	input.kind == "ConfigMap"
}
`
	// Three 64 KiB inputs, two rules: held one at a time, they fit in 96 KiB.
	b := &budget.Budget{MaxMemory: 96 << 10}
	ctx, stop := budget.Start(context.Background(), b)
	defer stop()
	for range 2 {
		r := compile(t, body)
		n := 0
		p := checker.NewPass(r, ws, func(checker.Finding) { n++ })
		p.Ctx = ctx
		if err := r.Run(p); err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Errorf("%d findings, want one per document", n)
		}
	}
	if held := b.Held(); held != 0 {
		t.Errorf("%d bytes still held after the rules, want the inputs released", held)
	}
	small := &budget.Budget{MaxMemory: 32 << 10}
	ctx, stop = budget.Start(context.Background(), small)
	defer stop()
	r := compile(t, body)
	p := checker.NewPass(r, bigConfigMap(64<<10), func(checker.Finding) {})
	p.Ctx = ctx
	if err := r.Run(p); err == nil || !strings.Contains(err.Error(), "the policy input of a.yaml#0") {
		t.Errorf("err = %v", err)
	}
}
