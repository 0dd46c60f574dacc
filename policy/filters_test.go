package policy_test

import (
	"sort"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
)

// TestEvaluationFilters: custom.modes and custom.replacements narrow the inputs a rule is
// evaluated on; a rule that reports every input shows which ones it got.
func TestEvaluationFilters(t *testing.T) {
	const every = "findings contains {\"msg\": input.id, \"path\": []} if true\n"
	kpc := func(mode string) string {
		return "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: " + mode + "\n"
	}
	cilium := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cilium-config\n  namespace: kube-system\ndata:\n  kube-proxy-replacement: \"true\"\n"
	svc := "apiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  ports:\n  - port: 80\n"
	plain := map[string][]byte{"ipvs.yaml": []byte(kpc("ipvs")), "iptables.yaml": []byte(kpc("iptables")), "svc.yaml": []byte(svc)}
	replaced := map[string][]byte{"ipvs.yaml": []byte(kpc("ipvs")), "cilium.yaml": []byte(cilium)}
	for _, tc := range []struct {
		name, meta string
		files      map[string][]byte
		want       string
	}{
		{"no filter", "", plain, "iptables.yaml#0 ipvs.yaml#0 svc.yaml#0"},
		{"modes", "#   modes: [ipvs]\n", plain, "ipvs.yaml#0"},
		{"modes as a string", "#   modes: iptables\n", plain, "iptables.yaml#0"},
		{"two modes", "#   modes: [ipvs, iptables]\n", plain, "iptables.yaml#0 ipvs.yaml#0"},
		{"no replacements", "#   replacements: required\n", plain, ""},
		{"replacements", "#   replacements: required\n", replaced, "cilium.yaml#0 ipvs.yaml#0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := policy.Compile([]policy.Source{{Name: "p/f.rego", Text: strings.ReplaceAll(header, "%s", "040") + tc.meta + "package f\n\n" + every}}, false)
			if err != nil {
				t.Fatal(err)
			}
			ws := load.Files(tc.files, &checker.Version{Major: 1, Minor: 33})
			var got []string
			if err := rs[0].Run(checker.NewPass(rs[0], ws, func(f checker.Finding) { got = append(got, f.Message) })); err != nil {
				t.Fatal(err)
			}
			sort.Strings(got)
			if s := strings.Join(got, " "); s != tc.want {
				t.Errorf("evaluated on %q, want %q", s, tc.want)
			}
		})
	}
}
