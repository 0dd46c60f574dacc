package load

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// TestPrune: an application Deployment that names nothing a rule reads keeps only its
// header (apiVersion, kind, name, namespace, its root node), one beside it that runs on the host network keeps
// its tree, and KeepTrees keeps every tree (repository Rego rules may read any document).
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	src := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  annotations:
    runbook: https://wiki.example/web
spec:
  template:
    spec:
      containers:
      - name: web
        image: nginx
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: agent
spec:
  template:
    spec:
      hostNetwork: true
      containers:
      - name: agent
        image: agent
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  ports:
  - port: 80
    nodePort: 30080
`
	if err := os.WriteFile(filepath.Join(dir, "app.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir, KeepTrees: keep})
		if err != nil {
			t.Fatal(err)
		}
		if len(ws.Docs) != 3 {
			t.Fatalf("%d documents", len(ws.Docs))
		}
		web, agent, svc := ws.Docs[0], ws.Docs[1], ws.Docs[2]
		if web.Pruned == keep {
			t.Errorf("KeepTrees=%v: web pruned=%v", keep, web.Pruned)
		}
		if _, spec := agent.Lookup([]string{"spec", "template", "spec", "hostNetwork"}); agent.Pruned || spec == nil {
			t.Errorf("KeepTrees=%v: the host-network Deployment must keep its tree", keep)
		}
		if svc.Pruned && !svc.Facts {
			t.Errorf("KeepTrees=%v: the Service lost its tree and has no facts", keep)
		}
		if nps := ws.NodePorts(); len(nps) != 1 || nps[0].Port != 30080 || nps[0].Pos.Line != 34 {
			t.Errorf("KeepTrees=%v: node ports %+v, want 30080 at line 34", keep, nps)
		}
		if keep && (svc.Object == nil || svc.Service != nil) || !keep && (svc.Object != nil || svc.Service == nil) {
			t.Errorf("KeepTrees=%v: the Service keeps its typed object %v, its facts %v", keep, svc.Object != nil, svc.Service != nil)
		}
		if agent.Object != nil {
			// No rule reads a Deployment's typed object (decode.go, readTyped).
			t.Errorf("KeepTrees=%v: the Deployment's typed object is kept", keep)
		}
		if web.Pruned {
			if _, n := web.Lookup([]string{"spec"}); n != nil || web.Object != nil {
				t.Error("a pruned document keeps its spec")
			}
			if web.Has([]string{"metadata"}) || web.Node.Column != 1 {
				t.Error("a pruned document keeps more than its header, or its root moved")
			}
			if web.Node.Line != 1 || web.Kind != "Deployment" || web.Name != "web" {
				t.Errorf("a pruned document lost its identity: line %d %s/%s", web.Node.Line, web.Kind, web.Name)
			}
		}
	}
}

// TestPrunePrometheusRule: alert rules keep their facts only when they name a kube-proxy
// metric; Prometheus' own {{ $labels }} templating does not keep them.
func TestPrunePrometheusRule(t *testing.T) {
	dir := t.TempDir()
	src := `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: app
spec:
  groups:
  - name: app
    rules:
    - alert: AppDown
      expr: up{job="app"} == 0
      annotations:
        summary: "{{ $labels.instance }} is down"
---
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: proxy
spec:
  groups:
  - name: proxy
    rules:
    - alert: SlowSync
      expr: rate(kubeproxy_sync_proxy_rules_iptables_total[5m]) > 1
`
	if err := os.WriteFile(filepath.Join(dir, "rules.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Docs) != 2 || !ws.Docs[0].Pruned || ws.Docs[0].Facts || ws.Docs[0].Metrics != nil {
		t.Fatalf("want the app rules pruned: %d docs", len(ws.Docs))
	}
	if m := ws.Docs[1].Metrics; m == nil || len(m.Groups) != 1 || len(m.Groups[0].Rules) != 1 || m.Groups[0].Rules[0].Alert != "SlowSync" {
		t.Errorf("want the kube-proxy rules' facts: %+v", m)
	}
}

// TestPruneHolders: a ConfigMap or Secret that names no word of pruneKeep or holderKeep and
// holds no document is pruned to its header; one whose strings may hold what a reader looks
// for once every file is loaded (an installer's command line or configuration, Talos' proxy
// key, a document) keeps its tree.
func TestPruneHolders(t *testing.T) {
	const cm = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app\ndata:\n  LOG_LEVEL: debug\n  app.properties: |\n    report.proxy.port=8080\n"
	for _, tt := range []struct {
		name, src string
		pruned    bool
	}{
		{"application properties", cm, true},
		{"a Secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\nstringData:\n  password: hunter2\n", true},
		{"a Secret of another group", "apiVersion: example.io/v1\nkind: Secret\nmetadata:\n  name: db\nspec: {}\n", false},
		{"a kubeadm command", cm + "  init.sh: kubeadm init --config /etc/kubeadm.yaml\n", false},
		{"a k3s install", cm + "  install: curl -sfL https://get.k3s.io | sh -\n", false},
		{"Talos' proxy key", cm + "  patch.yaml: |\n    cluster:\n      proxy:\n        disabled: true\n", false},
		{"a JSON patch on /cluster/proxy", cm + "  patch.json: '[{\"op\": \"add\", \"path\": \"/cluster/proxy/mode\"}]'\n", false},
		{"a document", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: x\nstringData:\n  other.yaml: |\n    apiVersion: example.io/v1\n    kind: Thing\n", false},
		{"cloud-init", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: boot\nstringData:\n  value: |\n    #cloud-config\n    runcmd: [reboot]\n", false},
		{"a template", cm + "  x: \"{{ .Values.x }}\"\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f, probs := readAndParse(t.Context(), input{name: "cm.yaml", content: []byte(tt.src), explicit: true}, DefaultMaxFileSize)
			if len(probs) > 0 || f == nil {
				t.Fatalf("load: %v", probs)
			}
			prune(f)
			d := f.Docs[0]
			if d.Pruned != tt.pruned {
				t.Fatalf("pruned = %v, want %v", d.Pruned, tt.pruned)
			}
			if d.Pruned && (len(d.Node.Content) != 0 || d.Name == "" || d.Node.Line != 1) {
				t.Errorf("pruned to %d nodes, name %q, line %d: not its header", len(d.Node.Content), d.Name, d.Node.Line)
			}
		})
	}
}

// TestReleaseContent: a file whose documents are all headers keeps no content or line index
// once loaded (nothing reads them), and its headers keep their lines; a file with one document that
// keeps a tree, or with a load problem, keeps its content.
func TestReleaseContent(t *testing.T) {
	dir := t.TempDir()
	app := "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec: {replicas: 1}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: web\ndata: {LOG: debug}\n"
	files := map[string]string{
		"app.yaml":   app,
		"mixed.yaml": app + "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\nspec:\n  type: NodePort\n  ports: [{port: 80, nodePort: 30080}]\n",
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, keep := range []bool{false, true} {
		ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir, KeepTrees: keep})
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range ws.Files {
			released := f.Content == nil && f.Lines == nil
			if want := f.Path == "app.yaml" && !keep; released != want {
				t.Errorf("KeepTrees=%v: %s: content released = %v, want %v", keep, f.Path, released, want)
			}
			if f.Path == "app.yaml" && (len(f.Docs) != 2 || f.Docs[1].Node.Line != 7 || f.Docs[1].Name != "web") {
				t.Errorf("KeepTrees=%v: the headers lost their positions or names", keep)
			}
		}
	}
}

// TestReleaseMetricFile: a file of alert rules only (metric facts) lets its text go once
// loaded, keeps its query positions, and is read again on demand (checker.File.Text), which
// refuses a file that changed since; one with a suppression comment or a multi-byte
// character keeps its text. What the loader found of "*" is not kept once the text is gone.
func TestReleaseMetricFile(t *testing.T) {
	const rules = "apiVersion: monitoring.coreos.com/v1\nkind: PrometheusRule\nmetadata:\n  name: kp\nspec:\n  groups:\n  - name: kp\n    rules:\n" +
		"    - alert: KubeProxySyncSlow\n      expr: rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m]) * 60 > 0\n      for: 5m\n"
	for _, tt := range []struct {
		name, src string
		released  bool
	}{
		{"alert rules", rules, true},
		{"a suppression comment", rules + "    # kube-proxy-lint:ignore KP501 reason\n", false},
		{"a multi-byte character", rules + "      labels: {team: ÿ}\n", false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "rules.yaml")
			if err := os.WriteFile(path, []byte(tt.src), 0o644); err != nil {
				t.Fatal(err)
			}
			ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir})
			if err != nil || len(ws.Files) != 1 {
				t.Fatalf("load: %v, %d files", err, len(ws.Files))
			}
			f := ws.Files[0]
			if released := f.Content == nil && f.Reread != nil; released != tt.released {
				t.Fatalf("released = %v, want %v", released, tt.released)
			}
			// The loader's question whether the document holds an alias ("*") is not
			// answered from memory once the text is gone: the offsets are not kept.
			if tt.released && f.Contains(aliasMark) {
				t.Error("a released file keeps the offsets of its alias marks")
			}
			if b, err := f.Text(); err != nil || string(b) != tt.src {
				t.Fatalf("Text: %v, %d bytes", err, len(b))
			}
			whole := Bytes("rules.yaml", []byte(tt.src), nil).Docs[0]
			sameQueries(t, checker.FindRuleGroups(f.Docs[0]), checker.FindRuleGroups(whole), nil, nil)
			if !tt.released {
				return
			}
			if err := os.WriteFile(path, []byte(strings.Replace(tt.src, "5m", "6m", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			if b, err := f.Text(); err == nil || b != nil || !strings.Contains(err.Error(), "changed since it was read") {
				t.Errorf("a changed file read again: %d bytes, error %v", len(b), err)
			}
		})
	}
}

// TestPruneV6LoopbackWord: "::1" keeps a tree only as an address of its own (a probe's
// host, [::1]:port, ::1/128), not inside an AWS IAM ARN, which most IRSA ServiceAccounts
// hold ("arn:aws:iam::123456789012:role/x": their trees were all kept).
func TestPruneV6LoopbackWord(t *testing.T) {
	for s, want := range map[string]bool{
		"::1": true, `host: "::1"`: true, "http://[::1]:8080/": true, "- ::1/128": true, "(::1)": true,
		"arn:aws:iam::123456789012:role/x": false, "fe80::10": false, "0:0::1": false, "::1a": false, "x::1": false, "::": false,
	} {
		if got := mentions([]byte(s), pruneKeep); got != want {
			t.Errorf("mentions(%q) = %v, want %v", s, got, want)
		}
		if got := mentionsString(s, loopbackKeep); got != want {
			t.Errorf("mentionsString(%q, loopbackKeep) = %v, want %v", s, got, want)
		}
	}
	dir := t.TempDir()
	src := `apiVersion: v1
kind: ServiceAccount
metadata:
  name: app
  annotations:
    eks.amazonaws.com/role-arn: arn:aws:iam::123456789012:role/app
`
	if err := os.WriteFile(filepath.Join(dir, "sa.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Docs) != 1 || !ws.Docs[0].Pruned {
		t.Error("an IRSA ServiceAccount keeps its tree")
	}
}

// TestForgetScripts: once loaded, a script's kube-proxy is found and its shell lexing is not
// held (File.Memo): the rules lex again the few scripts they read.
func TestForgetScripts(t *testing.T) {
	dir := t.TempDir()
	src := "#!/bin/sh\nkube-proxy --proxy-mode=ipvs --v=2\n"
	if err := os.WriteFile(filepath.Join(dir, "run.sh"), []byte(src), 0o755); err != nil {
		t.Fatal(err)
	}
	ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Instances) != 1 {
		t.Fatalf("%d kube-proxies found in the script, want 1", len(ws.Instances))
	}
	f := ws.File("run.sh")
	if f == nil {
		t.Fatal("run.sh not loaded")
	}
	sentinel := &shell.Script{}
	if got := f.Memo(shell.MemoKey{Dialect: shell.DialectOf(f.Path, f.Content)}, func() any { return sentinel }); got != sentinel {
		t.Error("the script's lexing is still held after loading")
	}
}

// TestWholeOnDemand: with Options.WholeOnDemand the trees are pruned and reduced as usual,
// the files keep their content, and checker.WholeDocs gives each pruned or reduced document
// back whole: the same generic form and positions as a load that keeps every tree, one
// file decoded again at a time.
func TestWholeOnDemand(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"app.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 12
  template:
    spec:
      containers:
      - name: web
        image: nginx
        env:
        - name: UPSTREAM
          value: http://127.0.0.1:8080
        resources: {limits: {memory: 1Gi}}
---
apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - port: 80
    nodePort: 30080
    targetPort: 8080
`,
		"rules.yaml": `apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: proxy
spec:
  groups:
  - name: proxy
    rules:
    - alert: SyncSlow
      expr: rate(kubeproxy_sync_proxy_rules_duration_seconds_sum[5m]) > 1
      labels: {severity: warning}
      annotations:
        summary: "{{ $labels.instance }} is slow"
`,
	}
	for name, src := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir, KeepTrees: true})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir, WholeOnDemand: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Docs) != len(whole.Docs) || len(ws.Docs) != 3 {
		t.Fatalf("%d and %d documents, want 3", len(ws.Docs), len(whole.Docs))
	}
	var w checker.WholeDocs
	for i, d := range ws.Docs {
		if !d.Pruned && !d.Reduced {
			t.Errorf("%s: neither pruned nor reduced: the case tests nothing", d.Kind)
		}
		if d.File.Outer().Content == nil {
			t.Errorf("%s: its file's content was released", d.Kind)
		}
		got, err := w.Of(d)
		if err != nil {
			t.Fatalf("%s: %v", d.Kind, err)
		}
		want := whole.Docs[i]
		g1, err1 := got.GenericUncached()
		g2, err2 := want.GenericUncached()
		if err1 != nil || err2 != nil || !reflect.DeepEqual(g1, g2) {
			t.Errorf("%s: whole again %v (%v), want %v (%v)", d.Kind, g1, err1, g2, err2)
		}
		for _, p := range []checker.Path{checker.P("spec"), checker.P("metadata", "name")} {
			p1, e1, ok1 := got.KeyPos(p)
			p2, e2, ok2 := want.KeyPos(p)
			if ok1 != ok2 || p1 != p2 || e1 != e2 {
				t.Errorf("%s: %s at %v-%v, want %v-%v", d.Kind, p, p1, e1, p2, e2)
			}
		}
	}
	// Without WholeOnDemand a pruned document stays as it is.
	plain, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range plain.Docs {
		if got, err := w.Of(d); err != nil || got != d {
			t.Errorf("%s: WholeDocs decoded it again without WholeOnDemand", d.Kind)
		}
	}
}

// TestPruneKeepsControlPlaneImages: a Deployment that runs the control plane (a hosted
// kube-controller-manager) names no word of the rules, but its image tag is a version source
// (target.go): it is not pruned to a header and keeps its containers' images, so the version
// is found as with every tree kept.
func TestPruneKeepsControlPlaneImages(t *testing.T) {
	dir := t.TempDir()
	src := `apiVersion: apps/v1
kind: Deployment
metadata:
  name: controller-manager
  labels: {tier: control-plane}
spec:
  template:
    spec:
      containers:
      - name: kcm
        image: registry.k8s.io/kube-controller-manager:v1.31.2
        resources: {limits: {memory: 1Gi}}
`
	if err := os.WriteFile(filepath.Join(dir, "kcm.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir, KeepTrees: keep})
		if err != nil {
			t.Fatal(err)
		}
		if len(ws.Docs) != 1 || ws.Docs[0].Pruned {
			t.Fatalf("KeepTrees=%v: the control-plane Deployment was pruned to a header", keep)
		}
		if !keep && !ws.Docs[0].Reduced {
			t.Error("the control-plane Deployment kept its whole tree, not its workload facts")
		}
		var found []string
		for _, s := range ws.VersionSources {
			found = append(found, s.Version.String()+" "+s.What)
		}
		if len(found) != 1 || found[0] != "1.31 kube-controller-manager image tag" {
			t.Errorf("KeepTrees=%v: version sources %q, want the kube-controller-manager image tag", keep, found)
		}
	}
}

// TestPruneKeepsMetricPrefix: the documents the loader prunes or reduces without metric facts
// name no kube-proxy metric (the metric rules skip them: rules.mayHoldProxyMetric), since the
// prefix is a word of pruneKeep and of otherKeep (a reduced workload names none of those).
func TestPruneKeepsMetricPrefix(t *testing.T) {
	if !mentionsString(checker.ProxyMetricPrefix, pruneKeep) || !mentionsString(checker.ProxyMetricPrefix, otherKeep) {
		t.Errorf("%q is not a word of pruneKeep and otherKeep", checker.ProxyMetricPrefix)
	}
}

// TestPruneEmbeddedKubeconfig: the kubeconfig kube-proxy's ConfigMap carries beside its
// configuration keeps its header alone (no rule reads it), the configuration its tree, and
// KeepTrees keeps both.
func TestPruneEmbeddedKubeconfig(t *testing.T) {
	dir := t.TempDir()
	src := `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: ipvs
    clientConnection:
      kubeconfig: /var/lib/kube-proxy/kubeconfig.conf
  kubeconfig.conf: |
    apiVersion: v1
    kind: Config
    clusters:
    - cluster:
        certificate-authority: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
        server: https://10.0.0.1:6443
      name: default
    users:
    - name: default
      user:
        tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token
`
	if err := os.WriteFile(filepath.Join(dir, "kube-proxy.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []bool{false, true} {
		ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir, KeepTrees: keep})
		if err != nil {
			t.Fatal(err)
		}
		cm := ws.Files[0].Docs[0]
		if len(cm.Embedded) != 2 {
			t.Fatalf("KeepTrees=%v: %d embedded documents", keep, len(cm.Embedded))
		}
		kpc, kubeconfig := cm.Embedded[0], cm.Embedded[1]
		if kpc.Kind != "KubeProxyConfiguration" || kpc.Pruned || !kpc.Has([]string{"mode"}) {
			t.Errorf("KeepTrees=%v: the configuration %s lost its tree", keep, kpc.Kind)
		}
		if kubeconfig.Kind != "Config" || kubeconfig.Pruned == keep || kubeconfig.Has([]string{"clusters"}) == !keep {
			t.Errorf("KeepTrees=%v: kubeconfig %s pruned=%v", keep, kubeconfig.Kind, kubeconfig.Pruned)
		}
		if kubeconfig.Node.Line != 1 || kubeconfig.Node.Column != 1 || kubeconfig.Name != "" { // its own text's first line
			t.Errorf("KeepTrees=%v: the kubeconfig's header moved: line %d", keep, kubeconfig.Node.Line)
		}
	}
}
