package rules

import (
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// consistencyFiles hold the same facts in several shapes: a quoted mode in a
// KubeProxyConfiguration and in a kind config, a DaemonSet whose --proxy-mode contradicts the
// file it mounts with --config, and a script whose mode flag is on a continuation line.
var consistencyFiles = map[string]string{
	"cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: "ipvs"
`,
	"ds.yaml": `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-proxy
  namespace: kube-system
spec:
  template:
    spec:
      containers:
      - name: kube-proxy
        command:
        - /usr/local/bin/kube-proxy
        - --config=/var/lib/kube-proxy/config.conf
        - --proxy-mode=iptables
        volumeMounts:
        - name: kube-proxy
          mountPath: /var/lib/kube-proxy
      volumes:
      - name: kube-proxy
        configMap:
          name: kube-proxy
`,
	"kind/cluster.yaml": `kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
networking:
  kubeProxyMode: "ipvs"
`,
	"node/start.sh": `#!/bin/sh
curl -fsS http://127.0.0.1:31500/register
exec /usr/local/bin/kube-proxy \
  --v=2 \
  --proxy-mode=ipvs
`,
}

// runAll runs every Go rule over the files at target.
func runAll(t *testing.T, files map[string]string, target string) (*checker.Workspace, []checker.Finding) {
	t.Helper()
	var ws *checker.Workspace
	var all []checker.Finding
	for _, r := range All() {
		w, fs := runOn(t, r, files, target)
		ws = w
		for i := range fs {
			fs[i].RuleID = r.ID
		}
		all = append(all, fs...)
	}
	return ws, all
}

// TestSpansConsistent: the same fact is shown the same way by every rule (issue 12 item 7).
func TestSpansConsistent(t *testing.T) {
	ws, fs := runAll(t, consistencyFiles, "1.40")
	content := map[string][]byte{}
	for _, f := range ws.Files {
		content[f.Path] = f.Content
	}
	text := func(p, e checker.Position) string { return string(content[p.Filename][p.Offset:e.Offset]) }

	// A quoted value is underlined with its quotes, by the YAML rules and the installer rules.
	quoted := 0
	for _, f := range fs {
		if f.RuleID == "KP102" && (f.Pos.Filename == "cm.yaml" || f.Pos.Filename == "kind/cluster.yaml") {
			quoted++
			if got := text(f.Pos, f.End); got != `"ipvs"` {
				t.Errorf("%s %s underlines %q, want the value with its quotes", f.RuleID, f.Pos, got)
			}
		}
	}
	if quoted != 2 {
		t.Errorf("KP102 findings on the quoted modes: %d, want 2", quoted)
	}

	// One problem, one finding: the contradicting --proxy-mode is KP106's, not also KP201's.
	var onFlag []string
	for _, f := range fs {
		if f.Pos.Filename == "ds.yaml" && strings.HasPrefix(text(f.Pos, f.End), "--proxy-mode") {
			onFlag = append(onFlag, f.RuleID)
		}
	}
	if strings.Join(onFlag, ",") != "KP106" {
		t.Errorf("findings on --proxy-mode=iptables: %v, want KP106 alone", onFlag)
	}

	// Notes about the config file's mode point at the value, whichever rule writes them.
	for _, f := range fs {
		for _, r := range f.Related {
			if strings.Contains(r.Message, "sets mode") && r.Pos.Filename == "cm.yaml" {
				if got := text(r.Pos, r.End); got != `"ipvs"` {
					t.Errorf("%s note %q points at %q, want the mode value", f.RuleID, r.Message, got)
				}
			}
		}
	}

	// A note that names an instance by another line says what its own line holds.
	_, fs = runAll(t, map[string]string{"node/start.sh": consistencyFiles["node/start.sh"]}, "1.40")
	found := false
	for _, f := range fs {
		if f.RuleID != "KP302" {
			continue
		}
		for _, r := range f.Related {
			if r.Pos.Filename == "node/start.sh" && r.Pos.Line == 5 {
				found = true
				if !strings.Contains(r.Message, "--proxy-mode=ipvs here") {
					t.Errorf("KP302 note at line 5: %q does not say what line 5 holds", r.Message)
				}
			}
		}
	}
	if !found {
		t.Errorf("no KP302 note at node/start.sh:5: %+v", fs)
	}
}
