package report

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

var update = flag.Bool("update", false, "rewrite the golden files in fixtures/report")

// fixtureDir holds the goldens and the SARIF schema.
const fixtureDir = "../../fixtures/report"

// testFile is a source file of the fixed test Result.
type testFile struct {
	name    string
	content string
	idx     *text.LineIndex
}

func newTestFile(name, content string) *testFile {
	return &testFile{name: name, content: content, idx: text.NewLineIndex([]byte(content))}
}

// find returns the span of the first occurrence of s after the first occurrence of after.
func (f *testFile) find(t testing.TB, after, s string) (pos, end checker.Position) {
	t.Helper()
	from := strings.Index(f.content, after)
	if from < 0 {
		t.Fatalf("%s: %q not found", f.name, after)
	}
	i := strings.Index(f.content[from:], s)
	if i < 0 {
		t.Fatalf("%s: %q not found after %q", f.name, s, after)
	}
	off := from + i
	return f.idx.Position(f.name, off), f.idx.Position(f.name, off+len(s))
}

// line returns the span of a whole line including its line break.
func (f *testFile) line(t testing.TB, s string) (pos, end checker.Position) {
	t.Helper()
	p, _ := f.find(t, s, s)
	return f.idx.Position(f.name, f.idx.LineStart(p.Line)), f.idx.Position(f.name, f.idx.LineStart(p.Line+1))
}

var (
	configMapFile = newTestFile("clusters/zürich/kube-proxy.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
  annotations:
    team: "Équipe réseau · 東京"
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: "ipvs"	# set by the platform team
    ipvs:
      scheduler: lc
      strictARP: true
`)
	daemonSetFile = newTestFile("deploy/daemonset.yaml", `apiVersion: apps/v1
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
            - --proxy-mode=iptables
            - --hostname-override=$(NODE_NAME)
`)
	scriptFile = newTestFile("hack/node setup/start kube-proxy.sh", "#!/bin/sh\n"+
		"# Starts kube-proxy on the bare-metal nodes.\n"+
		"exec \\\n"+
		"\tkube-proxy --hostname-override=nöde-東京-1 --proxy-mode=ipvs \\\n"+
		"\t  --v=2\n")
)

func testRules() []*checker.Rule {
	run := func(*checker.Pass) error { return nil }
	return []*checker.Rule{
		{
			ID: "KP101", Name: "mode-unset", Severity: checker.SeverityWarning, Run: run,
			Kinds: []string{"KubeProxyConfiguration", "DaemonSet"},
			Doc: checker.Doc{
				Title:       "kube-proxy mode is not set",
				Why:         "Without `mode`, kube-proxy runs the default mode of its version.\nThe default changes to nftables in 1.40.",
				Remediation: "Set `mode` to the mode the cluster runs today.",
				Before:      "kind: KubeProxyConfiguration\n",
				After:       "kind: KubeProxyConfiguration\nmode: iptables\n",
				Since:       "0.1.0",
			},
		},
		{
			ID: "KP102", Name: "mode-ipvs", Severity: checker.SeverityError, Run: run,
			Kinds: []string{"KubeProxyConfiguration", "DaemonSet", "KubeProxyConfiguration"},
			Doc: checker.Doc{
				Title: "kube-proxy runs in ipvs mode",
				Why: "The ipvs mode is deprecated. From 1.40 kube-proxy exits at start in ipvs mode\n" +
					"unless the `KubeProxyIPVS` feature gate is set to true.\n\n" +
					"The ipvs code is deleted in 1.43.",
				Remediation: "Migrate to nftables (or iptables on kernels older than 5.13).",
				Before:      "mode: ipvs\n",
				After:       "mode: nftables\n",
				Since:       "0.1.0",
			},
		},
		{
			ID: "KP201", Name: "flag-ignored-by-config", Severity: checker.SeverityWarning, Run: run,
			Kinds: []string{"DaemonSet"},
			Doc: checker.Doc{
				Title:       "Flag ignored because --config is set",
				Why:         "With `--config`, kube-proxy ignores most other flags without a word.",
				Remediation: "Remove the flag, or move its value into the configuration file.",
				Before:      "- --config=/var/lib/kube-proxy/config.conf\n- --proxy-mode=ipvs\n",
				After:       "- --config=/var/lib/kube-proxy/config.conf\n",
				Since:       "0.1.0",
			},
		},
		{
			ID: "KP202", Name: "ipvs-settings-unused", Severity: checker.SeverityWarning, Run: run,
			Kinds: []string{"KubeProxyConfiguration"},
			Doc: checker.Doc{
				Title:       "ipvs settings have no effect",
				Why:         "Settings for ipvs mode are dead configuration in any other mode.",
				Remediation: "Delete them.",
				Since:       "0.1.0",
			},
		},
		{
			ID: "KP204", Name: "ipvs-scheduler", Severity: checker.SeverityInfo, Run: run,
			Kinds: []string{"KubeProxyConfiguration"},
			Doc: checker.Doc{
				Title:       "ipvs scheduler is per node",
				Why:         "Each node balances only its own connections, so ```lc``` is least connections per client node.",
				Remediation: "Use `sessionAffinity: ClientIP` or `internalTrafficPolicy: Local` instead.",
				Before:      "ipvs:\n  scheduler: lc\n",
				Since:       "0.1.0",
			},
		},
	}
}

// testResult is the fixed input of the golden tests: findings with related locations, fixes,
// a line with a tab and wide characters, nested directories, non-ASCII and spaces in paths, a
// multi-line span, and a file-level finding in a file whose content is unknown.
func testResult(t testing.TB) *Result {
	t.Helper()
	cm, ds, sh := configMapFile, daemonSetFile, scriptFile
	cmRef := &checker.ObjectRef{Kind: "KubeProxyConfiguration", Namespace: "kube-system", Name: "kube-proxy", Embedded: "data.config.conf", Document: 0}
	dsRef := &checker.ObjectRef{APIVersion: "apps/v1", Kind: "DaemonSet", Namespace: "kube-system", Name: "kube-proxy"}

	modePos, modeEnd := cm.find(t, "mode:", `"ipvs"`)
	configPos, configEnd := ds.find(t, "--config", "--config=/var/lib/kube-proxy/config.conf")
	flagPos, flagEnd := ds.find(t, "--proxy-mode", "--proxy-mode=iptables")
	flagLinePos, flagLineEnd := ds.line(t, "--proxy-mode=iptables")
	ipvsPos, _ := cm.find(t, "ipvs:", "ipvs:")
	_, ipvsEnd := cm.find(t, "strictARP", "strictARP: true")
	schedPos, schedEnd := cm.find(t, "scheduler", "lc")
	shPos, shEnd := sh.find(t, "--proxy-mode", "--proxy-mode=ipvs")
	tagPos, _ := ds.find(t, "image:", "v1.37.2")

	findings := []checker.Finding{
		{
			RuleID: "KP102", RuleName: "mode-ipvs", Severity: checker.SeverityError,
			Message: "mode ipvs stops kube-proxy from starting at target 1.40 unless the KubeProxyIPVS gate is true",
			Pos:     modePos, End: modeEnd, Object: cmRef, Path: checker.P("mode"),
			Related: []checker.Related{{Pos: configPos, End: configEnd, Message: "kube-proxy reads this file through --config"}},
			Fixes: []checker.Fix{{Message: "set mode to nftables", Preferred: true, Edits: []checker.TextEdit{
				{Pos: modePos, End: modeEnd, NewText: `"nftables"`},
			}}, {Message: "set mode to iptables", Edits: []checker.TextEdit{
				{Pos: modePos, End: modeEnd, NewText: `"iptables"`},
			}}},
		},
		{
			RuleID: "KP202", RuleName: "ipvs-settings-unused", Severity: checker.SeverityWarning,
			Message: "ipvs settings stay behind after the switch to nftables; strictARP is dead configuration",
			Pos:     ipvsPos, End: ipvsEnd, Object: cmRef, Path: checker.P("ipvs"),
		},
		{
			RuleID: "KP204", RuleName: "ipvs-scheduler", Severity: checker.SeverityInfo,
			Message: `ipvs scheduler "lc" balances the connections of each node on its own`,
			Pos:     schedPos, End: schedEnd, Object: cmRef, Path: checker.P("ipvs", "scheduler"),
		},
		{
			RuleID: "KP201", RuleName: "flag-ignored-by-config", Severity: checker.SeverityWarning,
			Message: "--proxy-mode is ignored because --config is set; the file's mode ipvs wins",
			Pos:     flagPos, End: flagEnd, Object: dsRef, Path: checker.P("spec", "template", "spec", "containers", 0, "command", 2),
			Related: []checker.Related{
				{Pos: configPos, End: configEnd, Message: "--config is set here"},
				{Pos: modePos, End: modeEnd, Message: "the mode kube-proxy will use"},
			},
			Fixes: []checker.Fix{{Message: "remove the ignored flag", Safety: checker.Safe, Preferred: true, Edits: []checker.TextEdit{
				{Pos: flagLinePos, End: flagLineEnd},
			}}},
		},
		{
			RuleID: "KP102", RuleName: "mode-ipvs", Severity: checker.SeverityError,
			Message: "--proxy-mode=ipvs stops kube-proxy from starting at target 1.40",
			Pos:     shPos, End: shEnd,
		},
		{
			RuleID: "KP102", RuleName: "mode-ipvs", Severity: checker.SeverityWarning,
			Message: "EKS add-on configuration values set mode ipvs",
			Pos:     checker.Position{Filename: "terraform/eks addon.tf"},
		},
	}
	// Two clusters at two versions: the manifests at the image tag's 1.40, the bare-metal
	// nodes' script at 1.39 from a kubeadm config of their own; the Terraform file at the
	// default.
	repoTarget := checker.Target{Version: checker.Version{Major: 1, Minor: 40}, Source: "kube-proxy image tag at " + tagPos.String(), Pos: &tagPos}
	nodesPos := checker.Position{Filename: "hack/node setup/kubeadm.yaml", Offset: 40, Line: 3, Column: 20}
	nodes := checker.Target{Version: checker.Version{Major: 1, Minor: 39}, Source: "kubeadm kubernetesVersion at " + nodesPos.String(), Pos: &nodesPos, Scope: "hack/node setup"}
	def := checker.Target{Version: checker.DefaultTarget, Source: "default"}
	clusters, deploy := repoTarget, repoTarget
	clusters.Scope, deploy.Scope = "clusters/zürich", "deploy"
	for i := range findings {
		switch f := &findings[i]; f.Pos.Filename {
		case cm.name:
			f.Target = &clusters
		case ds.name:
			f.Target = &deploy
		case sh.name:
			f.Target = &nodes
		default:
			f.Target = &def
		}
	}
	for i := range findings {
		findings[i].Cluster = findings[i].Target.Scope
	}
	checker.SortFindings(findings)

	files := map[string][]byte{}
	for _, f := range []*testFile{cm, ds, sh} {
		files[f.name] = []byte(f.content)
	}
	return &Result{
		Findings: findings,
		Rules:    testRules(),
		Target:   repoTarget,
		Targets:  []checker.Target{def, clusters, deploy, nodes},
		Problems: []checker.LoadProblem{
			{Pos: checker.Position{Filename: "charts/kube-proxy/templates/configmap.yaml", Offset: 88, Line: 7, Column: 3},
				Message: "skipped: a template placeholder makes the document undecodable"},
			{Pos: checker.Position{Filename: "docs/notes.txt"}, Message: "skipped: not UTF-8"},
		},
		ToolVersion: "0.1.0-test",
		SourceRoot:  "/home/ci/src/cluster config",
		Source:      func(name string) []byte { return files[name] },
	}
}

func format(t testing.TB, name string, opts Options, r *Result) []byte {
	t.Helper()
	f, err := New(name, opts)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := f.Format(&buf, r); err != nil {
		t.Fatalf("format %s: %v", name, err)
	}
	return buf.Bytes()
}

var goldenCases = []struct {
	golden string
	format string
	opts   Options
}{
	{"text.golden", "text", Options{}},
	{"text-color.golden", "text", Options{Color: true}},
	{"json.golden", "json", Options{}},
	{"sarif.golden", "sarif", Options{}},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.golden, func(t *testing.T) {
			got := format(t, tc.format, tc.opts, testResult(t))
			path := filepath.Join(fixtureDir, tc.golden)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("output differs from %s (run go test -update to accept):\n%s", path, lineDiff(string(want), string(got)))
			}
		})
	}
}

// lineDiff reports the first differing line.
func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n want %q\n  got %q", i+1, wl, gl)
		}
	}
	return "(no line differs)"
}

// TestDeterministicAndConcurrent formats the same Result many times at once: the outputs must
// be identical (no map order leaks) and the race detector must stay quiet (no shared state).
func TestDeterministicAndConcurrent(t *testing.T) {
	r := testResult(t)
	for _, tc := range goldenCases {
		first := format(t, tc.format, tc.opts, r)
		var wg sync.WaitGroup
		outs := make([][]byte, 8)
		for i := range outs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				outs[i] = format(t, tc.format, tc.opts, r)
			}()
		}
		wg.Wait()
		for _, o := range outs {
			if !bytes.Equal(o, first) {
				t.Errorf("%s: output not deterministic", tc.golden)
			}
		}
	}
}

// TestRenamed: every file name of a result is renamed, and Source still finds the files.
func TestRenamed(t *testing.T) {
	p := func(f string, l int) checker.Position { return checker.Position{Filename: f, Line: l, Column: 1} }
	tp := p("k/kubeadm.yaml", 3)
	r := &Result{
		Findings: []checker.Finding{{
			Pos: p("a/x.yaml", 1), End: p("a/x.yaml", 1),
			Related: []checker.Related{{Pos: p("b/y.yaml", 2)}},
			Fixes:   []checker.Fix{{Edits: []checker.TextEdit{{Pos: p("a/x.yaml", 1), End: p("a/x.yaml", 1)}}}},
			Target:  &checker.Target{Pos: &tp, Source: "kubeadm kubernetesVersion at k/kubeadm.yaml:3:1"},
		}},
		Suppressed: []checker.Finding{{Pos: p("c/z.yaml", 1)}},
		Problems:   []checker.LoadProblem{{Pos: p("d/w.bin", 0)}},
		Notes:      []checker.Note{{Pos: &checker.Position{Filename: "e/v.yaml"}}},
		Target:     checker.Target{Pos: &tp, Source: "kubeadm kubernetesVersion at k/kubeadm.yaml:3:1"},
		Source: func(n string) []byte {
			if n == "a/x.yaml" {
				return []byte("x")
			}
			return nil
		},
	}
	got := r.Renamed(func(n string) string { return "../" + n })
	f := got.Findings[0]
	for _, n := range []string{f.Pos.Filename, f.End.Filename, f.Related[0].Pos.Filename, f.Fixes[0].Edits[0].Pos.Filename,
		got.Suppressed[0].Pos.Filename, got.Problems[0].Pos.Filename, got.Notes[0].Pos.Filename, got.Target.Pos.Filename, f.Target.Pos.Filename} {
		if !strings.HasPrefix(n, "../") {
			t.Errorf("not renamed: %q", n)
		}
	}
	if got.Target.Source != "kubeadm kubernetesVersion at ../k/kubeadm.yaml:3:1" || f.Target.Source != got.Target.Source {
		t.Errorf("target source: %q / %q", got.Target.Source, f.Target.Source)
	}
	if string(got.Source("../a/x.yaml")) != "x" {
		t.Error("Source does not find the renamed file")
	}
	if r.Findings[0].Pos.Filename != "a/x.yaml" || r.Findings[0].Related[0].Pos.Filename != "b/y.yaml" {
		t.Error("Renamed changed the original result")
	}
}
