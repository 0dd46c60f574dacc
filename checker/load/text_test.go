package load

import (
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

func TestClassifyText(t *testing.T) {
	kpc := []byte("cat <<EOF\nkind: KubeProxyConfiguration\nEOF\n")
	for _, tc := range []struct {
		name    string
		content []byte
		want    fileClass
	}{
		{"node.sh", kpc, classText},
		{"bootstrap", []byte("#!/bin/bash\n" + string(kpc)), classText},
		{"kube-proxy.service", nil, classText},
		{"Dockerfile", []byte("FROM x\n"), classText},
		{"Makefile", []byte("all:\n"), classText},
		{"etc/kube-proxy.flags", []byte("--v=2\n"), classText},
		{"etc/containerd/config.toml", []byte("version = 2\n"), classText},
		{"certs.d/localhost:32000/hosts.toml", []byte("server = \"http://localhost:32000\"\n"), classText},
		{"templates/kube-proxy.yaml.j2", []byte("mode: {{ m }}\n"), classYAML},
		{"kube-proxy.conf", []byte("kind: KubeProxyConfiguration\n"), classYAML},
		{"pyproject.toml", []byte("x = 1\n"), classSkip},
		{"notes.txt", []byte("kube-proxy --proxy-mode=ipvs\n"), classSkip},
	} {
		if got := classify(tc.name, tc.content, false); got != tc.want {
			t.Errorf("classify(%s) = %v, want %v", tc.name, got, tc.want)
		}
		if tc.want != classSkip && !wantName(tc.name) {
			t.Errorf("wantName(%s) = false", tc.name)
		}
	}
}

func TestClassifyByContent(t *testing.T) {
	for _, tc := range []struct {
		name    string
		content string
		want    fileClass
		why     string
	}{
		{"Clusterfile", "apiVersion: apps.sealos.io/v1beta1\nkind: Cluster\n", classYAML, "content: apiVersion apps.sealos.io"},
		{"kubeadm.conf", "# init\napiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\n", classYAML, "content: apiVersion kubeadm.k8s.io"},
		{"templates/kubeadm-init.v1beta3", "apiVersion: kubeadm.k8s.io/v1beta3\nkind: InitConfiguration\n", classYAML, "content: apiVersion kubeadm.k8s.io"},
		{"kubeadm.conf.j2", "apiVersion: kubeadm.k8s.io/{{ v }}\nkind: ClusterConfiguration\n", classYAML, "content: apiVersion kubeadm.k8s.io"},
		{"cluster-spec", "apiVersion: kops.k8s.io/v1alpha2\nkind: Cluster\n", classYAML, "content: apiVersion kops.k8s.io"},
		{"site.ansible", "- hosts: all\n", classYAML, "name ends in .ansible"},
		{"registry-mirror.conf", "server = \"https://docker.io\"\n[host.\"http://localhost:30555\"]\n", classText, ""},
		{"etc/kubernetes/proxy", "KUBE_PROXY_ARGS=\"--proxy-mode=ipvs\"\n", classText, ""},
		{"README", "apiVersion: apps/v1 is the group of a DaemonSet\n", classSkip, ""},
		{"notes.conf", "  apiVersion: kubeadm.k8s.io/v1beta4 (indented: not a document)\n", classSkip, ""},
		{"INSTALL", "Write this file and run kubeadm init:\n\napiVersion: kubeadm.k8s.io/v1beta4\nkind: InitConfiguration\n", classSkip, ""},
		{"kubeadm.conf", "# generated\n---\nkind: ClusterConfiguration\n\"apiVersion\": kubeadm.k8s.io/v1beta4\n", classYAML, "content: apiVersion kubeadm.k8s.io"},
	} {
		got, why := classifyWhy(tc.name, []byte(tc.content), false)
		if got != tc.want || !strings.HasPrefix(why, tc.why) {
			t.Errorf("classifyWhy(%s) = %v %q, want %v %q", tc.name, got, why, tc.want, tc.why)
		}
		if tc.want != classSkip && !wantName(tc.name) {
			t.Errorf("wantName(%s) = false", tc.name)
		}
	}
}

// TestSniffNames: prose and source files are never read for their content, whatever their
// name says.
func TestSniffNames(t *testing.T) {
	for name, want := range map[string]bool{
		"docs/build-image-with-kubeadm.md": false, "pkg/kubeadm_config_test.go": false, "kubeadm-notes.txt": false,
		"templates/kubeadm-init.v1beta3": true, "site.ansible": true, "hosts.j2": true,
		"kube-proxy.yaml.golden": false, "kube-proxy.conf.bak": false, "kubeadm.yaml~": false,
	} {
		if got := wantName(name); got != want {
			t.Errorf("wantName(%s) = %t, want %t", name, got, want)
		}
	}
}

// at returns the position of the n-th (0-based) occurrence of sub in src.
func at(t *testing.T, src, sub string, n int) (line, col int) {
	t.Helper()
	off := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(src[off+1:], sub)
		if j < 0 {
			t.Fatalf("%q not found", sub)
		}
		off += j + 1
	}
	line = strings.Count(src[:off], "\n") + 1
	col = off - strings.LastIndex(src[:off], "\n")
	return line, col
}

func TestHeredocDocumentPositions(t *testing.T) {
	src := "#!/bin/sh\nif true; then\n\tcat <<-'EOF' > /etc/kp.yaml\n\tapiVersion: kubeproxy.config.k8s.io/v1alpha1\n\tkind: KubeProxyConfiguration\n\tmode: ipvs\n\tEOF\nfi\nexec kube-proxy --config /etc/kp.yaml --v=2\n"
	ws := Bytes("node.sh", []byte(src), nil)
	if len(ws.Problems) > 0 {
		t.Fatalf("problems: %+v", ws.Problems)
	}
	var kpc *checker.Document
	for _, d := range ws.Docs {
		if d.Kind == "KubeProxyConfiguration" {
			kpc = d
		}
	}
	if kpc == nil {
		t.Fatal("heredoc not decoded")
	}
	pos, _, _ := kpc.ValuePos(checker.Path{"mode"})
	line, col := at(t, src, "ipvs", 0)
	if pos.Line != line || pos.Column != col || pos.Filename != "node.sh" {
		t.Errorf("mode value at %s, want node.sh:%d:%d", pos, line, col)
	}
	if len(ws.Instances) != 1 {
		t.Fatalf("instances: %d", len(ws.Instances))
	}
	in := ws.Instances[0]
	if in.Kind != checker.InstanceCommand || in.Config != kpc || in.Mode(checker.Version{Major: 1, Minor: 39}).Value != "ipvs" {
		t.Errorf("instance %+v", in)
	}
	if l, c := at(t, src, "kube-proxy", 0); in.Program.Line != l || in.Program.Column != c {
		t.Errorf("program at %s", in.Program)
	}
}

func TestCommandInstanceFlags(t *testing.T) {
	src := "[Service]\nExecStart=/usr/bin/kube-proxy --v=2 \\\n  --proxy-mode=\"ipvs\" \\\n  --cluster-cidr 10.0.0.0/8\n"
	ws := Bytes("kube-proxy.service", []byte(src), nil)
	if len(ws.Instances) != 1 {
		t.Fatalf("instances: %d", len(ws.Instances))
	}
	in := ws.Instances[0]
	pm := in.Flag("proxy-mode")
	if pm == nil || pm.Value != "ipvs" || pm.Doc != nil {
		t.Fatalf("proxy-mode flag %+v", pm)
	}
	if l, c := at(t, src, "--proxy-mode", 0); pm.Pos.Line != l || pm.Pos.Column != c {
		t.Errorf("flag at %s", pm.Pos)
	}
	if got := src[pm.ValuePos.Offset:pm.ValueEnd.Offset]; got != "ipvs" {
		t.Errorf("value span %q", got)
	}
	for _, tc := range []struct{ flag, want string }{
		{"proxy-mode", "[Service]\nExecStart=/usr/bin/kube-proxy --v=2 \\\n  --cluster-cidr 10.0.0.0/8\n"},
		{"cluster-cidr", "[Service]\nExecStart=/usr/bin/kube-proxy --v=2 \\\n  --proxy-mode=\"ipvs\"\n"},
		{"v", "[Service]\nExecStart=/usr/bin/kube-proxy \\\n  --proxy-mode=\"ipvs\" \\\n  --cluster-cidr 10.0.0.0/8\n"},
	} {
		got, err := checker.ApplyEdits([]byte(src), in.Flag(tc.flag).Remove)
		if err != nil || string(got) != tc.want {
			t.Errorf("remove --%s: %v\n%s", tc.flag, err, got)
		}
	}
	if cc := in.Flag("cluster-cidr"); cc.Value != "10.0.0.0/8" {
		t.Errorf("separate value %q", cc.Value)
	}
}

func TestCommandInstancesSkipped(t *testing.T) {
	ws := Files(map[string][]byte{
		"a.sh":       []byte("#!/bin/sh\n# kube-proxy --proxy-mode=ipvs\necho kube-proxy --v=2\nsystemctl restart kube-proxy\nkube-proxy $ARGS\n"),
		"README.md":  []byte("kube-proxy --proxy-mode=ipvs\n"),
		"b.service":  []byte("[Unit]\nDescription=kube-proxy --proxy-mode=ipvs\n"),
		"Dockerfile": []byte("FROM registry.k8s.io/kube-proxy:v1.37.0\nLABEL x=\"kube-proxy --proxy-mode=ipvs\"\n"),
	}, nil)
	if len(ws.Instances) != 0 {
		for _, in := range ws.Instances {
			t.Errorf("unexpected instance %s", in.Label)
		}
	}
}

func TestTemplatedYAMLDecodesLiteralLines(t *testing.T) {
	src := "{{- if .Values.enabled }}\napiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: {{ .Values.cidr | quote }}\nmetricsBindAddress: \"{{ .Values.bind }}:10249\"\nmode: ipvs\n{{- end }}\n"
	ws := Bytes("templates/kpc.yaml", []byte(src), nil)
	for _, p := range ws.Problems {
		t.Errorf("problem: %s: %s", p.Pos, p.Message)
	}
	if len(ws.Docs) != 1 || ws.Docs[0].Kind != "KubeProxyConfiguration" {
		t.Fatalf("docs: %d", len(ws.Docs))
	}
	d := ws.Docs[0]
	pos, _, _ := d.ValuePos(checker.Path{"mode"})
	if l, c := at(t, src, "ipvs", 0); pos.Line != l || pos.Column != c {
		t.Errorf("mode at %s", pos)
	}
	if v := d.Str(checker.Path{"clusterCIDR"}); !text.HasPlaceholder(v) {
		t.Errorf("placeholder value %q is not recognised", v)
	}
	if len(ws.Files) != 1 || string(ws.Files[0].Content) != src {
		t.Error("file content must stay as written")
	}
}

func TestEmbeddedBlocks(t *testing.T) {
	src := "#cloud-config\nwrite_files:\n- path: /var/lib/kube-proxy/config.conf\n  content: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    kind: KubeProxyConfiguration\n    mode: ipvs\n"
	ws := Files(map[string][]byte{
		"user-data.yaml":     []byte(src),
		"kube-proxy.service": []byte("[Service]\nExecStart=/usr/bin/kube-proxy --config=/var/lib/kube-proxy/config.conf\n"),
	}, nil)
	var kpc *checker.Document
	for _, d := range ws.Docs {
		if d.Kind == "KubeProxyConfiguration" {
			kpc = d
		}
	}
	if kpc == nil || kpc.Parent == nil || kpc.ParentPath.String() != "write_files[0].content" {
		t.Fatalf("embedded block not decoded: %+v", kpc)
	}
	pos, _, _ := kpc.ValuePos(checker.Path{"mode"})
	if l, c := at(t, src, "ipvs", 0); pos.Line != l || pos.Column != c || pos.Filename != "user-data.yaml" {
		t.Errorf("mode at %s", pos)
	}
	if len(ws.Instances) != 1 || ws.Instances[0].Config != kpc {
		t.Errorf("the unit's --config does not resolve to the write_files block: %+v", ws.Instances)
	}
}

func TestCommandFlagsFromVariables(t *testing.T) {
	unit := "[Service]\nEnvironment=\"KUBE_PROXY_ARGS=--proxy-mode=ipvs --v=2\" OTHER=1\nExecStart=/usr/bin/kube-proxy $KUBE_PROXY_ARGS\n"
	script := "#!/bin/sh\nexport ARGS='--proxy-mode=nftables'\nkube-proxy ${ARGS}\nkube-proxy $FROM_ELSEWHERE\n"
	ws := Files(map[string][]byte{"a.service": []byte(unit), "b.sh": []byte(script)}, nil)
	if len(ws.Instances) != 2 {
		t.Fatalf("instances: %d", len(ws.Instances))
	}
	for _, in := range ws.Instances {
		pm := in.Flag("proxy-mode")
		if pm == nil {
			t.Fatalf("%s: no --proxy-mode", in.Label)
		}
		src := string(in.Source.Content)
		if l, c := at(t, src, "--proxy-mode", 0); pm.Pos.Line != l || pm.Pos.Column != c {
			t.Errorf("%s: flag at %s, want %d:%d", in.Label, pm.Pos, l, c)
		}
		if got := src[pm.ValuePos.Offset:pm.ValueEnd.Offset]; got != pm.Value {
			t.Errorf("value span %q, value %q", got, pm.Value)
		}
	}
}
