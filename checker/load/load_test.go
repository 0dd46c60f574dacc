package load

import (
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// modePos loads src and returns the position of the mode key of the first
// KubeProxyConfiguration, embedded or not.
func modePos(t *testing.T, src string) checker.Position {
	t.Helper()
	ws := Bytes("x.yaml", []byte(src), nil)
	for _, p := range ws.Problems {
		t.Logf("problem: %s: %s", p.Pos, p.Message)
	}
	for _, d := range ws.Docs {
		if d.Kind == "KubeProxyConfiguration" {
			pos, _, ok := d.KeyPos(checker.Path{"mode"})
			if !ok {
				t.Fatalf("no mode key")
			}
			return pos
		}
	}
	t.Fatalf("no KubeProxyConfiguration found")
	return checker.Position{}
}

func TestEmbeddedPositions(t *testing.T) {
	cm := func(header, body, eol string) string {
		lines := []string{
			"apiVersion: v1",
			"kind: ConfigMap",
			"metadata:",
			"  name: kube-proxy",
			"  namespace: kube-system",
			"data:",
			"  config.conf: " + header,
		}
		lines = append(lines, strings.Split(body, "\n")...)
		return strings.Join(lines, eol) + eol
	}
	body := "    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: ipvs"
	tests := []struct {
		name string
		src  string
		line int
		col  int
	}{
		{"literal", cm("|", body, "\n"), 10, 5},
		{"literal strip", cm("|-", body, "\n"), 10, 5},
		{"literal keep", cm("|+", body, "\n"), 10, 5},
		{"crlf", cm("|", body, "\r\n"), 10, 5},
		{"indent indicator", cm("|2", "      # indented comment\n"+body, "\n"), 11, 5},
		{"comment after header", cm("| # the config", body, "\n"), 10, 5},
		{"leading blank line", cm("|", "\n"+body, "\n"), 11, 5},
		{"bom", "\ufeff" + cm("|", body, "\n"), 10, 5},
		{"non-ascii before", cm("|", "    # Größe ünd Ähnliches\n"+body, "\n"), 11, 5},
		{"second document", "kind: Namespace\nmetadata:\n  name: x\n---\n" + cm("|", body, "\n"), 14, 5},
		{"after broken document", "kind: Service\nspec: [\n---\n" + cm("|", body, "\n"), 13, 5},
		{"plain file", "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.0.0.0/8\nmode: ipvs\n", 4, 1},
		{"tab in value", cm("|", "    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    clusterCIDR: \"a\tb\"\n    mode: ipvs", "\n"), 11, 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := modePos(t, tt.src)
			if p.Line != tt.line || p.Column != tt.col {
				t.Errorf("mode at %d:%d, want %d:%d", p.Line, p.Column, tt.line, tt.col)
			}
			// The byte offset must point at the "mode" text in the real file.
			src := tt.src
			if p.Offset+4 > len(src) || src[p.Offset:p.Offset+4] != "mode" {
				t.Errorf("offset %d does not point at mode: %q", p.Offset, src[p.Offset:min(len(src), p.Offset+10)])
			}
		})
	}
}

func TestFoldedScalarPositions(t *testing.T) {
	src := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  config.conf: >\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n\n    kind: KubeProxyConfiguration\n\n    mode: ipvs\n"
	p := modePos(t, src)
	if p.Line != 11 || p.Column != 5 {
		t.Errorf("mode at %d:%d, want 11:5", p.Line, p.Column)
	}
}

func TestNonASCIIColumnsAndOffsets(t *testing.T) {
	src := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nhostnameOverride: \"ünïcödé\"\nmode: ipvs\n"
	ws := Bytes("x.yaml", []byte(src), nil)
	d := ws.Docs[0]
	pos, end, _ := d.ValuePos(checker.Path{"hostnameOverride"})
	if pos.Column != 19 || end.Column != 28 {
		t.Errorf("value spans columns %d-%d, want 19-28", pos.Column, end.Column)
	}
	if got := src[pos.Offset:end.Offset]; got != `"ünïcödé"` {
		t.Errorf("offsets span %q", got)
	}
}

func TestAliasBomb(t *testing.T) {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\nx0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 12; i++ {
		b.WriteString("x")
		b.WriteString(string(rune('0' + i%10)))
		b.WriteString(strings.Repeat("_", i))
		b.WriteString(": &a")
		b.WriteString(strings.Repeat("x", i))
		b.WriteString(" [")
		for j := 0; j < 9; j++ {
			if j > 0 {
				b.WriteString(", ")
			}
			b.WriteString("*a")
			if i == 1 {
				b.WriteString("0")
			} else {
				b.WriteString(strings.Repeat("x", i-1))
			}
		}
		b.WriteString("]\n")
	}
	ws := Bytes("bomb.yaml", []byte(b.String()), nil)
	found := false
	for _, p := range ws.Problems {
		if strings.Contains(p.Message, "alias") {
			found = true
		}
	}
	if !found {
		t.Errorf("alias bomb not reported; problems: %v", ws.Problems)
	}
}

func TestBrokenDocumentKeepsOthers(t *testing.T) {
	src := "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Service\nspec: [unclosed\n---\napiVersion: v1\nkind: Service\nmetadata: {name: c}\n"
	ws := Bytes("x.yaml", []byte(src), nil)
	if len(ws.Docs) != 2 || ws.Docs[1].Name != "c" {
		t.Fatalf("got %d docs", len(ws.Docs))
	}
	if ws.Docs[1].Index != 2 {
		t.Errorf("third document has index %d", ws.Docs[1].Index)
	}
	if len(ws.Problems) != 1 || !ws.Problems[0].Manifest || ws.Problems[0].Pos.Line < 7 {
		t.Errorf("problems: %+v", ws.Problems)
	}
}

func TestUnknownAndDuplicateFields(t *testing.T) {
	src := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\nipvs:\n  schedular: lc\nmode: iptables\nudpIdleTimeout: 1s\n"
	ws := Bytes("x.yaml", []byte(src), nil)
	d := ws.Docs[0]
	var got []string
	for _, is := range d.Issues {
		got = append(got, is.Path.String())
	}
	want := "ipvs.schedular mode udpIdleTimeout"
	if strings.Join(got, " ") != want {
		t.Errorf("issues %v, want %s", got, want)
	}
}

func TestInstances(t *testing.T) {
	files := map[string][]byte{
		"ds.yaml": []byte(`apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-proxy
  namespace: kube-system
spec:
  template:
    spec:
      containers:
      - name: kube-proxy
        image: registry.k8s.io/kube-proxy:v1.37.2
        command:
        - /usr/local/bin/kube-proxy
        - --config=/var/lib/kube-proxy/config.conf
        - --proxy-mode
        - iptables
        volumeMounts:
        - name: kube-proxy
          mountPath: /var/lib/kube-proxy
      volumes:
      - name: kube-proxy
        configMap:
          name: kube-proxy
`),
		"cm.yaml": []byte(`apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |-
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: ipvs
`),
	}
	ws := Files(files, nil)
	if len(ws.Instances) != 1 {
		t.Fatalf("got %d instances", len(ws.Instances))
	}
	in := ws.Instances[0]
	if in.Config == nil {
		t.Fatalf("config not resolved: %s", in.ConfigUnresolved)
	}
	m := in.Mode(ws.Target.Version)
	if m.Value != "ipvs" || m.Origin != checker.OriginConfig {
		t.Errorf("mode %+v", m)
	}
	f := in.Flag("proxy-mode")
	if f == nil || f.Value != "iptables" || f.Pos.Line != 15 || f.End.Line != 16 {
		t.Errorf("proxy-mode flag %+v", f)
	}
	if ws.Target.Version != (checker.Version{Major: 1, Minor: 37}) || !strings.Contains(ws.Target.Source, "ds.yaml:11") {
		t.Errorf("target %+v", ws.Target)
	}
}

func TestShellFlags(t *testing.T) {
	src := `apiVersion: v1
kind: Pod
metadata:
  name: kp
spec:
  containers:
  - name: kp
    image: busybox
    command: ["sh", "-c", "echo hi; exec kube-proxy --proxy-mode=ipvs --v=2"]
`
	ws := Bytes("p.yaml", []byte(src), nil)
	if len(ws.Instances) != 1 {
		t.Fatalf("got %d instances", len(ws.Instances))
	}
	f := ws.Instances[0].Flag("proxy-mode")
	if f == nil || f.Pos.Line != 9 || src[f.Pos.Offset:f.End.Offset] != "--proxy-mode=ipvs" {
		t.Fatalf("flag %+v", f)
	}
	fixed, err := checker.ApplyEdits([]byte(src), f.Remove)
	if err != nil || !strings.Contains(string(fixed), `"echo hi; exec kube-proxy --v=2"`) {
		t.Errorf("remove: %v %s", err, fixed)
	}
}

func TestShellCommandPosition(t *testing.T) {
	for _, tc := range []struct {
		script, mode string
		windows      bool
	}{
		{"mkdir -p /var/lib/kube-proxy && exec kube-proxy --proxy-mode=iptables", "iptables", false},
		{"echo starting kube-proxy; exec kube-proxy --proxy-mode=ipvs", "ipvs", false},
		{"set -e\\nexport A=1\\nexec env A=2 /usr/local/bin/kube-proxy --proxy-mode ipvs", "ipvs", false},
		{"C:/k/kube-proxy.exe --proxy-mode=kernelspace", "kernelspace", true},
	} {
		src := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: kp\nspec:\n  containers:\n  - name: kp\n    image: busybox\n    command: [\"sh\", \"-c\", \"" + tc.script + "\"]\n"
		ws := Bytes("p.yaml", []byte(src), nil)
		if len(ws.Instances) != 1 {
			t.Errorf("%s: %d instances", tc.script, len(ws.Instances))
			continue
		}
		in := ws.Instances[0]
		if m := in.Mode(ws.Target.Version); m.Value != tc.mode || in.Windows != tc.windows {
			t.Errorf("%s: mode %q windows %v", tc.script, m.Value, in.Windows)
		}
	}
	// A path argument that ends in kube-proxy is not the program.
	src := "apiVersion: v1\nkind: Pod\nmetadata:\n  name: x\nspec:\n  containers:\n  - name: x\n    image: busybox\n    command: [cat, /var/lib/kube-proxy]\n"
	if ws := Bytes("p.yaml", []byte(src), nil); len(ws.Instances) != 0 {
		t.Errorf("cat /var/lib/kube-proxy taken for kube-proxy")
	}
}

// TestConfigMapPerCluster checks that each cluster directory of a monorepo resolves --config
// to its own kube-proxy ConfigMap.
func TestConfigMapPerCluster(t *testing.T) {
	ds := "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: kube-proxy, namespace: kube-system}\nspec:\n  template:\n    spec:\n      containers:\n      - name: kube-proxy\n        command: [kube-proxy, --config=/var/lib/kube-proxy/config.conf]\n        volumeMounts: [{name: cfg, mountPath: /var/lib/kube-proxy}]\n      volumes: [{name: cfg, configMap: {name: kube-proxy}}]\n"
	cm := func(mode string) []byte {
		return []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: kube-proxy, namespace: kube-system}\ndata:\n  config.conf: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: " + mode + "\n")
	}
	ws := Files(map[string][]byte{
		"clusters/a/ds.yaml":      []byte(ds),
		"clusters/a/cm.yaml":      cm("ipvs"),
		"clusters/b/ds.yaml":      []byte(ds),
		"clusters/b/base/cm.yaml": cm("nftables"),
	}, nil)
	got := map[string]string{}
	for _, in := range ws.Instances {
		if in.Workload != nil {
			got[in.Workload.File.Path] = in.Mode(ws.Target.Version).Value
		}
	}
	if got["clusters/a/ds.yaml"] != "ipvs" || got["clusters/b/ds.yaml"] != "nftables" {
		t.Errorf("modes by cluster: %v", got)
	}
}

// TestTemplatedTypedFields checks that a placeholder in a typed field of a templated
// configuration neither fails decoding nor reads as an unset field.
func TestTemplatedTypedFields(t *testing.T) {
	src := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nipvs:\n  strictARP: {{ .Values.strictARP }}\nnodePortAddresses: {{ .Values.nodePortAddresses | toJson }}\n"
	ws := Bytes("templates/kube-proxy.yaml", []byte(src), nil)
	for _, p := range ws.Problems {
		t.Errorf("problem: %s: %s (manifest %v)", p.Pos, p.Message, p.Manifest)
	}
	if len(ws.Instances) != 1 || ws.Instances[0].KPC() == nil {
		t.Fatalf("typed config not decoded: %+v", ws.Instances)
	}
	in := ws.Instances[0]
	if m := in.Mode(ws.Target.Version); m.Value != "nftables" {
		t.Errorf("mode %+v", m)
	}
	if _, s := in.NodePortAddresses(); s.Origin != checker.OriginUnknown {
		t.Errorf("nodePortAddresses origin %v, want unknown", s.Origin)
	}
}

// TestRecursiveAlias checks that a document whose aliases refer to themselves is reported
// once as a load problem, not left for every rule to fail on.
func TestRecursiveAlias(t *testing.T) {
	src := "on: push\njobs:\n  test:\n    steps:\n      - &recursive\n        run: x\n        env: *recursive\n"
	ws := Bytes(".github/workflows/x.yaml", []byte(src), nil)
	if len(ws.Problems) != 1 || ws.Problems[0].Manifest || !strings.Contains(ws.Problems[0].Message, "cannot decode document") {
		t.Fatalf("problems: %+v", ws.Problems)
	}
}
