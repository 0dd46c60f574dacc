package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// runOn loads files as one workspace at target and returns rule r's findings.
func runOn(t *testing.T, r *checker.Rule, files map[string]string, target string) (*checker.Workspace, []checker.Finding) {
	t.Helper()
	v, err := checker.ParseVersion(target)
	if err != nil {
		t.Fatal(err)
	}
	m := map[string][]byte{}
	for k, s := range files {
		m[k] = []byte(s)
	}
	ws := load.Files(m, &v)
	var fs []checker.Finding
	if err := r.Run(checker.NewPass(r, ws, func(f checker.Finding) { fs = append(fs, f) })); err != nil {
		t.Fatal(err)
	}
	checker.SortFindings(fs)
	return ws, fs
}

func TestPromMetricRefs(t *testing.T) {
	tests := []struct {
		expr string
		want []string // name, with "!" prefix when inside absent()
	}{
		{`rate(foo_total[5m])`, []string{"foo_total"}},
		{`sum by (instance, job) (rate(a{job="x",le=~"0.1|1"}[5m])) / on(instance) group_left(node) b`, []string{"a", "b"}},
		{`sum without (le) (x) and ignoring (a) y unless z offset 5m`, []string{"x", "y", "z"}},
		{`absent(a) or absent_over_time(b[5m]) or c`, []string{"!a", "!b", "c"}},
		{`{__name__="kubeproxy_x_total", job="p"}`, []string{"kubeproxy_x_total"}},
		{`{"quoted.metric", job="p"}`, []string{"quoted.metric"}},
		{`label_replace(vector(0), "m", "not_a_metric", "", "")`, nil},
		{"# comment_metric\nreal_metric", []string{"real_metric"}},
		{`rate(m[$__rate_interval]) * ${factor} + $other`, []string{"m"}},
		{`rate({{ .Values.metric }}[5m]) + x{job="{{ .Release.Name }}"}`, []string{"x"}},
		{`histogram_quantile(0.99, rate(h_bucket[5m])) > 1e3 and 0x1F < inf`, []string{"h_bucket"}},
		{`count(up == bool 1) @ start()`, []string{"up"}},
		{`x[5m:1m]`, []string{"x"}},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range promMetricRefs(tt.expr) {
			if tt.expr[r.From:r.To] != r.Name {
				t.Errorf("%q: span %d-%d is %q, name %q", tt.expr, r.From, r.To, tt.expr[r.From:r.To], r.Name)
			}
			n := r.Name
			if r.InAbsent {
				n = "!" + n
			}
			got = append(got, n)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("promMetricRefs(%q) = %q, want %q", tt.expr, got, tt.want)
		}
	}
}

func TestFindLoopbackRefs(t *testing.T) {
	tests := []struct {
		s    string
		want []string
	}{
		{"curl http://127.0.0.1:30080/x", []string{"127.0.0.1:30080"}},
		{"a=localhost:32000/app b=[::1]:30001 c=127.1.2.3:31000", []string{"localhost:32000", "[::1]:30001", "127.1.2.3:31000"}},
		{"--metrics-bind-address=127.0.0.1:30249", nil},
		{"ListenStream=127.0.0.1:30080", nil},
		{"bind = \"127.0.0.1:30080\"", nil},
		{"-p 127.0.0.1:30080:80", nil},
		{"range 127.0.0.1:30000-32767", nil},
		{"mylocalhost:30080 localhost.localdomain:30080 127.0.0.1:123456", nil},
		{"127.0.0.256:30080 1127.0.0.1:30080", nil},
		{"localhost", nil},
		{"--listen-client-urls=https://10.0.0.1:32379,https://127.0.0.1:32379", nil},
		{"--server=https://127.0.0.1:32379,https://127.0.0.1:32380", []string{"127.0.0.1:32379", "127.0.0.1:32380"}},
	}
	for _, tt := range tests {
		var got []string
		for _, r := range findLoopbackRefs(tt.s) {
			got = append(got, tt.s[r.From:r.To])
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("findLoopbackRefs(%q) = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestPortForwardPorts(t *testing.T) {
	got := portForwardPorts("kubectl -n x port-forward svc/web 30080:80 :9090 8443 --address 127.0.0.1 | tee log")
	if !reflect.DeepEqual(got, []int{30080, 8443}) {
		t.Errorf("portForwardPorts = %v", got)
	}
}

// TestKP301AllFix checks the second fix: the version-correct form of "all".
func TestKP301AllFix(t *testing.T) {
	src := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n"
	for target, want := range map[string]string{"1.36": `nodePortAddresses: ["0.0.0.0/0", "::/0"]`, "1.37": `nodePortAddresses: ["all"]`} {
		ws, fs := runOn(t, KP301, map[string]string{"kp.yaml": src}, target)
		if len(fs) != 1 || len(fs[0].Fixes) != 2 {
			t.Fatalf("%s: want one finding with two fixes, got %+v", target, fs)
		}
		got, err := checker.ApplyEdits(ws.Files[0].Content, fs[0].Fixes[1].Edits)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(got), "mode: nftables\n"+want+"\n") {
			t.Errorf("%s: second fix gives\n%s", target, got)
		}
	}
}

// TestKP501StandaloneDashboard checks a Grafana dashboard in its own .json file (JSON holds
// no "# want" comments, so it is tested here) and that the fix edits the JSON string.
func TestKP501StandaloneDashboard(t *testing.T) {
	dash := "{\n  \"panels\": [\n    {\n      \"targets\": [\n        {\"expr\": \"sum(rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total{job=\\\"kube-proxy\\\"}[5m]))\"}\n      ]\n    }\n  ],\n  \"templating\": {\"list\": [{\"name\": \"instance\", \"query\": {\"query\": \"label_values(kubeproxy_sync_proxy_rules_iptables_last, instance)\"}}]}\n}\n"
	ws, fs := runOn(t, KP501, map[string]string{
		"dashboards/kube-proxy.json": dash,
		"kube-proxy.yaml":            "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n",
	}, "1.38")
	if len(fs) != 2 {
		t.Fatalf("want 2 findings, got %d: %+v", len(fs), fs)
	}
	if p := fs[0].Pos; p.Line != 5 || p.Column != 28 || !strings.Contains(fs[0].Message, "restore_failures_total") {
		t.Errorf("first finding at %s: %s", p, fs[0].Message)
	}
	if p := fs[1].Pos; p.Line != 9 || p.Column != 81 || len(fs[1].Fixes) != 0 {
		t.Errorf("second finding at %s (fixes %d): %s", p, len(fs[1].Fixes), fs[1].Message)
	}
	var src []byte
	for _, f := range ws.Files {
		if f.Path == "dashboards/kube-proxy.json" {
			src = f.Content
		}
	}
	got, err := checker.ApplyEdits(src, fs[0].Fixes[0].Edits)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `sum(rate(kubeproxy_sync_proxy_rules_nftables_sync_failures_total{job=\"kube-proxy\"}[5m]))`) {
		t.Errorf("fix gives\n%s", got)
	}
}

// TestKP302TextFiles checks the text scan on in-memory scripts, units and hosts.toml next to
// a kube-proxy in ipvs mode and a Service, and that only the declared port names it.
func TestKP302TextFiles(t *testing.T) {
	_, fs := runOn(t, KP302, map[string]string{
		"kube-proxy.yaml": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
		"svc.yaml":        "apiVersion: v1\nkind: Service\nmetadata:\n  name: registry\n  namespace: kube-system\nspec:\n  type: NodePort\n  ports:\n  - port: 5000\n    nodePort: 32000\n",
		"node/hosts.toml": "server = \"http://localhost:32000\"\n# server = \"http://localhost:32001\"\n",
		"node/pull.sh":    "#!/bin/sh\n  crictl pull localhost:32000/pause # comment localhost:32002\n",
		"node/a.service":  "[Service]\n# ExecStart=/bin/curl localhost:32003\nExecStart=/bin/curl localhost:32004 # localhost:32005 is no comment in units\n",
		"Dockerfile":      "HEALTHCHECK CMD curl -f http://localhost:30080/\n",
	}, "1.39")
	var got []string
	for _, f := range fs {
		got = append(got, f.Pos.String())
		if f.Severity != checker.SeverityError {
			t.Errorf("%s: severity %s", f.Pos, f.Severity)
		}
	}
	want := []string{"node/a.service:3:21", "node/a.service:3:39", "node/hosts.toml:1:18", "node/pull.sh:2:15"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("findings at %q, want %q", got, want)
	}
	if len(fs) == 4 {
		if !strings.Contains(fs[2].Message, "NodePort 32000 of Service kube-system/registry") || len(fs[2].Related) < 2 {
			t.Errorf("hosts.toml finding: %s (related %+v)", fs[2].Message, fs[2].Related)
		}
		if !strings.Contains(fs[0].Message, "no Service in scope declares nodePort 32004") {
			t.Errorf("unit finding: %s", fs[0].Message)
		}
	}
}

func TestLoopbackEntry(t *testing.T) {
	for s, want := range map[string][2]bool{
		"localhost": {true, true}, "127.0.0.1/32": {true, false}, "127.0.0.0/8": {true, false},
		"::1/128": {false, true}, "0.0.0.0/0": {false, false}, "all": {false, false}, "10.0.0.0/8": {false, false},
	} {
		v4, v6 := loopbackEntry(s)
		if [2]bool{v4, v6} != want {
			t.Errorf("loopbackEntry(%q) = %v %v, want %v", s, v4, v6, want)
		}
	}
}

// TestScannersTruncated runs the PromQL and loopback scanners on every prefix and suffix of
// tricky inputs: unterminated strings, braces, brackets and placeholders must not panic, and
// every span must lie inside the input.
func TestScannersTruncated(t *testing.T) {
	inputs := []string{
		`sum by (a) (rate(x{__name__="m",b=~"c\"d"}[5m:1m] offset 1h)) or absent({"q.m"}) # c` + "\n" + `{{ .V }} ${v:raw} $v [[v]] {% x %}`,
		`--a=http://127.0.0.1:30080/x [::1]:31000 localhost:32000:1 127.0.0.1:30000-1 --bind=localhost:30001 [0:0:0:0:0:0:0:1]:30002`,
	}
	for _, in := range inputs {
		for i := 0; i <= len(in); i++ {
			for _, s := range []string{in[:i], in[i:]} {
				for _, r := range promMetricRefs(s) {
					if r.From < 0 || r.To > len(s) || r.From > r.To {
						t.Fatalf("promMetricRefs(%q): bad span %d-%d", s, r.From, r.To)
					}
				}
				for _, r := range findLoopbackRefs(s) {
					if r.From < 0 || r.To > len(s) || r.From > r.To {
						t.Fatalf("findLoopbackRefs(%q): bad span %d-%d", s, r.From, r.To)
					}
				}
			}
		}
	}
}
