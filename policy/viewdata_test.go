package policy_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// TestViewDataReads: data.kube_proxy_lint is served one field at a time (each converted when
// first read, issue 24), and a policy sees the same data however it reads it: whole, key by
// key, or one field.
func TestViewDataReads(t *testing.T) {
	ws := load.Files(map[string][]byte{
		"kp.yaml":  []byte(kpc),
		"svc.yaml": []byte("apiVersion: v1\nkind: Service\nmetadata:\n  name: s\nspec:\n  type: NodePort\n  ports:\n  - port: 80\n    nodePort: 30080\n"),
	}, nil)
	view, err := json.Marshal(policy.BuildView(ws))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := json.Unmarshal(view, &want); err != nil {
		t.Fatal(err)
	}
	if len(want["documents"].([]any)) != 2 || len(want["services"].([]any)) != 1 || len(want["instances"].([]any)) != 1 {
		t.Fatalf("view without documents, services or instances: %s", view)
	}
	for _, tc := range []struct {
		name, expr string
		want       any
	}{
		{"whole", "data.kube_proxy_lint", want},
		{"by key", "{k: v | some k, v in data.kube_proxy_lint}", want},
		{"one key", `data.kube_proxy_lint["replacements"]`, want["replacements"]},
		{"documents", "data.kube_proxy_lint.documents", want["documents"]},
		{"one service", "data.kube_proxy_lint.services[0].nodePorts[0].nodePort", want["services"].([]any)[0].(map[string]any)["nodePorts"].([]any)[0].(map[string]any)["nodePort"]},
	} {
		r := compile(t, "findings contains {\"msg\": json.marshal("+tc.expr+"), \"path\": []} if input.kind == \"Service\"\n")
		var fs []checker.Finding
		if err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { fs = append(fs, f) })); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(fs) != 1 {
			t.Fatalf("%s: findings %+v", tc.name, fs)
		}
		var got any
		if err := json.Unmarshal([]byte(fs[0].Message), &got); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got\n%s\nwant\n%v", tc.name, fs[0].Message, tc.want)
		}
	}
}
