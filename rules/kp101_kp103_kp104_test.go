package rules

import (
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// runKP10xRule loads src as one file and returns the rule's findings.
func runKP10xRule(t *testing.T, r *checker.Rule, src string, target string) (*checker.Workspace, []checker.Finding) {
	t.Helper()
	v, err := checker.ParseVersion(target)
	if err != nil {
		t.Fatal(err)
	}
	ws := load.Bytes("x.yaml", []byte(src), &v)
	var fs []checker.Finding
	if err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { fs = append(fs, f) })); err != nil {
		t.Fatal(err)
	}
	return ws, fs
}

// TestKP101SecondFix checks that the second fix pins nftables wherever the first pins iptables.
func TestKP101SecondFix(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"config", "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n", "kind: KubeProxyConfiguration\nmode: nftables\n"},
		{"empty", "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ''\n", "mode: 'nftables'\n"},
		{"configmap", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\ndata:\n  config.conf: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n", "    kind: KubeProxyConfiguration\n    mode: nftables\n"},
		{"flags", "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: kube-proxy\n    command: [kube-proxy]\n    args:\n    - --v=2\n", "command: [kube-proxy, --proxy-mode=nftables]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, fs := runKP10xRule(t, KP101, tt.src, "1.40")
			if len(fs) != 1 || len(fs[0].Fixes) != 2 {
				t.Fatalf("want one finding with two fixes, got %+v", fs)
			}
			if !strings.Contains(fs[0].Fixes[0].Message, "iptables") || !strings.Contains(fs[0].Fixes[1].Message, "nftables") {
				t.Errorf("fix order: %q, %q", fs[0].Fixes[0].Message, fs[0].Fixes[1].Message)
			}
			got, err := checker.ApplyEdits(ws.Files[0].Content, fs[0].Fixes[1].Edits)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(got), tt.want) {
				t.Errorf("second fix gives\n%s\nwant it to contain\n%s", got, tt.want)
			}
		})
	}
}

func TestShellProgramSpan(t *testing.T) {
	tests := []struct{ script, want string }{
		{"exec /usr/local/bin/kube-proxy --v=2", "/usr/local/bin/kube-proxy"},
		{"mkdir -p /var/lib/kube-proxy && exec kube-proxy --v=2", "kube-proxy"},
		{"cp /src/kube-proxy /dst; env -i FOO=1 \"kube-proxy\" --v=2", `"kube-proxy"`},
		{"echo kube-proxy", ""},
		{"# kube-proxy\nKUBE=1 kube-proxy.exe", "kube-proxy.exe"},
	}
	for _, tt := range tests {
		from, to, ok := shellProgramSpan(tt.script)
		got := ""
		if ok {
			got = tt.script[from:to]
		}
		if got != tt.want {
			t.Errorf("shellProgramSpan(%q) = %q, want %q", tt.script, got, tt.want)
		}
		if ok && from > 0 && tt.script[from-1] != ' ' && tt.script[from-1] != '\n' {
			t.Errorf("shellProgramSpan(%q) starts inside a word", tt.script)
		}
	}
}

func TestIsIPVSGate(t *testing.T) {
	for name, want := range map[string]bool{"KubeProxyIPVS": true, "SupportIPVSProxyMode": true, "NFTablesProxyMode": false, "kubeproxyipvs": false} {
		if isIPVSGate(name) != want {
			t.Errorf("isIPVSGate(%q) = %v", name, !want)
		}
	}
}
