package rules_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestKP102EverySourceHasAFix: wherever ipvs is written (a KubeProxyConfiguration, a kubeadm
// document, a ConfigMap, --proxy-mode in manifests, scripts and units, every installer), the
// KP102 finding offers the nftables fix, preferred, with iptables as the alternative; where
// kubespray's role default applies, the fix writes kube_proxy_mode down. aks-engine and ACK,
// whose validation has no nftables value, get the iptables fix alone.
func TestKP102EverySourceHasAFix(t *testing.T) {
	dir := filepath.Join(fixtureRoot, "KP102")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		if strings.HasSuffix(name, ".golden") || strings.HasPrefix(name, "negative") {
			continue
		}
		_, fs := checkertest.Findings(t, rules.KP102, filepath.Join(dir, name))
		for _, f := range fs {
			n++
			if strings.HasPrefix(f.Message, "aks-engine ") || strings.HasPrefix(f.Message, "ack ") {
				// Installers whose validation accepts no nftables value: iptables is the fix.
				if len(f.Fixes) != 1 || !strings.Contains(strings.ToLower(f.Fixes[0].Message), "iptables") {
					t.Errorf("%s: %s: want the one iptables fix: %+v", name, f.Pos, f.Fixes)
				}
				continue
			}
			if strings.Contains(f.Message, checker.ApproximateNote) {
				// Rendered by a Helm helper: where ipvs is written is not known, so nothing
				// can be edited (the message says the position is approximate).
				if len(f.Fixes) != 0 {
					t.Errorf("%s: %s: a fix at an approximate position: %+v", name, f.Pos, f.Fixes)
				}
				continue
			}
			fx, ok := f.PreferredFix()
			if !ok || !strings.Contains(strings.ToLower(fx.Message), "nftables") {
				t.Errorf("%s: %s: no preferred nftables fix (%d fixes)", name, f.Pos, len(f.Fixes))
				continue
			}
			if len(f.Fixes) != 2 || !strings.Contains(strings.ToLower(f.Fixes[1].Message), "iptables") {
				t.Errorf("%s: %s: no iptables alternative: %+v", name, f.Pos, f.Fixes)
			}
		}
	}
	if n < 20 {
		t.Errorf("only %d KP102 findings in the fixtures", n)
	}
}
