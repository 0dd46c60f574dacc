package rules

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// TestSeverityAtMatchesFindings: the severity `rules` shows at a target (Rule.SeverityAt) is
// the severity the rule reports on its typical input at that target.
func TestSeverityAtMatchesFindings(t *testing.T) {
	const head = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"
	for _, tc := range []struct {
		rule *checker.Rule
		src  string
	}{
		{KP101, head + "clusterCIDR: 10.0.0.0/8\n"},
		{KP102, head + "mode: ipvs\n"},
		{KP104, head + "mode: ipvs\nfeatureGates:\n  KubeProxyIPVS: true\n"},
	} {
		if tc.rule.SeverityAt == nil {
			t.Fatalf("%s has no SeverityAt", tc.rule.ID)
		}
		for _, target := range []string{"1.34", "1.36", "1.37", "1.39", "1.40", "1.42", "1.43", "1.45", "1.46"} {
			_, fs := runOn(t, tc.rule, map[string]string{"kp.yaml": tc.src}, target)
			v, _ := checker.ParseVersion(target)
			want := tc.rule.SeverityFor(v)
			if len(fs) == 0 {
				t.Errorf("%s at %s: no finding", tc.rule.ID, target)
				continue
			}
			for _, f := range fs {
				if f.Severity != want {
					t.Errorf("%s at %s: finding is %s, SeverityAt says %s: %s", tc.rule.ID, target, f.Severity, want, f.Message)
				}
			}
		}
	}
}
