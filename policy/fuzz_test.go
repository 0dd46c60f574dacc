package policy_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// FuzzInput checks the Rego input building (issue 11): for any YAML, every document's input
// and the workspace view convert without error (alias budgets aside), every built-in Rego rule
// runs without an internal error, and the paths a user policy reports back map to positions
// inside the file.
func FuzzInput(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kube-proxy}\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: ipvs\n"))
	f.Add([]byte("kind: Foo\n\"007\": {\"+1\": [a, {\"\\e\": 1}]}\n1e3: x\n"))
	f.Add([]byte("a: &a {b: [*a]}\n"))
	f.Add([]byte("kind: DaemonSet\napiVersion: apps/v1\nspec:\n  template:\n    spec:\n      containers:\n      - name: kube-proxy\n        command: [kube-proxy, --proxy-mode=ipvs]\n"))
	walker, err := policy.Compile([]policy.Source{{Name: "fuzz.rego", Text: `# METADATA
# title: fuzz
# description: reports every scalar of every document
# custom:
#   id: FUZZ001
#   name: fuzz-walk
#   severity: info
#   remediation: none
package fuzz.walk

findings contains {"msg": "x", "path": p} if {
	walk(input.object, [p, v])
	is_string(v)
}
`}}, false)
	if err != nil {
		f.Fatal(err)
	}
	rules := append(policy.Builtin(), walker...)
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return // the walk policy is quadratic in the paths it reports
		}
		ws := load.Bytes("f.yaml", b, nil)
		for _, r := range rules {
			var fs []checker.Finding
			if err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { fs = append(fs, f) })); err != nil {
				t.Fatalf("%s: %v", r.ID, err)
			}
			for _, f := range fs {
				if f.Internal && !strings.Contains(f.Message, "alias") && !strings.Contains(f.Message, "nests deeper") {
					t.Fatalf("%s: %s", r.ID, f.Message)
				}
				if f.Pos.Offset < 0 || f.Pos.Offset > len(b) {
					t.Fatalf("%s: position %+v outside the input", r.ID, f.Pos)
				}
				if _, err := json.Marshal(f.Path); err != nil || !json.Valid(mustJSON(t, f.Path)) {
					t.Fatalf("%s: path %q is not JSON", r.ID, f.Path)
				}
			}
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
