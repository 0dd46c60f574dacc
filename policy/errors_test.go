package policy_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// header is a valid METADATA block for user policies in tests.
const header = `# METADATA
# title: test rule
# description: a rule for tests
# custom:
#   id: ORG%s
#   name: test-rule-%s
#   severity: warning
#   remediation: fix it
`

func src(id, body string) policy.Source {
	return policy.Source{Name: "policies/org" + id + ".rego", Text: strings.ReplaceAll(header, "%s", id) + "package org.r" + id + "\n\n" + body}
}

// TestLoadErrors: every broken policy is one clear error that names file:line.
func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		src  policy.Source
		want string
	}{
		{"http.send", src("001", "findings contains {\"msg\": \"x\", \"path\": []} if {\n\thttp.send({\"method\": \"GET\", \"url\": \"https://example.com\"}).status_code == 200\n}\n"),
			`policies/org001.rego:12: http.send is not allowed: policies run sandboxed`},
		{"net.lookup", src("002", "findings contains {\"msg\": \"x\", \"path\": []} if {\n\tcount(net.lookup_ip_addr(\"example.com\")) > 0\n}\n"),
			`policies/org002.rego:12: net.lookup_ip_addr is not allowed`},
		{"opa.runtime", src("003", "findings contains {\"msg\": x, \"path\": []} if {\n\tx := opa.runtime().env.HOME\n}\n"),
			`policies/org003.rego:12: opa.runtime is not allowed`},
		{"schema $ref reads files", src("012", "findings contains {\"msg\": \"x\", \"path\": []} if {\n\tjson.verify_schema({\"$ref\": \"file:///etc/shadow\"})\n}\n"),
			`policies/org012.rego:12: json.verify_schema is not allowed: .*file://`},
		{"match_schema", src("013", "findings contains {\"msg\": \"x\", \"path\": []} if {\n\t[ok, _] := json.match_schema(input, {\"$ref\": \"file:///dev/zero\"})\n\tok\n}\n"),
			`policies/org013.rego:12: json.match_schema is not allowed`},
		{"clock", src("014", "findings contains {\"msg\": \"x\", \"path\": []} if time.now_ns() > 0\n"),
			`policies/org014.rego:11: time.now_ns is not allowed: .*clock`},
		{"random", src("015", "findings contains {\"msg\": \"x\", \"path\": []} if rand.intn(\"x\", 2) == 1\n"),
			`policies/org015.rego:11: rand.intn is not allowed`},
		{"url", policy.Source{Name: "p/u.rego", Text: strings.ReplaceAll(header, "%s", "021") + "#   url: \"https://x.example/a)**b** @octocat\"\npackage u\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"},
			`p/u.rego:1: METADATA custom.url must be an absolute http or https URL`},
		{"javascript url", policy.Source{Name: "p/u.rego", Text: strings.ReplaceAll(header, "%s", "022") + "#   url: javascript:alert(1)\npackage u\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"},
			`p/u.rego:1: METADATA custom.url must be an absolute http or https URL`},
		{"syntax", src("004", "findings contains {\"msg\": \"x\", \"path\": []} if {\n\tinput.kind ==\n}\n"),
			`policies/org004.rego:1[123]: unexpected`},
		{"rego v0", src("005", "findings[{\"msg\": \"x\", \"path\": []}] {\n\ttrue\n}\n"),
			`policies/org005.rego:11: `},
		{"type error", src("006", "findings contains {\"msg\": \"x\", \"path\": []} if {\n\tupper(1) == \"X\"\n}\n"),
			`policies/org006.rego:12: .*upper`},
		{"no findings", src("007", "deny contains \"x\" if true\n"),
			`policies/org007.rego:9: rule ORG007 has no findings rule`},
		{"no msg", src("008", "findings contains {\"message\": \"x\", \"path\": []} if true\n"),
			`policies/org008.rego:11: finding has no "msg"`},
		{"no path", src("009", "findings contains {\"msg\": \"x\"} if true\n"),
			`policies/org009.rego:11: finding has no "path"`},
		{"string path", src("010", "findings contains {\"msg\": \"x\", \"path\": \"spec.mode\"} if true\n"),
			`policies/org010.rego:11: finding "path" must be an array`},
		{"findings not a set", src("011", "findings := [{\"msg\": \"x\", \"path\": []}]\n"),
			`policies/org011.rego:11: findings must be a set rule`},
		{"bad workloads", policy.Source{Name: "p/w.rego", Text: strings.ReplaceAll(header, "%s", "020") + "#   workloads: some\npackage w\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"},
			`p/w.rego:1: METADATA custom.workloads must be all or kube-proxy, got "some"`},
		{"bad replacements", policy.Source{Name: "p/r.rego", Text: strings.ReplaceAll(header, "%s", "023") + "#   replacements: yes\npackage r\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"},
			`p/r.rego:1: METADATA custom.replacements must be required or any, got "yes"`},
		{"bad modes", policy.Source{Name: "p/m.rego", Text: strings.ReplaceAll(header, "%s", "024") + "#   modes: [ipvs, 3]\npackage m\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"},
			`p/m.rego:1: METADATA custom.modes must list kube-proxy modes, got 3`},
		{"empty modes", policy.Source{Name: "p/m.rego", Text: strings.ReplaceAll(header, "%s", "025") + "#   modes: []\npackage m\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"},
			`p/m.rego:1: METADATA custom.modes is empty`},
		{"no metadata", policy.Source{Name: "p/x.rego", Text: "package x\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"},
			`p/x.rego:1: package x defines findings but has no METADATA`},
		{"bad id", policy.Source{Name: "p/y.rego", Text: strings.ReplaceAll(header, "ORG%s", "org-1") + "package y\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"},
			`p/y.rego:1: METADATA custom.id "org-1" must be`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := policy.Compile([]policy.Source{tc.src}, false)
			if err == nil {
				t.Fatal("policy loaded")
			}
			if !regexp.MustCompile(tc.want).MatchString(err.Error()) {
				t.Errorf("error:\n%v\nwant match %q", err, tc.want)
			}
		})
	}
}

// TestSyntaxErrorOnce: OPA reports some syntax errors twice at one line, once bare and once
// with a hint; the user reads one line, the one with the hint.
func TestSyntaxErrorOnce(t *testing.T) {
	for _, body := range []string{"foo := [\n", "findings contains {\"msg\": \"x\", \"path\": []} if {\n\tinput.kind ==\n}\n"} {
		_, err := policy.Compile([]policy.Source{src("030", body)}, false)
		if err == nil {
			t.Fatalf("%q compiled", body)
		}
		lines := strings.Split(err.Error(), "\n")
		if len(lines) != 1 {
			t.Errorf("%q: %d error lines, want 1:\n%v", body, len(lines), err)
		}
	}
}

func TestLoadIDClash(t *testing.T) {
	dir := t.TempDir()
	text := strings.ReplaceAll(strings.ReplaceAll(header, "ORG%s", "KP204"), "%s", "x") + "package x\n\nfindings contains {\"msg\": \"x\", \"path\": []} if true\n"
	if err := os.WriteFile(filepath.Join(dir, "x.rego"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := policy.Load([]string{dir}, policy.Builtin())
	if err == nil || !strings.Contains(err.Error(), "x.rego: rule ID KP204 is already used by built-in rule KP204 (ipvs-scheduler)") {
		t.Errorf("err = %v", err)
	}
	// checker.Validate rejects the clash too, whatever registry it comes from.
	user, err := policy.Load([]string{dir}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := checker.Validate(policy.Merge(policy.Builtin(), user)); err == nil || !strings.Contains(err.Error(), "rule KP204: duplicate ID") {
		t.Errorf("Validate = %v", err)
	}
}

func TestLoadDirErrors(t *testing.T) {
	if _, err := policy.Load([]string{t.TempDir()}, nil); err == nil || !strings.Contains(err.Error(), "no .rego files") {
		t.Errorf("empty dir: %v", err)
	}
	if _, err := policy.Load([]string{"does-not-exist"}, nil); err == nil {
		t.Error("missing dir loads")
	}
}

// run runs rule over the files and returns its findings.
func run(t *testing.T, r *checker.Rule, files map[string]string) []checker.Finding {
	t.Helper()
	m := map[string][]byte{}
	for k, v := range files {
		m[k] = []byte(v)
	}
	ws := load.Files(m, nil)
	var fs []checker.Finding
	err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { fs = append(fs, f) }))
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	checker.SortFindings(fs)
	return fs
}

func compile(t *testing.T, body string) *checker.Rule {
	t.Helper()
	rs, err := policy.Compile([]policy.Source{src("100", body)}, false)
	if err != nil {
		t.Fatal(err)
	}
	return rs[0]
}

const kpc = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\nipvs:\n  scheduler: lc\n"

// TestMissingPathFallsBack: a path that does not exist is reported at its nearest existing
// parent, and the message says where and why.
func TestMissingPathFallsBack(t *testing.T) {
	r := compile(t, `findings contains {"msg": "no strict arp", "path": ["ipvs", "strictARP", "x"]} if input.kind == "KubeProxyConfiguration"
findings contains {"msg": "top", "path": ["nodePortAddresses", 0]} if input.kind == "KubeProxyConfiguration"
`)
	fs := run(t, r, map[string]string{"a.yaml": kpc})
	if len(fs) != 2 {
		t.Fatalf("findings: %+v", fs)
	}
	if f := fs[0]; f.Pos.Line != 2 || f.Message != "top (reported at the document: nodePortAddresses[0] does not exist)" {
		t.Errorf("got %s: %s", f.Pos, f.Message)
	}
	if f := fs[1]; f.Pos.Line != 4 || f.Pos.Column != 1 || f.Message != "no strict arp (reported at ipvs: ipvs.strictARP.x does not exist)" {
		t.Errorf("got %s: %s", f.Pos, f.Message)
	}
}

func TestFindingFields(t *testing.T) {
	r := compile(t, `findings contains {
	"msg": "scheduler",
	"path": ["ipvs", "scheduler"],
	"severity": "error",
	"related": [{"msg": "mode here", "location": {"file": "a.yaml", "line": 3, "column": 1, "endLine": 3, "endColumn": 5}}],
	"fix": {"msg": "use rr", "newText": "rr"},
} if input.kind == "KubeProxyConfiguration"
findings contains {"msg": "key", "path": ["mode"], "at": "key"} if input.kind == "KubeProxyConfiguration"
`)
	fs := run(t, r, map[string]string{"a.yaml": kpc})
	if len(fs) != 2 {
		t.Fatalf("findings: %+v", fs)
	}
	if f := fs[0]; f.Pos.String() != "a.yaml:3:1" || f.End.Column != 5 || f.Message != "key" {
		t.Errorf("key finding at %s-%d: %s", f.Pos, f.End.Column, f.Message)
	}
	f := fs[1]
	if f.Pos.String() != "a.yaml:5:14" || f.End.Column != 16 || f.Severity != checker.SeverityError || f.RuleID != "ORG100" {
		t.Errorf("value finding: %+v", f)
	}
	if len(f.Related) != 1 || f.Related[0].Pos.String() != "a.yaml:3:1" || f.Related[0].End.Column != 5 {
		t.Errorf("related: %+v", f.Related)
	}
	out, err := checker.ApplyEdits([]byte(kpc), f.Fixes[0].Edits)
	if err != nil || !strings.Contains(string(out), "scheduler: rr\n") {
		t.Errorf("fix: %s %v", out, err)
	}
	if f.Fixes[0].Safety != checker.Unsafe || !f.Fixes[0].Preferred {
		t.Errorf("a policy's only fix is unsafe and preferred unless it says safe: %+v", f.Fixes[0])
	}
	if f.Path.String() != "ipvs.scheduler" || f.Object == nil || f.Object.Kind != "KubeProxyConfiguration" {
		t.Errorf("path/object: %s %+v", f.Path, f.Object)
	}
}

// TestRuntimeErrors: an error on one document is an internal finding for that document and
// the others are still checked; a finding that breaks the contract fails the rule with
// file:line.
func TestRuntimeErrors(t *testing.T) {
	r := compile(t, `findings contains {"msg": sprintf("n=%d", [to_number(input.object.metadata.name)]), "path": ["metadata", "name"]} if input.kind == "ConfigMap"
`)
	fs := run(t, r, map[string]string{
		"a.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: abc\n",
		"b.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \"12\"\n",
	})
	if len(fs) != 2 {
		t.Fatalf("findings: %+v", fs)
	}
	if !fs[0].Internal || fs[0].Pos.String() != "a.yaml:2:1" || !strings.Contains(fs[0].Message, "internal error: evaluate policies/org100.rego on this document") {
		t.Errorf("internal finding: %+v", fs[0])
	}
	if fs[1].Internal || fs[1].Message != "n=12" || fs[1].Pos.String() != "b.yaml:4:9" {
		t.Errorf("finding: %+v", fs[1])
	}

	bad := compile(t, `findings contains f if {
	input.kind == "ConfigMap"
	f := {"text": "no msg", "path": []}
}
`)
	ws := load.Bytes("a.yaml", []byte("apiVersion: v1\nkind: ConfigMap\n"), nil)
	err := bad.Run(checker.NewPass(bad, ws, func(checker.Finding) {}))
	if err == nil || !strings.HasPrefix(err.Error(), `policies/org100.rego:11: findings: finding without a "msg" string`) {
		t.Errorf("err = %v", err)
	}
	badPath := compile(t, `findings contains f if {
	input.kind == "ConfigMap"
	f := {"msg": "x", "path": ["a", -1]}
}
`)
	err = badPath.Run(checker.NewPass(badPath, ws, func(checker.Finding) {}))
	if err == nil || !strings.Contains(err.Error(), `policies/org100.rego:11: findings: finding with a malformed "path"`) {
		t.Errorf("err = %v", err)
	}
}

// TestFixSafety: a policy marks a fix safe with "safe": true; anything but a boolean breaks
// the contract.
func TestFixSafety(t *testing.T) {
	r := compile(t, `findings contains {"msg": "s", "path": ["ipvs", "scheduler"], "fix": {"newText": "rr", "safe": true}} if input.kind == "KubeProxyConfiguration"
`)
	fs := run(t, r, map[string]string{"a.yaml": kpc})
	if len(fs) != 1 || len(fs[0].Fixes) != 1 || fs[0].Fixes[0].Safety != checker.Safe {
		t.Fatalf("findings: %+v", fs)
	}
	bad := compile(t, `findings contains {"msg": "s", "path": ["ipvs", "scheduler"], "fix": {"newText": "rr", "safe": "yes"}} if input.kind == "KubeProxyConfiguration"
`)
	ws := load.Bytes("a.yaml", []byte(kpc), nil)
	err := bad.Run(checker.NewPass(bad, ws, func(checker.Finding) {}))
	if err == nil || !strings.Contains(err.Error(), `"fix" safe must be a boolean`) {
		t.Errorf("err = %v", err)
	}
}

func TestTimeout(t *testing.T) {
	r := compile(t, `findings contains {"msg": "x", "path": []} if {
	input.kind == "ConfigMap"
	count([x | some x in numbers.range(1, 1000000); some y in numbers.range(1, 1000000); x = y]) > 0
}
`)
	old := policy.Timeout
	policy.Timeout = 50 * 1e6 // 50ms
	defer func() { policy.Timeout = old }()
	ws := load.Bytes("a.yaml", []byte("apiVersion: v1\nkind: ConfigMap\n"), nil)
	err := r.Run(checker.NewPass(r, ws, func(checker.Finding) {}))
	if err == nil || !strings.Contains(err.Error(), "timed out after 50ms") {
		t.Errorf("err = %v", err)
	}
}

// TestRangeBounded: numbers.range builds its whole array before the timeout could stop it, so
// the sandbox refuses ranges beyond a million numbers instead of running out of memory.
func TestRangeBounded(t *testing.T) {
	r := compile(t, `findings contains {"msg": "x", "path": []} if {
	input.kind == "ConfigMap"
	count(numbers.range_step(1, 1000000000000, 1)) > count(numbers.range(1, 1000000000000))
}
`)
	ws := load.Bytes("a.yaml", []byte("apiVersion: v1\nkind: ConfigMap\n"), nil)
	var fs []checker.Finding
	if err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { fs = append(fs, f) })); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || !fs[0].Internal || !strings.Contains(fs[0].Message, "the sandbox allows at most 1048576") {
		t.Errorf("findings = %+v", fs)
	}
	ok := compile(t, `findings contains {"msg": sprintf("%v %v %v", [numbers.range(3, 1), numbers.range_step(0, 10, 4), numbers.range(-1, 1)]), "path": []} if {
	input.kind == "ConfigMap"
}
`)
	fs = nil
	if err := ok.Run(checker.NewPass(ok, ws, func(f checker.Finding) { fs = append(fs, f) })); err != nil {
		t.Fatal(err)
	}
	if len(fs) != 1 || fs[0].Message != "[3, 2, 1] [0, 4, 8] [-1, 0, 1]" {
		t.Errorf("findings = %+v", fs)
	}
}

func TestRunTestsReportsFailures(t *testing.T) {
	srcs := []policy.Source{
		src("200", "findings contains {\"msg\": \"x\", \"path\": []} if input.kind == \"ConfigMap\"\n"),
		{Name: "policies/org200_test.rego", Text: "package org.r200_test\n\nimport data.org.r200\n\ntest_ok if count(r200.findings) == 1 with input as {\"kind\": \"ConfigMap\"}\n\ntest_bad if count(r200.findings) == 2 with input as {\"kind\": \"ConfigMap\"}\n"},
	}
	res, err := policy.RunTests(context.Background(), srcs, "")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, r := range res {
		got[r.Name] = r.Pass
	}
	if len(got) != 2 || !got["org.r200_test.test_ok"] || got["org.r200_test.test_bad"] {
		t.Errorf("results: %+v", res)
	}
	srcs[1].Text += "\ntest_net if net.lookup_ip_addr(\"example.com\")\n"
	if _, err := policy.RunTests(context.Background(), srcs, ""); err == nil || !strings.Contains(err.Error(), "policies/org200_test.rego:9: net.lookup_ip_addr is not allowed") {
		t.Errorf("sandbox in tests: %v", err)
	}
}

// TestConcurrentRuns runs the prepared queries from many goroutines over two workspaces, as
// the engine does (run with -race).
func TestConcurrentRuns(t *testing.T) {
	a := load.Files(map[string][]byte{"a.yaml": []byte("# target: 1.39\n" + kpc)}, &checker.Version{Major: 1, Minor: 39})
	b := load.Files(map[string][]byte{"b.yaml": []byte(kpc + "---\n" + kpc)}, &checker.Version{Major: 1, Minor: 39})
	rule := policy.Builtin()[0] // KP204
	count := func(ws *checker.Workspace) int {
		n := 0
		if err := rule.Run(checker.NewPass(rule, ws, func(checker.Finding) { n++ })); err != nil {
			t.Error(err)
		}
		return n
	}
	done := make(chan [2]int)
	for range 8 {
		go func() { done <- [2]int{count(a), count(b)} }()
	}
	for range 8 {
		if got := <-done; got != [2]int{1, 2} {
			t.Errorf("findings = %v, want [1 2]", got)
		}
	}
}
