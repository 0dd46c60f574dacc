package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

func registry() []*checker.Rule {
	return []*checker.Rule{{ID: "KP102", Name: "mode-ipvs"}, {ID: "KP201", Name: "flag-ignored-by-config"}, {ID: "KP301", Name: "nodeport-addresses-narrowed"}}
}

const full = `version: 1
target-version: "1.40"
fail-on: warning
enable: [KP301]
disable:
  - mode-ipvs
severity:
  KP201: error
inline-suppressions: true
exclusions:
  - rules: [KP301]
    paths: ["clusters/legacy/**"]
    message: "nodePortAddresses"
    reason: legacy clusters are decommissioned
policy-dirs: [policies]
skip: [vendor, "*.tmpl.yaml"]
`

func TestParseFull(t *testing.T) {
	c, err := Parse("/repo/.kube-proxy-lint.yaml", []byte(full))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckRules(registry()); err != nil {
		t.Fatal(err)
	}
	if c.TargetVersion != "1.40" || c.FailOn != "warning" || !reflect.DeepEqual(c.Enable, []string{"KP301"}) ||
		!reflect.DeepEqual(c.Disable, []string{"mode-ipvs"}) || c.Severity["KP201"] != "error" ||
		len(c.Exclusions) != 1 || c.Exclusions[0].Pos.Line != 11 || c.Exclusions[0].Pos.Column != 5 ||
		!reflect.DeepEqual(c.Policies(), []string{"/repo/policies"}) || len(c.Skip) != 2 {
		t.Errorf("config = %+v", c)
	}
	p, err := c.Processing(registry(), "/repo")
	if err != nil {
		t.Fatal(err)
	}
	if p.Severity["KP201"] != checker.SeverityError || len(p.Exclusions) != 1 || p.Exclusions[0].Message == nil ||
		p.Exclusions[0].Reason != "legacy clusters are decommissioned" || p.NoInlineSuppressions {
		t.Errorf("processing = %+v", p)
	}
	out, err := c.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	again, err := Parse("x", out)
	if err != nil {
		t.Fatalf("printed config does not parse: %v\n%s", err, out)
	}
	if again.TargetVersion != "1.40" || len(again.Exclusions) != 1 || again.Exclusions[0].Reason != c.Exclusions[0].Reason {
		t.Errorf("round trip lost values:\n%s", out)
	}
}

// Issue 23 item 5: a YAML syntax error says file:line:col, as a manifest's KP001 does, and
// keeps the syntax characters yaml.v3 quotes; the line is the one the construct is on, not
// yaml.v3's 0-based context line.
func TestParseSyntaxErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"target-version: 1.40\nenable: [KP101,\n  KP102\nfail-on: warning\n",
			"parse config .kube-proxy-lint.yaml:2:9: did not find expected ',' or ']'"},
		{"fail-on: error\nseverity:\n  KP101: {level: info\nenable: [a]\n",
			"parse config .kube-proxy-lint.yaml:3:10: did not find expected ',' or '}'"},
		{"enable: [KP101, KP102\ndisable: [KP201]\n",
			"parse config .kube-proxy-lint.yaml:2:1: did not find expected ',' or ']'"},
		{"enable:\n  - KP101\n - KP102\n", "parse config .kube-proxy-lint.yaml:3:2: did not find expected key"},
		{"fail-on: error\nskip: *paths\n", "parse config .kube-proxy-lint.yaml:2:1: unknown anchor … referenced"},
		{"fail-on: error: warning\n", "parse config .kube-proxy-lint.yaml:1:1: mapping values are not allowed in this context"},
	} {
		_, err := Parse(".kube-proxy-lint.yaml", []byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"enabel: [KP102]\n", `c.yaml:1:1: unknown key; did you mean "enable"?`},
		{"fail-on: warning\nfoo: 1\n", `c.yaml:2:1: unknown key (known keys: version, target-version`},
		{"exclusions:\n  - rules: [KP102]\n    paths: [a]\n", "c.yaml:2:5: exclusion has no reason"},
		{"exclusions:\n  - reason: why\n", "c.yaml:2:5: exclusion selects every finding"},
		{"exclusions:\n  - rules: [KP102]\n    reason: r\n    mesage: x\n", `c.yaml:4:5: unknown key; did you mean "message"?`},
		{"exclusions:\n  - message: \"(\"\n    reason: r\n", "c.yaml:2:14: invalid message regexp"},
		{"severity:\n  KP102: fatal\n", `c.yaml:2:10: invalid severity (want error, warning or info)`},
		{"target-version: banana\n", "c.yaml:1:17: invalid target-version"},
		{"fail-on: [x]\n", "c.yaml:1:10: want a string, not a list"},
		{"inline-suppressions: maybe\n", `c.yaml:1:22: want true or false, not a string`},
		{"version: 2\n", "c.yaml:1:10: unsupported version (want 1)"},
		{"skip: ['[']\n", `c.yaml:1:8: invalid path glob: syntax error in pattern`},
		{"enable: a\nenable: b\n", `c.yaml:2:1: duplicate key`},
		{"- a\n", "c.yaml:1:1: the configuration must be a mapping"},
		{"a: [\n", "parse config c.yaml"},
		{"helm: [x]\n", "c.yaml:1:7: helm must be a mapping (render, charts), not a list"},
		{"helm:\n  rendr: false\n", `c.yaml:2:3: unknown key; did you mean "render"?`},
		{"helm:\n  charts:\n    ../up: {values: [a.yaml]}\n", "c.yaml:3:5: a chart directory must be a relative path inside the repository"},
		{"helm:\n  charts:\n    c: {values: [/etc/x.yaml]}\n", "c.yaml:3:18: a values file must be a relative path inside the chart directory"},
		{"helm:\n  charts:\n    c: {values: [../x.yaml]}\n", "c.yaml:3:18: a values file must be a relative path inside the chart directory"},
		{"helm:\n  charts:\n    c: {vals: [x.yaml]}\n", `c.yaml:3:9: unknown key; did you mean "values"?`},
		{"helm:\n  charts:\n    c: [x.yaml]\n", "c.yaml:3:8: a chart's settings must be a mapping (values), not a list"},
		{"clusters: prod\n", "c.yaml:1:11: clusters must be a list of clusters (name, paths, version), not a string"},
		{"clusters:\n  - prod\n", "c.yaml:2:5: a cluster must be a mapping with name, paths and version, not a string"},
		{"clusters:\n  - name: a\n    paths: [a]\n    versions: \"1.34\"\n", `c.yaml:4:5: unknown key; did you mean "version"?`},
		{"clusters:\n  - paths: [a]\n", "c.yaml:2:5: a cluster needs a name"},
		{"clusters:\n  - name: a\n", "c.yaml:2:5: a cluster needs paths: the globs of its files"},
		{"clusters:\n  - name: a\n    paths: []\n", "c.yaml:3:12: a cluster needs at least one path glob"},
		{"clusters:\n  - name: ''\n    paths: [a]\n", "c.yaml:2:11: a cluster name must not be empty"},
		{"clusters:\n  - name: a\n    paths: [a]\n  - name: a\n    paths: [b]\n", "c.yaml:4:11: duplicate cluster name (first declared at c.yaml:2:11)"},
		{"clusters:\n  - name: a\n    paths: [a]\n    version: latest\n", "c.yaml:4:14: invalid cluster version (want a Kubernetes version such as 1.34 or v1.34.2)"},
		{"clusters:\n  - name: a\n    paths: [../up]\n", "c.yaml:3:13: a cluster path must be a relative glob inside the repository"},
		{"clusters:\n  - name: a\n    paths: ['[']\n", "c.yaml:3:13: invalid path glob: syntax error in pattern"},
		{"clusters:\n  - name: [a]\n    paths: [a]\n", "c.yaml:2:11: want a string, not a list"},
	} {
		_, err := Parse("c.yaml", []byte(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q) = %v, want %q", tt.in, err, tt.want)
		}
	}
	c, err := Parse("c.yaml", []byte("enable: [KP1O2]\nseverity:\n  mode-ipsv: info\n"))
	if err != nil {
		t.Fatal(err)
	}
	err = c.CheckRules(registry())
	if err == nil || !strings.Contains(err.Error(), `c.yaml:1:10: unknown rule; did you mean KP102 (mode-ipvs)?`) ||
		!strings.Contains(err.Error(), `c.yaml:3:3: unknown rule; did you mean KP102`) {
		t.Errorf("CheckRules = %v", err)
	}
	for _, empty := range []string{"", "# only a comment\n", "~\n"} {
		if c, err := Parse("c.yaml", []byte(empty)); err != nil || c.TargetVersion != "" {
			t.Errorf("Parse(%q) = %+v, %v", empty, c, err)
		}
	}
}

// TestErrorsDoNotEchoContent: whatever the file holds (a private key behind a planted
// link, a token), errors say what was expected where, never the text itself.
func TestErrorsDoNotEchoContent(t *testing.T) {
	const secret = "S3CR3T"
	for _, in := range []string{
		secret + "\n",
		"-----BEGIN " + secret + " KEY-----\nb3BlbnNzaC1rZXk\n-----END-----\n",
		secret + ": 1\n",
		"enable: a\n" + "enable: " + secret + "\n",
		"version: " + secret + "\n",
		"target-version: " + secret + "\n",
		"fail-on: " + secret + "\n",
		"inline-suppressions: " + secret + "\n",
		"severity:\n  KP102: " + secret + "\n",
		"skip: ['[" + secret + "']\n",
		"exclusions:\n  - message: \"(" + secret + "\"\n    reason: r\n",
		"exclusions:\n  - " + secret + "\n",
		"clusters:\n  - name: a\n    paths: [a]\n    version: " + secret + "\n",
		"clusters:\n  - name: " + secret + "\n    paths: [a]\n  - name: " + secret + "\n    paths: [b]\n",
		"clusters:\n  - name: a\n    paths: ['../" + secret + "']\n",
		"clusters:\n  - name: a\n    paths: [a]\n    " + secret + ": 1\n",
		"a: *" + secret + "\n",
		"a: !" + secret + " [\n",
		"a: '" + secret + "\n",
		"[" + secret + "\n",
	} {
		c, err := Parse("c.yaml", []byte(in))
		if err == nil {
			err = c.CheckRules(registry())
		}
		if err == nil {
			t.Errorf("Parse(%q): no error", in)
			continue
		}
		if strings.Contains(err.Error(), secret) {
			t.Errorf("Parse(%q) error echoes the content: %v", in, err)
		}
	}
	c, err := Parse("c.yaml", []byte("enable: ["+secret+"]\nseverity:\n  "+secret+": info\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckRules(registry()); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("CheckRules = %v, want an error without the names", err)
	}
}

// TestClusters: the clusters key with its positions, and its globs rebased from the file's
// directory to the linted root, anchored there.
func TestClusters(t *testing.T) {
	src := "clusters:\n  - name: prod\n    paths: [clusters/prod, /shared/*.yaml, prod-*]\n    version: \"1.34\"\n  - name: dev\n    paths: dev/\n"
	c, err := Parse(filepath.Join("/repo", "ops", FileName), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Clusters) != 2 || c.Clusters[0].Pos.Line != 2 || c.Clusters[0].Pos.Column != 5 ||
		c.Clusters[0].VersionPos.Line != 4 || c.Clusters[0].VersionPos.Column != 14 ||
		len(c.Clusters[0].PathPos) != 3 || c.Clusters[0].PathPos[1].Column != 28 {
		t.Fatalf("clusters %+v", c.Clusters)
	}
	d := c.DeclaredClusters("/repo")
	if len(d) != 2 || !reflect.DeepEqual(d[0].Paths, []string{"ops/clusters/prod", "ops/shared/*.yaml", "ops/prod-*"}) ||
		d[0].Version == nil || d[0].Version.String() != "1.34" || d[0].VersionPos == nil || d[0].VersionPos.Line != 4 ||
		!reflect.DeepEqual(d[1].Paths, []string{"ops/dev"}) || d[1].Version != nil {
		t.Errorf("declared %+v", d)
	}
	// At the root the globs stay as written, anchored: prod-* matches ops/prod-a.yaml only.
	d = c.DeclaredClusters("/repo/ops")
	if !reflect.DeepEqual(d[0].Paths, []string{"clusters/prod", "shared/*.yaml", "prod-*"}) ||
		!checker.GlobMatch(d[0].Paths[2], "prod-a.yaml") || checker.GlobMatch(d[0].Paths[2], "x/prod-a.yaml") {
		t.Errorf("declared at the file's directory %+v", d[0].Paths)
	}
	out, err := c.Marshal()
	if err != nil || !strings.Contains(string(out), "clusters:\n  - name: prod\n    paths:\n      - clusters/prod\n") || !strings.Contains(string(out), "version: \"1.34\"") {
		t.Errorf("Marshal = %s, %v", out, err)
	}
	if (&Config{}).DeclaredClusters("/repo") != nil {
		t.Error("no clusters key declares no cluster")
	}
}

// TestHelm: the helm key, its chart directories rebased from the file's directory to the
// linted root.
func TestHelm(t *testing.T) {
	dir := t.TempDir()
	c, err := Parse(filepath.Join(dir, "infra", FileName), []byte("helm:\n  charts:\n    deploy/kp: {values: [values-prod.yaml, env/a.yaml]}\n    .: {values: x.yaml}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !c.HelmRender() {
		t.Error("rendering is on by default")
	}
	got := c.HelmCharts(dir)
	want := map[string][]string{"infra/deploy/kp": {"values-prod.yaml", "env/a.yaml"}, "infra": {"x.yaml"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("HelmCharts = %v, want %v", got, want)
	}
	off, err := Parse("c.yaml", []byte("helm:\n  render: false\n"))
	if err != nil || off.HelmRender() {
		t.Errorf("render: false = %v, %v", off.HelmRender(), err)
	}
	var none *Config
	if !none.HelmRender() || none.HelmCharts(dir) != nil {
		t.Error("no configuration renders every chart")
	}
}

func TestMerge(t *testing.T) {
	c := &Config{Enable: []string{"KP301"}, Disable: []string{"mode-ipvs"}, TargetVersion: "1.39"}
	m := c.Merge(registry(), "1.41", "", []string{"KP102"}, nil, true)
	if m.TargetVersion != "1.41" || !reflect.DeepEqual(m.Enable, []string{"KP301", "KP102"}) || len(m.Disable) != 0 ||
		m.InlineSuppressions == nil || *m.InlineSuppressions {
		t.Errorf("merge = %+v", m)
	}
	m = c.Merge(registry(), "", "", []string{"KP102"}, []string{"all"}, false)
	if !reflect.DeepEqual(m.Enable, []string{"KP102"}) || !reflect.DeepEqual(m.Disable, []string{"all"}) {
		t.Errorf("--disable all --enable KP102: %+v", m)
	}
	m = c.Merge(registry(), "", "", nil, []string{"KP301"}, false)
	if len(m.Enable) != 0 || !reflect.DeepEqual(m.Disable, []string{"mode-ipvs", "KP301"}) {
		t.Errorf("--disable KP301: %+v", m)
	}
	if c.TargetVersion != "1.39" || len(c.Enable) != 1 {
		t.Error("Merge changed its receiver")
	}
}

func TestFindAndRebase(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "clusters", "prod")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if Find(sub, root) != "" {
		t.Error("found a config where there is none")
	}
	top := filepath.Join(root, FileName)
	if err := os.WriteFile(top, []byte("skip: [x]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Find(sub, root); got != top {
		t.Errorf("Find = %q, want %q", got, top)
	}
	// Above the root is not searched.
	if got := Find(sub, filepath.Join(root, "clusters")); got != "" {
		t.Errorf("Find searched above the root: %q", got)
	}
	near := filepath.Join(root, "clusters", FileName)
	if err := os.WriteFile(near, []byte("skip: [x]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := Find(filepath.Join(sub, "file.yaml"), root); got != near {
		t.Errorf("Find = %q, want the nearest %q", got, near)
	}
	c := &Config{Path: near, Skip: []string{"*.tmpl.yaml", "prod/**", "/x.yaml"}}
	p, err := c.Processing(nil, root)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"/clusters/**/*.tmpl.yaml", "/clusters/prod/**", "/clusters/x.yaml"}
	if !reflect.DeepEqual(p.Skip, want) {
		t.Errorf("rebased skip = %q, want %q", p.Skip, want)
	}
}
