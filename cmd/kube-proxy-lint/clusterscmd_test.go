package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// goldenCompare compares got with the golden file, rewriting it under -update-multi.
func goldenCompare(t *testing.T, golden, got string) {
	t.Helper()
	if *updateMulti {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (-update-multi)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (-update-multi):\n%s", golden, firstDiff(string(want), got))
	}
}

// TestClustersMulti: `clusters` on the multi-cluster repository, as text and JSON: every
// cluster with its root, anchors, target, modes and replacements, then the shared files; no
// virtual path.
func TestClustersMulti(t *testing.T) {
	dir := filepath.Join("..", "..", "fixtures", "repos", "multi-cluster")
	for _, tc := range []struct{ format, golden string }{
		{"text", "multi-cluster-clusters.txt"},
		{"json", "multi-cluster-clusters.json"},
	} {
		r := runCLI(t, "", "clusters", "--no-config", "--format", tc.format, dir)
		if r.code != exitOK || r.stderr != "" {
			t.Fatalf("%s: exit %d\n%s", tc.format, r.code, r.stderr)
		}
		if strings.Contains(r.stdout, "@values") || strings.Contains(r.stdout, "\x00") || strings.Contains(r.stdout, `\u0000`) {
			t.Errorf("%s: a virtual path is printed:\n%s", tc.format, r.stdout)
		}
		goldenCompare(t, filepath.Join("..", "..", "fixtures", "repos", tc.golden), r.stdout)
	}
	// The names are those of the findings.
	var v struct{ Clusters []struct{ Name string } }
	r := runCLI(t, "", "clusters", "--no-config", "--format", "json", dir)
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, c := range v.Clusters {
		names[strings.TrimPrefix(c.Name, "fixtures/repos/multi-cluster/")] = true
	}
	for _, f := range multiFindings(t, dir, "fixtures/repos/multi-cluster/") {
		cl := f[strings.LastIndex(f, ":")+1:]
		cl = cl[strings.Index(cl, " ")+1:]
		if cl != "(shared)" && !names[cl] {
			t.Errorf("finding %s names a cluster that clusters does not list (%v)", f, names)
		}
	}
}

// clustersSchema compiles docs/clusters.schema.json.
func clustersSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	text, err := os.ReadFile(filepath.Join("..", "..", "docs", "clusters.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("clusters.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("clusters.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// TestClustersJSONSchema validates the golden, a declared-clusters repository and an empty
// directory against docs/clusters.schema.json, which must reject a misspelt field.
func TestClustersJSONSchema(t *testing.T) {
	sch := clustersSchema(t)
	golden, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "repos", "multi-cluster-clusters.json"))
	if err != nil {
		t.Fatal(err)
	}
	declared := runCLI(t, "", "clusters", "--format", "json", declaredRepo(t, declaredConfig)).stdout
	empty := runCLI(t, "", "clusters", "--no-config", "--format", "json", t.TempDir()).stdout
	kubeadm := runCLI(t, "", "clusters", "--no-config", "--format", "json", filepath.Join("..", "..", "fixtures", "repos", "kubeadm-ipvs")).stdout
	for name, s := range map[string]string{"golden": string(golden), "declared": declared, "empty": empty, "kubeadm-ipvs": kubeadm} {
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(s))
		if err != nil {
			t.Fatalf("%s: %v\n%s", name, err, s)
		}
		if err := sch.Validate(v); err != nil {
			t.Errorf("%s does not match docs/clusters.schema.json: %v", name, err)
		}
	}
	bad := strings.Replace(string(golden), `"kubeProxies"`, `"kubeproxies"`, 1)
	v, _ := jsonschema.UnmarshalJSON(strings.NewReader(bad))
	if sch.Validate(v) == nil {
		t.Error("the schema accepts a misspelt field")
	}
}

const declaredConfig = `clusters:
  - name: production
    paths: [clusters/prod]
    version: "1.35"
  - name: edge
    paths:
      - clusters/edge/**
`

// declaredRepo copies the multi-cluster repository to a temporary directory with config as
// its .kube-proxy-lint.yaml and returns the copy.
func declaredRepo(t *testing.T, config string) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "repo")
	copyTree(t, filepath.Join("..", "..", "fixtures", "repos", "multi-cluster"), dst)
	if err := os.WriteFile(filepath.Join(dst, ".kube-proxy-lint.yaml"), []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestClustersDeclared: declared clusters name the findings of their files, take their
// declared version as target, and show in clusters with their declaration; the clusters
// beside them are still inferred, and inferred roots stay out of them.
func TestClustersDeclared(t *testing.T) {
	dir := declaredRepo(t, declaredConfig)
	r := runCLI(t, "", "--quiet", "--format", "json", dir)
	if r.code != exitOK && r.code != exitFindings {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var rep struct {
		Findings []struct {
			RuleID, Cluster, Message string
			Pos                      struct{ File string }
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatal(err)
	}
	byFile := map[string]string{}
	for _, f := range rep.Findings {
		byFile[f.Pos.File] = f.Cluster
		if f.Pos.File == "clusters/prod/kube-system/kube-proxy.yaml" && f.RuleID == "KP102" && !strings.Contains(f.Message, "1.35") {
			t.Errorf("prod's KP102 is not judged at the declared 1.35: %s", f.Message)
		}
	}
	for file, want := range map[string]string{
		"clusters/prod/kube-system/kube-proxy.yaml": "production",
		"clusters/prod/kubeadm/kubeadm-config.yaml": "production",
		"clusters/edge/kube-system/kube-proxy.yaml": "edge",
		"dev/kind-config.yaml":                      "dev",
		"clusters/staging/base/kube-proxy.yaml":     "clusters/staging",
	} {
		if byFile[file] != want {
			t.Errorf("%s: cluster %q, want %q (findings %v)", file, byFile[file], want, byFile)
		}
	}
	text := runCLI(t, "", "clusters", dir)
	if text.code != exitOK {
		t.Fatalf("clusters: exit %d\n%s", text.code, text.stderr)
	}
	for _, want := range []string{
		"cluster production\n  root:       clusters/prod\n  found:      declared in .kube-proxy-lint.yaml:2:5\n              paths: clusters/prod\n  target:     1.35 (declared version of cluster production at .kube-proxy-lint.yaml:4:14)\n",
		"cluster edge\n  root:       clusters/edge\n  found:      declared in .kube-proxy-lint.yaml:5:5\n              paths: clusters/edge/**\n  target:     1.36 (kubeadm kubernetesVersion at clusters/edge/kubeadm.yaml:3:20)\n",
		"  replaced:   cilium replaces kube-proxy (kubeProxyReplacement: true) at clusters/edge/cilium.yaml:11:5",
		"              clusters/prod/apps/web.yaml\n",
	} {
		if !strings.Contains(text.stdout, want) {
			t.Errorf("clusters output lacks %q:\n%s", want, text.stdout)
		}
	}
	// The lint summary and `config print` see the same declared targets.
	cp := runCLI(t, "", "config", "print", dir)
	if cp.code != exitOK || !strings.Contains(cp.stdout, "  - name: production\n") || !strings.Contains(cp.stdout, "production 1.35 (from declared version of cluster production at .kube-proxy-lint.yaml:4:14)") {
		t.Errorf("config print: exit %d\n%s%s", cp.code, cp.stdout, cp.stderr)
	}
}

// TestClustersDeclaredErrors: a mistake in the clusters key, a glob that matches nothing and
// a file in two declared clusters stop lint, report and clusters with exit 2 and the position
// in the configuration file, never quoting it.
func TestClustersDeclaredErrors(t *testing.T) {
	for _, tc := range []struct{ name, config, want string }{
		{"unknown key", "clusters:\n  - name: a\n    paths: [dev]\n    versions: \"1.34\"\n", `.kube-proxy-lint.yaml:4:5: unknown key; did you mean "version"?`},
		{"duplicate name", "clusters:\n  - name: a\n    paths: [dev]\n  - name: a\n    paths: [nodes]\n", ".kube-proxy-lint.yaml:4:11: duplicate cluster name (first declared at .kube-proxy-lint.yaml:2:11)"},
		{"bad version", "clusters:\n  - name: a\n    paths: [dev]\n    version: one\n", ".kube-proxy-lint.yaml:4:14: invalid cluster version"},
		{"matches nothing", "clusters:\n  - name: a\n    paths: [dev, nowhere/**]\n", ".kube-proxy-lint.yaml:3:18: this paths glob matches no linted file"},
		{"two clusters", "clusters:\n  - name: a\n    paths: [clusters/prod]\n  - name: b\n    paths: [clusters/prod/apps]\n",
			".kube-proxy-lint.yaml:5:13: clusters/prod/apps/web.yaml is also in the cluster declared at .kube-proxy-lint.yaml:2:5: a file belongs to one declared cluster"},
	} {
		dir := declaredRepo(t, tc.config)
		for _, args := range [][]string{{dir}, {"report", dir}, {"clusters", dir}, {"--fix", dir}} {
			r := runCLI(t, "", args...)
			if r.code != exitError || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("%s: %v: exit %d, want 2 and %q\n%s", tc.name, args[:len(args)-1], r.code, tc.want, r.stderr)
			}
			if r.stdout != "" {
				t.Errorf("%s: %v: output on error:\n%s", tc.name, args[:len(args)-1], r.stdout)
			}
			for _, secret := range []string{"nowhere", "versions", "one\n"} {
				if strings.Contains(r.stderr, secret) {
					t.Errorf("%s: the error quotes the configuration (%q):\n%s", tc.name, secret, r.stderr)
				}
			}
		}
	}
	// Linting part of a repository: the globs of the other clusters match nothing read, which
	// is no error; the cluster of the part is still declared. Linting all of it is (the
	// negative case).
	dir := declaredRepo(t, declaredConfig+"  - name: gone\n    paths: [gone]\n")
	if err := os.Mkdir(filepath.Join(dir, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "clusters", filepath.Join(dir, "clusters", "prod"))
	if r.code != exitOK || !strings.Contains(r.stdout, "cluster production\n") {
		t.Errorf("a part of the tree: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "clusters", dir); r.code != exitError || !strings.Contains(r.stderr, ".kube-proxy-lint.yaml:9:13: this paths glob matches no linted file") {
		t.Errorf("the whole tree: exit %d\n%s", r.code, r.stderr)
	}
}

// TestClustersEscapes: a file name with terminal control characters is printed escaped.
func TestClustersEscapes(t *testing.T) {
	dir := t.TempDir()
	name := "kube\x1b[2Jproxy\x07.yaml"
	ds := "apiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: kube-proxy\n  namespace: kube-system\nspec:\n  template:\n    spec:\n      containers:\n        - name: kube-proxy\n          image: registry.k8s.io/kube-proxy:v1.34.0\n          command: [kube-proxy, --proxy-mode=ipvs]\n"
	if err := os.WriteFile(filepath.Join(dir, name), []byte(ds), 0o644); err != nil {
		t.Skipf("the file system refuses the name: %v", err)
	}
	r := runCLI(t, "", "clusters", "--no-config", dir)
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if strings.ContainsAny(r.stdout, "\x1b\x07") || !strings.Contains(r.stdout, `kube\x1b[2Jproxy\x07.yaml`) {
		t.Errorf("control characters not escaped:\n%q", r.stdout)
	}
	if j := runCLI(t, "", "clusters", "--no-config", "--format", "json", dir); !strings.Contains(j.stdout, `kube\u001b[2Jproxy\u0007.yaml`) {
		t.Errorf("json:\n%s", j.stdout)
	}
}

// TestClustersUsage: --help, a bad format and stdin are handled as usage.
func TestClustersUsage(t *testing.T) {
	if r := runCLI(t, "", "clusters", "--help"); r.code != exitOK || !strings.Contains(r.stdout, "Usage:\n  kube-proxy-lint clusters [flags] [PATH...]") {
		t.Errorf("--help: exit %d\n%s", r.code, r.stdout)
	}
	if r := runCLI(t, "", "clusters", "--format", "sarif", "."); r.code != exitError || !strings.Contains(r.stderr, `unknown format "sarif"`) {
		t.Errorf("--format sarif: exit %d\n%s", r.code, r.stderr)
	}
	if r := runCLI(t, "", "clusters", "-"); r.code != exitError {
		t.Errorf("stdin: exit %d\n%s", r.code, r.stderr)
	}
}

// TestClustersConfigFromBase: with --config-from-base the base's declared clusters decide,
// in findings and in clusters, not the pull request's.
func TestClustersConfigFromBase(t *testing.T) {
	dir := gitCLIRepo(t)
	t.Chdir(dir)
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "clusters:\n  - name: base-sub\n    paths: [sub]\n    version: \"1.33\"\n")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "config")
	base := gitIn(t, dir, "rev-parse", "HEAD")
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "clusters:\n  - name: pr-all\n    paths: [\"**\"]\n")
	r := runWithin(t, nil, "clusters", "--config-from-base", base, ".")
	if r.code != exitOK || !strings.Contains(r.stdout, "cluster base-sub\n") || strings.Contains(r.stdout, "pr-all") ||
		!strings.Contains(r.stdout, "declared in .kube-proxy-lint.yaml at "+base+":2:5") ||
		!strings.Contains(r.stdout, "1.33 (declared version of cluster base-sub at .kube-proxy-lint.yaml at "+base+":4:14)") {
		t.Errorf("clusters --config-from-base: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runWithin(t, nil, "--config-from-base", base, "--format", "json", ".")
	if rep := r.stdout; !strings.Contains(rep, `"cluster": "base-sub"`) || strings.Contains(rep, "pr-all") {
		t.Errorf("lint --config-from-base: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// --rev reads the commit's files: the base had sub/kp.yaml in base-sub.
	if r := runWithin(t, nil, "clusters", "--rev", base, "--config-from-base", base, "."); r.code != exitOK || !strings.Contains(r.stdout, "cluster base-sub\n") ||
		!strings.Contains(r.stdout, "              sub/kp.yaml\n") {
		t.Errorf("clusters --rev: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runWithin(t, nil, "clusters", "."); !strings.Contains(r.stdout, "cluster pr-all\n") {
		t.Errorf("the work tree's configuration without the flag: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestClustersReadmeExample: the README's clusters example is what the command prints on the
// multi-cluster repository with the README's configuration.
func TestClustersReadmeExample(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	const cfg = "clusters:\n  - name: prod\n    paths: [clusters/prod, nodes]\n    version: \"1.34\"\n  - name: edge\n    paths: [clusters/edge]\n"
	if !strings.Contains(string(readme), "```yaml\n# .kube-proxy-lint.yaml\n"+cfg+"```") {
		t.Fatal("the README's declared clusters example changed: update this test")
	}
	r := runCLI(t, "", "clusters", declaredRepo(t, cfg))
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	start := strings.Index(r.stdout, "cluster prod\n")
	end := strings.Index(r.stdout[start:], "\n\n")
	block := r.stdout[start : start+end+1]
	_, shared, _ := strings.Cut(r.stdout, "\nshared files:")
	shared, _, _ = strings.Cut(shared, "\n")
	shared = "shared files:" + shared + "\n"
	if !strings.Contains(string(readme), "...\n"+block+"...\n"+shared) {
		t.Errorf("the README's clusters output is not what the command prints:\n%s...\n%s", block, shared)
	}
}
