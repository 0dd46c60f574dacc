package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// ipvsRepo is a Git work tree with a kube-proxy ConfigMap in ipvs mode under deploy/; extra is
// inserted in the block scalar right before "mode: ipvs".
func ipvsRepo(t *testing.T, extra string) string {
	t.Helper()
	dir := t.TempDir()
	mustMkdir(t, filepath.Join(dir, ".git"))
	mustWrite(t, filepath.Join(dir, "deploy", "kube-proxy.yaml"), `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
`+extra+`    mode: ipvs
`)
	return dir
}

// jsonReport is the part of the JSON envelope these tests read.
type jsonReport struct {
	Target struct {
		Version, Source string
	}
	Findings   []jsonFinding
	Suppressed []jsonFinding
	Notes      []checker.Note
}

// jsonFinding is a finding as the JSON output has it (severity as a string).
type jsonFinding struct {
	RuleID       string
	Message      string
	Severity     string
	Suppressions []checker.Suppression
}

func parseJSON(t *testing.T, s string) jsonReport {
	t.Helper()
	var r jsonReport
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
	return r
}

func ruleIDs(fs []jsonFinding) string {
	var s []string
	for _, f := range fs {
		s = append(s, f.RuleID)
	}
	return strings.Join(s, ",")
}

func TestLintInlineSuppression(t *testing.T) {
	requireLoader(t)
	dir := ipvsRepo(t, "    # kube-proxy-lint:ignore mode-ipvs -- the 1.40 upgrade switches to nftables\n")
	r := runCLI(t, "", "--target-version", "1.40", "--format", "json", dir)
	if r.code != exitOK {
		t.Fatalf("suppressed error: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	rep := parseJSON(t, r.stdout)
	if ruleIDs(rep.Findings) != "" || ruleIDs(rep.Suppressed) != "KP102" {
		t.Fatalf("findings %q, suppressed %q", ruleIDs(rep.Findings), ruleIDs(rep.Suppressed))
	}
	s := rep.Suppressed[0].Suppressions
	if len(s) != 1 || s[0].Kind != "inSource" || s[0].Justification != "the 1.40 upgrade switches to nftables" ||
		s[0].Pos == nil || s[0].Pos.Filename != "deploy/kube-proxy.yaml" || s[0].Pos.Line != 10 {
		t.Errorf("suppressions = %+v", s)
	}
	if r := runCLI(t, "", "--target-version", "1.40", dir); r.code != exitOK || r.stdout != "" {
		t.Errorf("text output shows a suppressed finding: exit %d\n%s", r.code, r.stdout)
	}
	r = runCLI(t, "", "--target-version", "1.40", "--format", "sarif", dir)
	if !strings.Contains(r.stdout, `"suppressions": [`) || !strings.Contains(r.stdout, `"kind": "inSource"`) {
		t.Errorf("SARIF lacks the suppression:\n%s", r.stdout)
	}
	// Strict mode reports it, and exits 1.
	r = runCLI(t, "", "--target-version", "1.40", "--no-inline-suppressions", dir)
	if r.code != exitFindings || !strings.Contains(r.stdout, "deploy/kube-proxy.yaml:11:11: error:") {
		t.Errorf("--no-inline-suppressions: exit %d\n%s", r.code, r.stdout)
	}
}

func TestLintSuppressionProblems(t *testing.T) {
	requireLoader(t)
	dir := ipvsRepo(t, "    # kube-proxy-lint:ignore KP201 -- nothing of KP201 here\n    # kube-proxy-lint:ignore KP102\n")
	r := runCLI(t, "", "--target-version", "1.39", "--format", "json", dir)
	rep := parseJSON(t, r.stdout)
	var msgs []string
	for _, f := range rep.Findings {
		msgs = append(msgs, f.RuleID+" "+f.Message)
	}
	got := strings.Join(msgs, "\n")
	for _, want := range []string{
		"KP900 suppression of KP201 (flag-ignored-by-config) matched no finding: remove it",
		"KP900 suppression has no reason",
		"KP102 kube-proxy mode ipvs is deprecated",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
	if r.code != exitOK {
		t.Errorf("warnings only: exit %d", r.code)
	}
	// KP900 can be disabled like any rule.
	r = runCLI(t, "", "--target-version", "1.39", "--disable", "KP900", "--format", "json", dir)
	if strings.Contains(r.stdout, "KP900") {
		t.Errorf("--disable KP900 still reports it:\n%s", r.stdout)
	}
}

func TestLintConfigFile(t *testing.T) {
	requireLoader(t)
	dir := ipvsRepo(t, "")
	cfg := filepath.Join(dir, ".kube-proxy-lint.yaml")
	mustWrite(t, cfg, "target-version: \"1.39\"\n")
	// From a subdirectory, the file at the repository root applies.
	t.Chdir(filepath.Join(dir, "deploy"))
	r := runCLI(t, "", "--format", "json")
	rep := parseJSON(t, r.stdout)
	if r.code != exitOK || rep.Target.Version != "1.39" || rep.Target.Source != "target-version in .kube-proxy-lint.yaml" {
		t.Errorf("target from the file: exit %d, target %+v\n%s", r.code, rep.Target, r.stderr)
	}
	// The flag wins over the file.
	if r := runCLI(t, "", "--target-version", "1.40"); r.code != exitFindings {
		t.Errorf("--target-version 1.40: exit %d", r.code)
	}
	mustWrite(t, cfg, "target-version: \"1.39\"\nseverity:\n  mode-ipvs: error\n")
	if r := runCLI(t, ""); r.code != exitFindings || !strings.Contains(r.stdout, "error: kube-proxy mode ipvs") {
		t.Errorf("severity override: exit %d\n%s", r.code, r.stdout)
	}
	mustWrite(t, cfg, `exclusions:
  - rules: [KP102]
    paths: [deploy/*.yaml]
    message: ipvs
    reason: migrated in INFRA-42
`)
	r = runCLI(t, "", "--format", "json")
	rep = parseJSON(t, r.stdout)
	if r.code != exitOK || ruleIDs(rep.Suppressed) != "KP102" || rep.Suppressed[0].Suppressions[0].Kind != "external" ||
		rep.Suppressed[0].Suppressions[0].Justification != "migrated in INFRA-42" {
		t.Errorf("exclusion: exit %d, findings %q, suppressed %+v", r.code, ruleIDs(rep.Findings), rep.Suppressed)
	}
	mustWrite(t, cfg, "target-version: \"1.39\"\nfail-on: warning\n")
	if r := runCLI(t, ""); r.code != exitFindings {
		t.Errorf("fail-on from the file: exit %d", r.code)
	}
	if r := runCLI(t, "", "--fail-on", "error"); r.code != exitOK {
		t.Errorf("--fail-on over the file: exit %d", r.code)
	}
	// policy-dirs reach the policy loader, relative to the file.
	mustWrite(t, cfg, "policy-dirs: [no-such-policies]\n")
	if r := runCLI(t, ""); r.code != exitError || !strings.Contains(r.stderr, "no-such-policies") {
		t.Errorf("policy-dirs: exit %d, stderr %q", r.code, r.stderr)
	}
	mustWrite(t, cfg, "skip: [deploy]\n")
	if r := runCLI(t, "", "--target-version", "1.40"); r.code != exitOK || r.stdout != "" {
		t.Errorf("skip: exit %d\n%s", r.code, r.stdout)
	}
	// Unknown keys and rules stop the run at their position.
	mustWrite(t, cfg, "target-version: \"1.39\"\ndisabel: [KP102]\n")
	r = runCLI(t, "")
	if r.code != exitError || !strings.Contains(r.stderr, `.kube-proxy-lint.yaml:2:1: unknown key; did you mean "disable"?`) {
		t.Errorf("unknown key: exit %d, stderr %q", r.code, r.stderr)
	}
	mustWrite(t, cfg, "disable: [mode-ipsv]\n")
	if r := runCLI(t, ""); r.code != exitError || !strings.Contains(r.stderr, `.kube-proxy-lint.yaml:1:11: unknown rule; did you mean KP102 (mode-ipvs)?`) {
		t.Errorf("unknown rule: exit %d, stderr %q", r.code, r.stderr)
	}
	// --no-config ignores it; --config reads another file.
	if r := runCLI(t, "", "--no-config", "--target-version", "1.39"); r.code != exitOK {
		t.Errorf("--no-config: exit %d, stderr %q", r.code, r.stderr)
	}
	other := filepath.Join(t.TempDir(), "lint.yaml")
	mustWrite(t, other, "disable: [KP102]\n")
	if r := runCLI(t, "", "--config", other, "--target-version", "1.40"); r.code != exitOK {
		t.Errorf("--config: exit %d, stdout %s stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "--config", filepath.Join(dir, "missing.yaml")); r.code != exitError || !strings.Contains(r.stderr, "read config") {
		t.Errorf("missing --config: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestConfigPrint(t *testing.T) {
	dir := ipvsRepo(t, "")
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "disable: [KP104]\nexclusions:\n  - paths: [legacy]\n    reason: gone soon\n")
	r := runCLI(t, "", "config", "print", "--enable", "KP104", "--fail-on", "warning", dir)
	if r.code != exitOK {
		t.Fatalf("config print: exit %d, stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{
		"# effective configuration: .kube-proxy-lint.yaml, with command-line flags applied\n",
		"version: 1\n", "target-version: auto\n", "fail-on: warning\n", "enable:\n  - KP104\n",
		"inline-suppressions: true\n", "exclusions:\n  - paths:\n      - legacy\n    reason: gone soon\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("config print lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "disable:") {
		t.Errorf("--enable KP104 did not drop it from disable:\n%s", r.stdout)
	}
	for _, args := range [][]string{{"config"}, {"config", "show"}, {"config", "print", "a", "b"}, {"config", "print", "--enable", "nope"}} {
		if r := runCLI(t, "", args...); r.code != exitError {
			t.Errorf("%q: exit %d", args, r.code)
		}
	}
	if r := runCLI(t, "", "config", "print", "--help"); r.code != exitOK || !strings.Contains(r.stdout, "--no-inline-suppressions") {
		t.Errorf("config print --help: exit %d\n%s", r.code, r.stdout)
	}
}

func TestLintBaseline(t *testing.T) {
	requireLoader(t)
	dir := ipvsRepo(t, "")
	bl := filepath.Join(dir, "baseline.json")
	r := runCLI(t, "", "--target-version", "1.40", "--write-baseline", bl, dir)
	if r.code != exitOK || r.stdout != "" || !strings.Contains(r.stderr, "wrote 1 findings to baseline") {
		t.Fatalf("--write-baseline: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(bl)
	if err != nil {
		t.Fatal(err)
	}
	b, err := engine.ParseBaseline(data)
	if err != nil || len(b.Entries) != 1 || b.Entries[0].Rule != "KP102" || b.Entries[0].File != "deploy/kube-proxy.yaml" {
		t.Fatalf("baseline %v:\n%s", err, data)
	}
	// Lines move: the entry still matches.
	moved := ipvsRepo(t, "    # a comment that moves mode down\n    clusterCIDR: 10.0.0.0/8\n")
	if err := os.Rename(filepath.Join(moved, "deploy", "kube-proxy.yaml"), filepath.Join(dir, "deploy", "kube-proxy.yaml")); err != nil {
		t.Fatal(err)
	}
	r = runCLI(t, "", "--quiet", "--target-version", "1.40", "--baseline", bl, dir)
	if r.code != exitOK || r.stdout != "" || r.stderr != "" {
		t.Errorf("--baseline: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// Fixed: the entry is stale, a note on stderr and in JSON.
	mustWrite(t, filepath.Join(dir, "deploy", "kube-proxy.yaml"), strings.Replace(string(must(os.ReadFile(filepath.Join(dir, "deploy", "kube-proxy.yaml")))), "mode: ipvs", "mode: nftables", 1))
	r = runCLI(t, "", "--target-version", "1.40", "--baseline", bl, "--format", "json", dir)
	rep := parseJSON(t, r.stdout)
	if r.code != exitOK || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0].Message, "stale baseline entry KP102") ||
		!strings.Contains(r.stderr, "kube-proxy-lint: note: deploy/kube-proxy.yaml: stale baseline entry KP102") {
		t.Errorf("stale entry: exit %d, notes %+v, stderr %q", r.code, rep.Notes, r.stderr)
	}
	for _, args := range [][]string{
		{"--baseline", bl, "--write-baseline", bl, dir},
		{"--baseline", filepath.Join(dir, "missing.json"), dir},
		{"--baseline", filepath.Join(dir, "deploy", "kube-proxy.yaml"), dir},
	} {
		if r := runCLI(t, "", args...); r.code != exitError {
			t.Errorf("%q: exit %d, want 2", args, r.code)
		}
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestKP900IDMatchesEngine keeps the rule and the engine's suppression processor on one ID.
func TestKP900IDMatchesEngine(t *testing.T) {
	if rules.KP900.ID != checker.SuppressionRuleID {
		t.Errorf("KP900.ID = %s, checker.SuppressionRuleID = %s", rules.KP900.ID, checker.SuppressionRuleID)
	}
}

// TestBaselineSurvivesTargetChange: the fingerprints of findings without a field path (flags
// in scripts and units, installer settings) do not depend on the message, which names the
// target version: a baseline written at one target still matches at another.
func TestBaselineSurvivesTargetChange(t *testing.T) {
	requireLoader(t)
	dir := t.TempDir()
	mustMkdir(t, filepath.Join(dir, ".git"))
	mustWrite(t, filepath.Join(dir, "node", "bootstrap.sh"), "#!/bin/sh\nexec /usr/local/bin/kube-proxy --proxy-mode=ipvs\n")
	mustWrite(t, filepath.Join(dir, "units", "kube-proxy.service"), "[Service]\nExecStart=/usr/local/bin/kube-proxy \\\n  --proxy-mode=ipvs\n")
	mustWrite(t, filepath.Join(dir, "inventory", "prod", "inventory.ini"), "[k8s_cluster:vars]\nkube_proxy_mode=ipvs\n")
	fingerprints := func(target string) map[string]string {
		t.Helper()
		r := runCLI(t, "", "--target-version", target, "--enable", "KP102", "--disable", "all", "--format", "json", "--fail-on", "none", dir)
		var env struct {
			Findings []struct {
				RuleID      string `json:"ruleId"`
				Message     string `json:"message"`
				Fingerprint string `json:"fingerprint"`
				Pos         struct {
					File string `json:"file"`
				} `json:"pos"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
			t.Fatalf("%v\n%s", err, r.stdout)
		}
		out := map[string]string{}
		for _, f := range env.Findings {
			out[f.Pos.File+" "+f.RuleID] = f.Fingerprint
		}
		return out
	}
	at134 := fingerprints("1.34")
	if len(at134) != 3 {
		t.Fatalf("findings at 1.34: %v", at134)
	}
	for _, target := range []string{"1.40", "1.43"} {
		if got := fingerprints(target); !reflect.DeepEqual(got, at134) {
			t.Errorf("fingerprints at %s:\n%v\nat 1.34:\n%v", target, got, at134)
		}
	}
	bl := filepath.Join(dir, "baseline.json")
	if r := runCLI(t, "", "--target-version", "1.34", "--write-baseline", bl, dir); r.code != exitOK {
		t.Fatalf("--write-baseline: exit %d: %s", r.code, r.stderr)
	}
	if r := runCLI(t, "", "--quiet", "--target-version", "1.43", "--enable", "KP102", "--disable", "all", "--baseline", bl, dir); r.code != exitOK || r.stdout != "" {
		t.Errorf("baseline of 1.34 at 1.43: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// Issue 23 item 7: the summary lines (text output and stderr) say how many findings inline
// suppressions, the configuration's exclusions and the baseline hid, and JSON counts the
// baseline's.
func TestSummaryCountsHiddenFindings(t *testing.T) {
	// One finding at the first line of every file but the configuration and the baseline.
	useRules(t, fakeRule("KP101", "mode-unset", checker.SeverityWarning, func(p *checker.Pass) error {
		for _, f := range p.Workspace.Files {
			if f.Parent == nil && strings.Contains(f.Path, "/") {
				p.Report(checker.Finding{Message: "found something", Pos: checker.Position{Filename: f.Path, Line: 1, Column: 1}})
			}
		}
		return nil
	}))
	dir := t.TempDir()
	mustMkdir(t, filepath.Join(dir, ".git"))
	t.Chdir(dir)
	files := map[string]string{}
	for _, n := range []string{"a1", "a2", "a3"} {
		files["new/"+n+".yaml"] = "kind: ConfigMap\n"
	}
	for _, n := range []string{"s1", "s2"} {
		files["suppressed/"+n+".yaml"] = "kind: ConfigMap # kube-proxy-lint:ignore KP101 -- known\n"
	}
	files["excluded/e1.yaml"] = "kind: ConfigMap\n"
	for _, n := range []string{"b1", "b2", "b3", "b4", "b5"} {
		files["old/"+n+".yaml"] = "kind: ConfigMap\n"
	}
	for name, content := range files {
		mustWrite(t, filepath.Join(dir, name), content)
	}
	if r := runCLI(t, "", "--quiet", "--no-config", "--write-baseline", "baseline.json", "old"); r.code != exitOK {
		t.Fatalf("--write-baseline: exit %d, stderr %q", r.code, r.stderr)
	}
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "baseline: baseline.json\nexclusions:\n  - paths: [excluded/**]\n    reason: vendored\n")
	r := runCLI(t, "", ".")
	if r.code != exitOK || !strings.Contains(r.stdout, "\n3 findings (3 warnings), 2 suppressed, 1 excluded, 5 in the baseline · target ") {
		t.Errorf("text summary: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "--format", "json", ".")
	if r.code != exitOK || !strings.Contains(r.stderr, "kube-proxy-lint: 3 findings (3 warnings) in 13 files (0 kube-proxy instances), 2 suppressed, 1 excluded, 5 in the baseline · target ") {
		t.Errorf("stderr summary: exit %d, stderr %q", r.code, r.stderr)
	}
	var env struct {
		Findings, Suppressed []json.RawMessage
		Baselined            int
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil || len(env.Findings) != 3 || len(env.Suppressed) != 3 || env.Baselined != 5 {
		t.Errorf("JSON: %d findings, %d suppressed, %d baselined (%v)", len(env.Findings), len(env.Suppressed), env.Baselined, err)
	}
	// Nothing hidden: the line is as before.
	r = runCLI(t, "", "--no-config", "new")
	if !strings.Contains(r.stdout, "\n3 findings (3 warnings) · target ") {
		t.Errorf("plain summary: %q", r.stdout)
	}
}
