package rules_test

import (
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestKP106Related checks that a conflicting --proxy-mode points at the config's mode line and
// at the chain that resolves --config.
func TestKP106Related(t *testing.T) {
	_, fs := checkertest.Findings(t, rules.KP106, "../fixtures/rules/KP106/flag_block.yaml")
	if len(fs) != 1 {
		t.Fatalf("got %d findings, want 1", len(fs))
	}
	rel := fs[0].Related
	if len(rel) < 4 {
		t.Fatalf("got %d related locations, want the mode line and the --config chain: %+v", len(rel), rel)
	}
	if rel[0].Pos.Line != 35 || rel[0].Pos.Column != 11 || rel[0].Message != "the config file sets mode iptables" {
		t.Errorf("first related = %s %q, want line 35 col 11, the mode value", rel[0].Pos, rel[0].Message)
	}
	var via []string
	for _, r := range rel[1:] {
		via = append(via, r.Message)
	}
	if got := strings.Join(via, "; "); !strings.Contains(got, "mounted") || !strings.Contains(got, "ConfigMap kube-proxy key config.conf") {
		t.Errorf("related locations do not show the --config chain: %s", got)
	}
}

// TestKP201Fixes checks the fixes of each finding: removing the ignored flag is always safe
// and preferred; moving a value the file lacks or contradicts is the unsafe alternative.
func TestKP201Fixes(t *testing.T) {
	_, fs := checkertest.Findings(t, rules.KP201, "../fixtures/rules/KP201/block.yaml")
	fixed := map[string]string{}
	for _, f := range fs {
		name := strings.Fields(strings.TrimPrefix(f.Message, "kube-proxy ignores "))[0]
		name, _, _ = strings.Cut(name, "=")
		var fixes []string
		for _, fx := range f.Fixes {
			s := fx.Safety.String() + " " + fx.Message
			if fx.Preferred {
				s += " (preferred)"
			}
			fixes = append(fixes, s)
		}
		fixed[name] = strings.Join(fixes, "; ")
	}
	rm := func(flag string) string { return "safe Remove the ignored flag " + flag + " (preferred)" }
	want := map[string]string{
		"--proxy-mode":                        rm("--proxy-mode"),
		"--masquerade-all":                    rm("--masquerade-all"),
		"--conntrack-tcp-timeout-established": rm("--conntrack-tcp-timeout-established"),
		"--nodeport-addresses":                rm("--nodeport-addresses"),
		"--proxy-port-range":                  rm("--proxy-port-range"),
		"--cluster-cidr":                      rm("--cluster-cidr") + "; unsafe Set clusterCIDR to 10.0.0.0/8 in the config file and remove --cluster-cidr",
		"--iptables-sync-period":              rm("--iptables-sync-period") + "; unsafe Set iptables.syncPeriod to 10s in the config file and remove --iptables-sync-period",
	}
	for k, v := range want {
		got, ok := fixed[k]
		if !ok {
			t.Errorf("no finding for %s", k)
			continue
		}
		if got != v {
			t.Errorf("%s: fix %q, want %q", k, got, v)
		}
	}
	if len(fixed) != len(want) {
		t.Errorf("got findings for %v, want exactly %d flags", fixed, len(want))
	}
}
