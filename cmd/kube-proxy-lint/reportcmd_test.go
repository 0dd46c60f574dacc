package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"flag"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

var updateReport = flag.Bool("update-report", false, "rewrite fixtures/report/readiness.* from the migration example")

// reportGoldens are the readiness report of fixtures/repos/migration in each format.
var reportGoldens = []struct {
	format, golden string
	args           []string
}{
	{"report-markdown", "readiness.md", []string{"--link-base", "https://github.com/example/infra/blob/0123abc/"}},
	{"report-html", "readiness.html", []string{"--link-base", "https://github.com/example/infra/blob/0123abc/"}},
	{"report-json", "readiness.json", nil},
}

// TestReadinessGoldens checks the report of the four-cluster example (ipvs at 1.34, iptables
// with scripts, nftables-ready, Cilium-replaced) in every report format.
func TestReadinessGoldens(t *testing.T) {
	t.Chdir("../..")
	for _, g := range reportGoldens {
		t.Run(g.format, func(t *testing.T) {
			args := append([]string{"report", "--quiet", "--format", g.format}, g.args...)
			r := runCLI(t, "", append(args, "fixtures/repos/migration")...)
			if r.code != exitOK || r.stderr != "" {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			path := filepath.Join("fixtures/report", g.golden)
			if *updateReport {
				if err := os.WriteFile(path, []byte(r.stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update-report)", err)
			}
			if string(want) != r.stdout {
				t.Errorf("%s differs from the output (go test ./cmd/kube-proxy-lint -run TestReadinessGoldens -update-report):\n%s", path, firstDiff(string(want), r.stdout))
			}
			// The same twice: the order never depends on map iteration or scheduling.
			if again := runCLI(t, "", append(args, "fixtures/repos/migration")...); again.stdout != r.stdout {
				t.Errorf("two runs differ:\n%s", firstDiff(r.stdout, again.stdout))
			}
		})
	}
}

func firstDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < len(al) || i < len(bl); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return "line " + strconv.Itoa(i+1) + ":\n- " + x + "\n+ " + y
		}
	}
	return ""
}

// TestReadinessContent checks what the issue asks of the example's report, independently of
// the goldens' wording.
func TestReadinessContent(t *testing.T) {
	t.Chdir("../..")
	r := runCLI(t, "", "report", "--quiet", "--format", "report-json", "fixtures/repos/migration")
	var rep struct {
		Totals struct {
			Scopes int `json:"scopes"`
		} `json:"totals"`
		Scopes []struct {
			Dir      string   `json:"dir"`
			Status   string   `json:"status"`
			BreaksAt string   `json:"breaksAt"`
			Mode     []string `json:"modeToday"`
			Target   struct {
				Version string `json:"version"`
			} `json:"target"`
			Timeline []struct {
				Version, State string
			} `json:"timeline"`
			Nodes *struct {
				Total, Ready int
			} `json:"nodes"`
			Groups []struct {
				Category string `json:"category"`
				Blockers []struct {
					Rule, Arrives string
				} `json:"blockers"`
			} `json:"groups"`
			NextStep string `json:"nextStep"`
		} `json:"scopes"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	byDir := map[string]int{}
	for i, s := range rep.Scopes {
		byDir[strings.TrimPrefix(s.Dir, "fixtures/repos/migration/clusters/")] = i
	}
	if rep.Totals.Scopes != 4 || len(byDir) != 4 {
		t.Fatalf("want 4 scopes, got %v", byDir)
	}
	legacy := rep.Scopes[byDir["legacy"]]
	if legacy.Target.Version != "1.34" || legacy.Status != "breaks" || legacy.BreaksAt != "1.40" {
		t.Errorf("legacy: version %s, status %s at %s; want 1.34, breaks at 1.40", legacy.Target.Version, legacy.Status, legacy.BreaksAt)
	}
	states := map[string]string{}
	for _, c := range legacy.Timeline {
		states[c.Version] = c.State
	}
	if states["1.34"] != "runs" || states["1.35"] != "deprecated" || states["1.40"] != "exits" || states["1.43"] != "removed" {
		t.Errorf("legacy timeline: %v", states)
	}
	arrives := ""
	for _, g := range legacy.Groups {
		for _, b := range g.Blockers {
			if b.Rule == "KP102" {
				arrives = b.Arrives
			}
		}
	}
	if arrives != "1.40" {
		t.Errorf("legacy: the ipvs blocker arrives in %q, want 1.40", arrives)
	}
	if !strings.Contains(legacy.NextStep, "pin iptables now") || legacy.Nodes == nil || legacy.Nodes.Ready != 0 {
		t.Errorf("legacy: next step %q, nodes %+v", legacy.NextStep, legacy.Nodes)
	}
	payments := rep.Scopes[byDir["payments"]]
	if payments.Status != "ready" || !strings.Contains(payments.NextStep, "scripts are rewritten") {
		t.Errorf("payments: %s, next step %q", payments.Status, payments.NextStep)
	}
	if s := rep.Scopes[byDir["platform"]]; s.Status != "ready" || len(s.Mode) != 1 || s.Mode[0] != "nftables" {
		t.Errorf("platform: %s %v", s.Status, s.Mode)
	}
	if s := rep.Scopes[byDir["edge"]]; s.Status != "replaced" {
		t.Errorf("edge: %s", s.Status)
	}
}

// TestReadinessJSONSchema validates the report-json golden and a live report of another
// repository against docs/report.schema.json.
func TestReadinessJSONSchema(t *testing.T) {
	t.Chdir("../..")
	text, err := os.ReadFile("docs/report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("report.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("report.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile("fixtures/report/readiness.json")
	if err != nil {
		t.Fatal(err)
	}
	live := runCLI(t, "", "report", "--quiet", "--format", "report-json", "fixtures/repos/kubeadm-ipvs").stdout
	empty := runCLI(t, "", "report", "--quiet", "--format", "report-json", "fixtures/policies").stdout
	for name, s := range map[string]string{"golden": string(golden), "kubeadm-ipvs": live, "policies": empty} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s does not match docs/report.schema.json: %v", name, err)
		}
	}
	// The schema must be able to fail: a misspelt field is rejected.
	bad := strings.Replace(string(golden), `"nextStep"`, `"nextstep"`, 1)
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if sch.Validate(v) == nil {
		t.Error("the schema accepts a misspelt field")
	}
}

// TestReadinessHTMLSelfContained checks the page against its promises: a CSP whose hashes
// match its only style and script, no external asset, every scope shown, repository text
// escaped.
func TestReadinessHTMLSelfContained(t *testing.T) {
	t.Chdir("../..")
	page := runCLI(t, "", "report", "--quiet", "--format", "report-html", "fixtures/repos/migration").stdout
	csp := regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]+)">`).FindStringSubmatch(page)
	if csp == nil {
		t.Fatal("no Content-Security-Policy meta element")
	}
	policy := html.UnescapeString(csp[1])
	if !strings.Contains(policy, "default-src 'none'") {
		t.Errorf("CSP %q does not start from default-src 'none'", policy)
	}
	for _, tag := range []string{"style", "script"} {
		m := regexp.MustCompile(`(?s)<`+tag+`>(.*?)</`+tag+`>`).FindAllStringSubmatch(page, -1)
		if len(m) != 1 {
			t.Fatalf("want one <%s> element, got %d", tag, len(m))
		}
		sum := sha256.Sum256([]byte(m[0][1]))
		if h := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"; !strings.Contains(policy, tag+"-src "+h) {
			t.Errorf("the CSP does not allow the page's <%s> (%s)", tag, h)
		}
	}
	for _, bad := range []string{"<link", "<img", "<iframe", " src=", "@import", "url(", " style=", " onclick=", "onload="} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q: not self-contained or not CSP-clean", bad)
		}
	}
	for _, dir := range []string{"legacy", "payments", "platform", "edge"} {
		if !strings.Contains(page, ">fixtures/repos/migration/clusters/"+dir+"</a></th>") {
			t.Errorf("the timeline matrix does not show scope %s", dir)
		}
	}
	// Repository text is escaped: a file name with markup stays text.
	dir := t.TempDir()
	name := filepath.Join(dir, "x<b>y.yaml")
	if err := os.WriteFile(name, []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runCLI(t, "", "report", "--quiet", "--format", "report-html", dir).stdout
	if strings.Contains(out, "x<b>y") || !strings.Contains(out, "x&lt;b&gt;y.yaml") {
		t.Error("a file name with markup is not escaped in the HTML report")
	}
}

// TestNodesFlag covers --nodes: kubectl JSON output applies to every scope; DIR= limits it;
// malformed files are usage errors with file:line.
func TestNodesFlag(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.MkdirAll(filepath.Join(repo, "prod"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, text string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	write("repo/prod/kube-proxy.yaml", "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\nnodePortAddresses: [primary]\n")
	write("repo/prod/kubeadm.yaml", "apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\nkubernetesVersion: v1.38.0\n")
	nodes := write("nodes.json", `{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "old", "labels": {"agentpool": "system"}},
     "status": {"nodeInfo": {"kernelVersion": "5.4.0-1109-azure", "osImage": "Ubuntu 20.04.6 LTS"}}},
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "new", "labels": {"agentpool": "user"}},
     "status": {"nodeInfo": {"kernelVersion": "6.8.0-1015-azure", "osImage": "Ubuntu 24.04 LTS"}}}
  ]
}
`)
	r := runCLI(t, "", "--quiet", "--nodes", nodes, repo)
	if r.code != exitFindings || !strings.Contains(r.stdout, "error: node pool system (agentpool): 1 of 1 nodes run Linux 5.4") ||
		!strings.Contains(r.stdout, "(KP602 kernel-too-old-for-nftables)") {
		t.Errorf("--nodes FILE: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "--quiet", "--nodes", "prod="+nodes, repo); !strings.Contains(r.stdout, "KP602") {
		t.Errorf("--nodes prod=FILE: no KP602 finding\n%s%s", r.stdout, r.stderr)
	}
	// A node list for another directory's scopes does not apply.
	r = runCLI(t, "", "--quiet", "--nodes", "staging="+nodes, repo)
	if r.code != exitError || !strings.Contains(r.stderr, "staging names no cluster") {
		t.Errorf("--nodes staging=FILE: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, c := range []struct{ name, text, want string }{
		{"syntax.yaml", "apiVersion: v1\nkind: List\nitems:\n  - kind: Node\n   bad: [\n", "syntax.yaml:4:3: invalid YAML"},
		{"pods.yaml", "apiVersion: v1\nkind: Pod\nmetadata: {name: x}\n", "pods.yaml:2:1: not a node inventory"},
		{"nokernel.yaml", "apiVersion: v1\nkind: List\nitems:\n  - kind: Node\n    metadata: {name: n1}\n", "nokernel.yaml:5:22: node n1 has no status.nodeInfo.kernelVersion"},
		{"badkernel.yaml", "kind: Node\nmetadata: {name: n1}\nstatus: {nodeInfo: {kernelVersion: latest}}\n", "badkernel.yaml:3:36: node n1: kernelVersion \"latest\" is not a kernel version"},
		{"empty.yaml", "", "empty.yaml:1:1: not a node inventory"},
	} {
		p := write(c.name, c.text)
		r := runCLI(t, "", "--quiet", "--nodes", p, repo)
		if r.code != exitError || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "--help") {
			t.Errorf("%s: exit %d, stderr %q; want exit 2 with %q", c.name, r.code, r.stderr, c.want)
		}
	}
	if r := runCLI(t, "", "--quiet", "--nodes", filepath.Join(dir, "missing.json"), repo); r.code != exitError || !strings.Contains(r.stderr, "missing.json") {
		t.Errorf("missing file: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestReportCommand checks the report command's defaults: report-markdown on stdout and exit
// 0 whatever the findings, unless --fail-on says otherwise; and its help.
func TestReportCommand(t *testing.T) {
	t.Chdir("../..")
	r := runCLI(t, "", "report", "--quiet", "fixtures/repos/kubeadm-ipvs")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "## kube-proxy migration readiness") {
		t.Errorf("report: exit %d, output %.80q", r.code, r.stdout)
	}
	if r := runCLI(t, "", "report", "--quiet", "--fail-on", "error", "fixtures/repos/kubeadm-ipvs"); r.code != exitFindings {
		t.Errorf("report --fail-on error: exit %d, want 1", r.code)
	}
	if r := runCLI(t, "", "report", "--help"); r.code != exitOK || !strings.Contains(r.stdout, "kube-proxy-lint report [flags] [PATH...]") {
		t.Errorf("report --help: exit %d\n%s", r.code, r.stdout)
	}
	// A lint run with a report format and another output.
	out := filepath.Join(t.TempDir(), "readiness.html")
	r = runCLI(t, "", "--quiet", "--format", "text", "--format", "report-html="+out, "fixtures/repos/kubeadm-ipvs")
	if b, err := os.ReadFile(out); r.code != exitFindings || err != nil || !bytes.Contains(b, []byte("<!DOCTYPE html>")) {
		t.Errorf("lint with report-html=FILE: exit %d, err %v", r.code, err)
	}
}
