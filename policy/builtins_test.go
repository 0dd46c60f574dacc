package policy_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// TestPlaceholderBuiltinUserPolicy: a user policy (one that imports the workspace view, whose
// root kube_proxy_lint must not hide the builtin) calls kpl.placeholder and so skips templated
// values, as the Go rules do.
func TestPlaceholderBuiltinUserPolicy(t *testing.T) {
	r := compile(t, `import data.kube_proxy_lint

findings contains {"msg": sprintf("%v", [s]), "path": ["ipvs", "scheduler"]} if {
	count(kube_proxy_lint.documents) > 0
	s := input.object.ipvs.scheduler
	not kpl.placeholder(s)
}
`)
	for value, want := range map[string]int{
		"lc":                        1,
		`"{{ .Values.scheduler }}"`: 0,
		`"${SCHED}"`:                0,
		`"$SCHED"`:                  0,
		`"{{ scheduler }}"`:         0,
		"7":                         1, // a number holds no placeholder (and is no type error)
	} {
		ws := load.Bytes("a.yaml", []byte(strings.Replace(kpc, "lc", value, 1)), nil)
		var msgs []string
		if err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { msgs = append(msgs, f.Message) })); err != nil {
			t.Fatalf("%s: %v", value, err)
		}
		if len(msgs) != want {
			t.Errorf("scheduler %s: findings %q, want %d", value, msgs, want)
		}
	}
}

// TestPlaceholderBuiltinIsHasPlaceholder: the builtin answers what text.HasPlaceholder does,
// under `kube-proxy-lint test` (OPA's test runner) as in lint runs; values that are not
// strings are never placeholders.
func TestPlaceholderBuiltinIsHasPlaceholder(t *testing.T) {
	cases := []string{
		"lc", "", "rr", "{{ .Values.scheduler }}", "${SCHED}", "$SCHED", "$(SCHED)", "%SCHED%",
		"<SCHEDULER>", "{% if x %}lc{% endif %}", "<%= @sched %>", "@SCHED@", "__SCHED__",
		"${var.scheduler}", "$", "100%", "a<b", "user@example.com",
	}
	var b strings.Builder
	b.WriteString("package org.placeholder_test\n\n")
	for i, s := range cases {
		fmt.Fprintf(&b, "test_string_%d if kpl.placeholder(%s) == %t\n\n", i, strconv.Quote(s), text.HasPlaceholder(s))
	}
	for i, v := range []string{"1", "null", "true", `["{{ x }}"]`, `{"a": "${X}"}`} {
		fmt.Fprintf(&b, "test_other_%d if kpl.placeholder(%s) == false\n\n", i, v)
	}
	// The cases must exercise both answers, or the comparison proves nothing.
	if !text.HasPlaceholder("{{ .Values.scheduler }}") || text.HasPlaceholder("lc") {
		t.Fatal("text.HasPlaceholder changed its answer on the reference cases")
	}
	res, err := policy.RunTests(context.Background(), []policy.Source{{Name: "policies/placeholder_test.rego", Text: b.String()}}, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(cases)+5 {
		t.Fatalf("%d tests ran, want %d", len(res), len(cases)+5)
	}
	for _, r := range res {
		if !r.Pass {
			t.Errorf("%s: %s failed: %v", r.Location, r.Name, r.Err)
		}
	}
}
