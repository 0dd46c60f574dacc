package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// result is what one invocation produced.
type result struct {
	code           int
	stdout, stderr string
}

func runCLI(t *testing.T, stdin string, args ...string) result {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(stdin), &out, &errb)
	return result{code, out.String(), errb.String()}
}

func fakeRule(id, name string, sev checker.Severity, run func(*checker.Pass) error) *checker.Rule {
	return &checker.Rule{
		ID: id, Name: name, Severity: sev, Run: run,
		Doc: checker.Doc{
			Title: "Title of " + name, Why: "Why " + name + " matters.", Remediation: "Fix " + name + ".",
			Before: "mode: ipvs\n", After: "mode: nftables\n", Since: "v0.1.0",
		},
	}
}

// reportEveryFile reports one finding at the first line of every file.
func reportEveryFile(p *checker.Pass) error {
	for _, f := range p.Workspace.Files {
		if f.Parent == nil {
			p.Report(checker.Finding{Message: "found something", Pos: checker.Position{Filename: f.Path, Line: 1, Column: 1}})
		}
	}
	return nil
}

// useRules makes the CLI see rs instead of the built-in registry for the test.
func useRules(t *testing.T, rs ...*checker.Rule) {
	t.Helper()
	old := registry
	registry = func() []*checker.Rule { return rs }
	t.Cleanup(func() { registry = old })
}

func defaultRules(t *testing.T) {
	t.Helper()
	useRules(t,
		fakeRule("KP101", "mode-unset", checker.SeverityWarning, reportEveryFile),
		fakeRule("KP102", "mode-ipvs", checker.SeverityError, func(*checker.Pass) error { return nil }),
	)
}

func TestHelp(t *testing.T) {
	r := runCLI(t, "", "--help")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("--help: code %d, stderr %q", r.code, r.stderr)
	}
	for _, s := range []string{
		"Usage:", "kube-proxy-lint [flags] [PATH...]", "kube-proxy-lint rules", "kube-proxy-lint explain",
		"--format FORMAT[=FILE]", "--output FILE", "--color WHEN", "--fail-on SEVERITY", "--enable RULES",
		"--disable RULES", "--target-version VERSION", "--version", "json", "sarif", "text",
		"--format text --format sarif=results.sarif", "Exit codes:", "  2         usage error", "  130, 143  interrupted",
		"--config-from-base REV", "--no-repo-policies",
	} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("--help lacks %q:\n%s", s, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "[=true|false]") {
		t.Errorf("--help shows pflag's boolean noise:\n%s", r.stdout)
	}
	for _, line := range strings.Split(r.stdout, "\n") {
		if len([]rune(line)) > usageWidth {
			t.Errorf("--help line longer than %d columns: %q", usageWidth, line)
		}
	}
	if h := runCLI(t, "", "-h"); h.stdout != r.stdout || h.code != 0 {
		t.Errorf("-h differs from --help")
	}
}

func TestVersion(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v9.8.7"
	r := runCLI(t, "", "--version")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "kube-proxy-lint v9.8.7 (") {
		t.Fatalf("--version = %d %q", r.code, r.stdout)
	}
	version = ""
	if v := versionString(); v == "" {
		t.Error("versionString is empty without -ldflags")
	}
}

func TestUsageErrors(t *testing.T) {
	defaultRules(t)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--bogus"}, "unknown flag: --bogus"},
		{[]string{"--format"}, "flag needs an argument: --format"},
		{[]string{"--fail-on", "fatal"}, `parse --fail-on: unknown severity "fatal"`},
		{[]string{"--color", "sometimes"}, `parse --color: unknown value "sometimes" (want auto, always or never)`},
		{[]string{"--target-version", "2.0"}, `parse --target-version: invalid Kubernetes version "2.0"`},
		{[]string{"--format", "xml"}, `parse --format: unknown format "xml" (want `},
		{[]string{"--format", "json", "--format", "sarif"}, "json and sarif outputs would all write to stdout"},
		{[]string{"--format", "json=a.json", "--output", "b.json"}, "--output is unused"},
		{[]string{"--format", "json", "--format", "sarif", "-o", "x"}, "takes one output but json and sarif name no file"},
		{[]string{"--format", "json=x", "--format", "sarif=./x"}, "json and sarif outputs both write to ./x"},
		{[]string{"--format", "json="}, `"json=" names no file`},
		{[]string{"--enable", "KP1O2"}, `enable rules: unknown rule "KP1O2"; did you mean KP102 (mode-ipvs)?`},
		{[]string{"--disable", "mode-ipsv"}, `disable rules: unknown rule "mode-ipsv"; did you mean KP102 (mode-ipvs)?`},
		{[]string{"--enable", "KP101,KP102", "--disable", "kp102"}, "KP102 (mode-ipvs) is both enabled and disabled"},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := runCLI(t, "", tt.args...)
			if r.code != exitError {
				t.Errorf("exit code %d, want 2", r.code)
			}
			lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "kube-proxy-lint: ") || !strings.Contains(lines[0], tt.want) ||
				lines[1] != "Run 'kube-proxy-lint --help' for usage." {
				t.Errorf("stderr = %q, want one error line containing %q and the --help hint", r.stderr, tt.want)
			}
			if r.stdout != "" {
				t.Errorf("stdout = %q, want nothing", r.stdout)
			}
		})
	}
}

func TestInvalidRegistry(t *testing.T) {
	useRules(t, fakeRule("KP102", "b", checker.SeverityError, reportEveryFile), fakeRule("KP101", "a", checker.SeverityError, reportEveryFile))
	r := runCLI(t, "", t.TempDir())
	if r.code != exitError || !strings.Contains(r.stderr, "invalid rule registry") {
		t.Fatalf("unsorted registry: code %d, stderr %q", r.code, r.stderr)
	}
}

func TestParseOutputs(t *testing.T) {
	known := []string{"json", "sarif", "text"}
	tests := []struct {
		formats []string
		output  string
		want    []output
	}{
		{nil, "", []output{{"text", ""}}},
		{nil, "out.txt", []output{{"text", "out.txt"}}},
		{[]string{"SARIF"}, "r.sarif", []output{{"sarif", "r.sarif"}}},
		{[]string{"text", "sarif=r.sarif", "json=r.json"}, "", []output{{"text", ""}, {"sarif", "r.sarif"}, {"json", "r.json"}}},
		{[]string{"json", "sarif=r.sarif"}, "-", []output{{"json", ""}, {"sarif", "r.sarif"}}},
		{[]string{"json=-", "sarif"}, "r.sarif", []output{{"json", ""}, {"sarif", "r.sarif"}}},
		{[]string{"json=dir/a=b.json"}, "", []output{{"json", "dir/a=b.json"}}},
	}
	for _, tt := range tests {
		got, err := parseOutputs(tt.formats, tt.output, known)
		if err != nil {
			t.Errorf("parseOutputs(%q, %q): %v", tt.formats, tt.output, err)
			continue
		}
		if len(got) != len(tt.want) {
			t.Errorf("parseOutputs(%q, %q) = %v, want %v", tt.formats, tt.output, got, tt.want)
			continue
		}
		for i := range got {
			if got[i] != tt.want[i] {
				t.Errorf("parseOutputs(%q, %q) = %v, want %v", tt.formats, tt.output, got, tt.want)
				break
			}
		}
	}
}

func TestExitCode(t *testing.T) {
	f := func(sev checker.Severity, internal bool) checker.Finding {
		return checker.Finding{Severity: sev, Internal: internal}
	}
	tests := []struct {
		findings  []checker.Finding
		internal  int
		threshold checker.Severity
		want      int
	}{
		{nil, 0, checker.SeverityError, 0},
		{[]checker.Finding{f(checker.SeverityWarning, false)}, 0, checker.SeverityError, 0},
		{[]checker.Finding{f(checker.SeverityWarning, false)}, 0, checker.SeverityWarning, 1},
		{[]checker.Finding{f(checker.SeverityInfo, false)}, 0, checker.SeverityWarning, 0},
		{[]checker.Finding{f(checker.SeverityInfo, false)}, 0, checker.SeverityInfo, 1},
		{[]checker.Finding{f(checker.SeverityError, false)}, 0, checker.SeverityError, 1},
		{[]checker.Finding{f(checker.SeverityError, false)}, 0, checker.SeverityNone, 0},
		{[]checker.Finding{f(checker.SeverityError, false), f(checker.SeverityError, true)}, 1, checker.SeverityError, 2},
		{[]checker.Finding{f(checker.SeverityError, true)}, 1, checker.SeverityNone, 2},
	}
	for i, tt := range tests {
		if got := exitCode(&engine.Outcome{Findings: tt.findings, InternalErrors: tt.internal}, tt.threshold); got != tt.want {
			t.Errorf("case %d: exitCode = %d, want %d", i, got, tt.want)
		}
	}
}

func TestSourceRoot(t *testing.T) {
	repo := t.TempDir()
	mustMkdir(t, filepath.Join(repo, ".git"))
	mustWrite(t, filepath.Join(repo, "deploy", "kp.yaml"), "kind: ConfigMap\n")
	plain := t.TempDir()
	mustWrite(t, filepath.Join(plain, "sub", "kp.yaml"), "kind: ConfigMap\n")
	worktree := t.TempDir()
	mustWrite(t, filepath.Join(worktree, ".git"), "gitdir: /elsewhere\n")
	mustMkdir(t, filepath.Join(worktree, "a", "b"))
	tests := []struct{ path, want string }{
		{repo, repo},
		{filepath.Join(repo, "deploy"), repo},
		{filepath.Join(repo, "deploy", "kp.yaml"), repo},
		{filepath.Join(repo, "deploy", "missing.yaml"), repo},
		{filepath.Join(plain, "sub"), filepath.Join(plain, "sub")},
		{filepath.Join(plain, "sub", "kp.yaml"), filepath.Join(plain, "sub")},
		{filepath.Join(worktree, "a", "b"), worktree},
	}
	for _, tt := range tests {
		if got := sourceRoot(tt.path); got != tt.want {
			t.Errorf("sourceRoot(%s) = %s, want %s", tt.path, got, tt.want)
		}
	}
	t.Chdir(filepath.Join(repo, "deploy"))
	if got := sourceRoot("-"); got != repo {
		t.Errorf("sourceRoot(-) = %s, want %s", got, repo)
	}
	if got := sourceRoot("."); got != repo {
		t.Errorf("sourceRoot(.) = %s, want %s", got, repo)
	}
}

func TestWriteOutputAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.sarif")
	if err := writeOutput(context.Background(), nil, nil, path, nil, func(w io.Writer) error { _, err := w.Write([]byte("first")); return err }); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	// A failing formatter leaves the previous file alone and no temporary file behind.
	boom := errString("formatter failed")
	if err := writeOutput(context.Background(), nil, nil, path, nil, func(w io.Writer) error { _, _ = w.Write([]byte("partial")); return boom }); !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the formatter's error", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "first" {
		t.Errorf("after a failed write the file holds %q", b)
	}
	if err := writeOutput(context.Background(), nil, nil, path, nil, func(w io.Writer) error { _, err := w.Write([]byte("second")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "second" {
		t.Errorf("file holds %q, want second", b)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the previous 0600 kept", st.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only out.sarif", len(entries))
	}
	if err := writeOutput(context.Background(), nil, nil, filepath.Join(dir, "missing", "x.json"), nil, func(io.Writer) error { return nil }); err == nil {
		t.Error("writing into a missing directory: no error")
	}
	if err := writeOutput(context.Background(), nil, nil, dir, nil, func(io.Writer) error { return nil }); err == nil {
		t.Error("replacing a directory: no error")
	}
	var stdout bytes.Buffer
	if err := writeOutput(context.Background(), &stdout, nil, "", nil, func(w io.Writer) error { _, err := w.Write([]byte("out")); return err }); err != nil || stdout.String() != "out" {
		t.Errorf("stdout output = %q, %v", stdout.String(), err)
	}
}

func TestRulesCommand(t *testing.T) {
	defaultRules(t)
	off := fakeRule("KP201", "strict", checker.SeverityInfo, reportEveryFile)
	off.Disabled = true
	rs := registry()
	useRules(t, append(rs, off)...)

	r := runCLI(t, "", "rules")
	want := "ID     NAME        SEVERITY  ENABLED  TITLE\n" +
		"KP101  mode-unset  warning   yes      Title of mode-unset\n" +
		"KP102  mode-ipvs   error     yes      Title of mode-ipvs\n" +
		"KP201  strict      info      no       Title of strict\n" +
		"\n3 rules, 2 enabled · severities at target 1.40 (default; a lint run detects the target from the repository, see config print)\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("rules: code %d\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	// --enable, --disable and --target-version as in a lint run, also before the subcommand.
	r = runCLI(t, "", "--enable", "KP201", "--disable", "mode-ipvs", "--target-version", "1.39", "rules")
	if r.code != 0 || !strings.Contains(r.stdout, "KP201  strict      info      yes") || !strings.Contains(r.stdout, "KP102  mode-ipvs   error     no") ||
		!strings.Contains(r.stdout, "at target 1.39 (from --target-version)") {
		t.Errorf("rules with flags: code %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	r = runCLI(t, "", "rules", "--format", "json")
	var doc struct {
		Rules []map[string]any `json:"rules"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil || r.code != 0 {
		t.Fatalf("rules --format json: %v, code %d\n%s", err, r.code, r.stdout)
	}
	if len(doc.Rules) != 3 || doc.Rules[2]["id"] != "KP201" || doc.Rules[2]["enabledByDefault"] != false || doc.Rules[2]["enabled"] != false ||
		doc.Rules[0]["severity"] != "warning" || doc.Rules[0]["severityAtTarget"] != "warning" || doc.Rules[0]["url"] != checker.DocsBaseURL+"KP101.md" {
		t.Errorf("rules --format json:\n%s", r.stdout)
	}

	r = runCLI(t, "", "rules", "-f", "markdown")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "| ID | Name |") || !strings.Contains(r.stdout, "| [KP201](") {
		t.Errorf("rules --format markdown:\n%s", r.stdout)
	}

	for _, args := range [][]string{{"rules", "--format", "yaml"}, {"rules", "KP101"}, {"rules", "--bogus"}} {
		r := runCLI(t, "", args...)
		if r.code != exitError || !strings.Contains(r.stderr, "Run 'kube-proxy-lint rules --help' for usage.") {
			t.Errorf("%q: code %d, stderr %q", args, r.code, r.stderr)
		}
	}
	if r := runCLI(t, "", "rules", "--help"); r.code != 0 || !strings.Contains(r.stdout, "--format FORMAT") {
		t.Errorf("rules --help: %d %q", r.code, r.stdout)
	}
}

func TestExplain(t *testing.T) {
	defaultRules(t)
	r := runCLI(t, "", "explain", "KP102")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "KP102 (mode-ipvs): Title of mode-ipvs\n") ||
		!strings.Contains(r.stdout, "Why:\n  Why mode-ipvs matters.") || !strings.Contains(r.stdout, "After:\n    mode: nftables") {
		t.Errorf("explain KP102: code %d\n%s", r.code, r.stdout)
	}
	if byName := runCLI(t, "", "explain", "Mode-IPVS"); byName.stdout != r.stdout {
		t.Errorf("explain by name differs:\n%s", byName.stdout)
	}
	if md := runCLI(t, "", "explain", "--format", "markdown", "kp102"); md.code != 0 || !strings.HasPrefix(md.stdout, "# KP102: Title of mode-ipvs") {
		t.Errorf("explain --format markdown:\n%s", md.stdout)
	}
	if two := runCLI(t, "", "explain", "KP101", "KP102"); two.code != 0 || !strings.Contains(two.stdout, "KP101 (mode-unset)") ||
		!strings.Contains(two.stdout, "\n\nKP102 (mode-ipvs)") {
		t.Errorf("explain two rules:\n%s", two.stdout)
	}

	r = runCLI(t, "", "explain", "KP1O2")
	if r.code != exitError || r.stdout != "" ||
		r.stderr != "kube-proxy-lint: unknown rule \"KP1O2\"; did you mean KP102 (mode-ipvs)?\nRun 'kube-proxy-lint rules' to list the rules.\n" {
		t.Errorf("explain unknown: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	for _, args := range [][]string{{"explain"}, {"explain", "--format", "json", "KP102"}} {
		r := runCLI(t, "", args...)
		if r.code != exitError || !strings.Contains(r.stderr, "Run 'kube-proxy-lint explain --help' for usage.") {
			t.Errorf("%q: code %d, stderr %q", args, r.code, r.stderr)
		}
	}
}

// requireLoader skips tests that need load.Load while it is still a stub that panics.
func requireLoader(t *testing.T) {
	t.Helper()
	defer func() {
		if v := recover(); v != nil {
			t.Skipf("load.Load is not implemented yet: %v", v)
		}
	}()
	if _, err := load.Load(context.Background(), load.Options{Paths: []string{t.TempDir()}}); err != nil {
		t.Fatalf("load an empty directory: %v", err)
	}
}

// repo creates a Git work tree with one kube-proxy ConfigMap under deploy/.
func repo(t *testing.T) string {
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
    mode: iptables
`)
	return dir
}

func TestLintExitCodes(t *testing.T) {
	requireLoader(t)
	dir := repo(t)
	warn := fakeRule("KP101", "mode-unset", checker.SeverityWarning, reportEveryFile)
	errRule := fakeRule("KP102", "mode-ipvs", checker.SeverityError, reportEveryFile)
	errRule.Disabled = true
	panics := fakeRule("KP103", "panics", checker.SeverityError, func(*checker.Pass) error { panic("boom") })
	panics.Disabled = true
	useRules(t, warn, errRule, panics)

	tests := []struct {
		args []string
		code int
	}{
		{[]string{dir}, 0},
		{[]string{"--fail-on", "warning", dir}, 1},
		{[]string{"--fail-on", "info", dir}, 1},
		{[]string{"--enable", "KP102", dir}, 1},
		{[]string{"--enable", "KP102", "--fail-on", "none", dir}, 0},
		{[]string{"--disable", "all", "--fail-on", "info", dir}, 0},
		{[]string{"--enable", "panics", "--fail-on", "none", dir}, 2},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:len(tt.args)-1], " "), func(t *testing.T) {
			r := runCLI(t, "", tt.args...)
			if r.code != tt.code {
				t.Errorf("exit code %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, tt.code, r.stdout, r.stderr)
			}
		})
	}

	r := runCLI(t, "", "--enable", "KP103", dir)
	if !strings.Contains(r.stderr, "kube-proxy-lint: internal error in rule KP103 (panics): rule panicked: boom\n") {
		t.Errorf("panic not reported on stderr: %q", r.stderr)
	}
	if !strings.Contains(r.stdout, "internal error: rule panicked: boom") {
		t.Errorf("panic not reported as a finding:\n%s", r.stdout)
	}
	if strings.Contains(r.stderr, "goroutine") {
		t.Errorf("stack trace without --debug:\n%s", r.stderr)
	}
	if r := runCLI(t, "", "--debug", "--enable", "KP103", dir); !strings.Contains(r.stderr, "goroutine") {
		t.Errorf("--debug prints no stack trace:\n%s", r.stderr)
	}
}

func TestLintMissingPath(t *testing.T) {
	requireLoader(t)
	defaultRules(t)
	missing := filepath.Join(t.TempDir(), "nope")
	r := runCLI(t, "", missing)
	if r.code != exitError || strings.Count(r.stderr, "\n") != 1 || !strings.HasPrefix(r.stderr, "kube-proxy-lint: ") ||
		!strings.Contains(r.stderr, "nope") {
		t.Errorf("missing path: code %d, stderr %q", r.code, r.stderr)
	}
}

// TestLintPaths: text, github and checkstyle name files relative to the current directory,
// so that they open from the terminal (with --path-prefix prepended); the machine formats name
// them relative to the repository root, as the repository does.
func TestLintPaths(t *testing.T) {
	requireLoader(t)
	defaultRules(t)
	dir := repo(t)
	t.Chdir(filepath.Join(dir, "deploy"))
	for _, args := range [][]string{{"."}, {}, {filepath.Join(dir, "deploy")}, {"kube-proxy.yaml"}} {
		for format, want := range map[string]string{
			"text": "\nkube-proxy.yaml:1:1: ", "github": "file=kube-proxy.yaml,", "checkstyle": `<file name="kube-proxy.yaml">`,
			"json": `"file": "deploy/kube-proxy.yaml"`, "sarif": `"uri": "deploy/kube-proxy.yaml"`,
		} {
			r := runCLI(t, "", append([]string{"--fail-on", "none", "--format", format}, args...)...)
			if r.code != 0 || !strings.Contains("\n"+r.stdout, want) {
				t.Errorf("lint %q --format %s: code %d, want %q in stdout:\n%s\nstderr: %s", args, format, r.code, want, r.stdout, r.stderr)
			}
		}
	}
	// From the root, and from a sibling directory (../), and with a prefix.
	mustMkdir(t, filepath.Join(dir, "other"))
	for _, tc := range []struct {
		cwd  string
		args []string
		want string
	}{
		{dir, []string{"."}, "\ndeploy/kube-proxy.yaml:1:1: "},
		{filepath.Join(dir, "other"), []string{"../deploy"}, "\n../deploy/kube-proxy.yaml:1:1: "},
		{filepath.Join(dir, "deploy"), []string{"--path-prefix", "infra", "."}, "\ninfra/kube-proxy.yaml:1:1: "},
		{filepath.Join(dir, "deploy"), []string{"--path-prefix", "infra/deploy", "--format", "github", "."}, "file=infra/deploy/kube-proxy.yaml,"},
	} {
		t.Chdir(tc.cwd)
		r := runCLI(t, "", append([]string{"--fail-on", "none"}, tc.args...)...)
		if !strings.Contains("\n"+r.stdout, tc.want) {
			t.Errorf("in %s, lint %q: want %q in:\n%s%s", tc.cwd, tc.args, tc.want, r.stdout, r.stderr)
		}
	}
}

func TestLintOutsideGit(t *testing.T) {
	requireLoader(t)
	defaultRules(t)
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "kp", "config.yaml"), "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n")
	// Far from the current directory, the text output names the file by its absolute path;
	// the machine formats, relative to the linted directory.
	r := runCLI(t, "", "--fail-on", "none", filepath.Join(dir, "kp"))
	if !strings.Contains(r.stdout, filepath.Join(dir, "kp", "config.yaml")+":1:1") {
		t.Errorf("outside Git, far away: want the absolute path:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
	r = runCLI(t, "", "--fail-on", "none", "--format", "json", filepath.Join(dir, "kp"))
	if !strings.Contains(r.stdout, `"file": "config.yaml"`) {
		t.Errorf("outside Git, paths are not relative to the linted directory:\n%s\nstderr: %s", r.stdout, r.stderr)
	}
}

func TestLintStdin(t *testing.T) {
	requireLoader(t)
	defaultRules(t)
	in := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\n"
	r := runCLI(t, in, "--fail-on", "none", "--stdin-filename", "kube-proxy.yaml", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "kube-proxy.yaml:1:1") {
		t.Errorf("stdin: code %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

func TestLintSeveralOutputs(t *testing.T) {
	requireLoader(t)
	defaultRules(t)
	dir := repo(t)
	out := t.TempDir()
	jsonFile, sarifFile := filepath.Join(out, "r.json"), filepath.Join(out, "r.sarif")
	// text=- keeps text on stdout while --output takes the one output without a file.
	r := runCLI(t, "", "--format", "text=-", "--format", "json="+jsonFile, "-f", "sarif", "-o", sarifFile, "--fail-on", "warning", dir)
	if r.code != 1 {
		t.Errorf("exit code %d, want 1; stderr %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stdout, "deploy/kube-proxy.yaml:1:1") {
		t.Errorf("text output on stdout:\n%s", r.stdout)
	}
	for _, f := range []string{jsonFile, sarifFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Errorf("output not written: %v", err)
			continue
		}
		if !json.Valid(b) || !strings.Contains(string(b), "deploy/kube-proxy.yaml") {
			t.Errorf("%s is not JSON naming the finding's file:\n%s", f, b)
		}
		if bytes.Contains(b, []byte("\x1b[")) {
			t.Errorf("%s holds colour escapes", f)
		}
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Errorf("output directory holds %d entries, want 2 (no temporary files)", len(entries))
	}

	// Only file outputs: nothing on stdout.
	r = runCLI(t, "", "--format", "json="+jsonFile, dir)
	if r.code != 0 || r.stdout != "" {
		t.Errorf("file-only output: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	// An output that cannot be written is an error before anything is linted or written
	// (TestOutputPathsCheckedBeforeLinting).
	r = runCLI(t, "", "--format", "text", "--format", "json="+filepath.Join(out, "missing", "r.json"), dir)
	if r.code != exitError || !strings.Contains(r.stderr, "kube-proxy-lint: write json output ") || r.stdout != "" {
		t.Errorf("unwritable output: code %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestLintColor(t *testing.T) {
	requireLoader(t)
	defaultRules(t)
	dir := repo(t)
	t.Setenv("NO_COLOR", "")
	// stdout is a buffer, not a terminal: auto means no colour.
	if r := runCLI(t, "", "--fail-on", "none", dir); strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("--color auto coloured a non-terminal:\n%q", r.stdout)
	}
	if r := runCLI(t, "", "--fail-on", "none", "--color", "never", dir); strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("--color never coloured:\n%q", r.stdout)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func mustMkdir(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	mustMkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestOutputToDevice checks that --output /dev/null writes through instead of trying to
// replace the device.
func TestOutputToDevice(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil {
		t.Skip("no null device")
	}
	if err := writeOutput(context.Background(), nil, nil, os.DevNull, nil, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err }); err != nil {
		t.Fatalf("write to %s: %v", os.DevNull, err)
	}
}

// Issue 23 item 6: every output path is checked before anything is linted, and the error
// names the missing directory, never a temporary file.
func TestOutputPathsCheckedBeforeLinting(t *testing.T) {
	ran := false
	useRules(t, fakeRule("KP101", "mode-unset", checker.SeverityWarning, func(*checker.Pass) error { ran = true; return nil }))
	dir := t.TempDir()
	t.Chdir(dir)
	mustWrite(t, filepath.Join(dir, "deploy", "a.yaml"), "kind: ConfigMap\n")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--format", "sarif=missing-dir/x.sarif"}, "write sarif output missing-dir/x.sarif: directory missing-dir does not exist"},
		{[]string{"--format", "text", "--format", "json=a/b/c.json"}, "write json output a/b/c.json: directory a does not exist"},
		{[]string{"-o", "deploy/a.yaml/x.txt"}, "write text output deploy/a.yaml/x.txt: deploy/a.yaml is not a directory"},
		{[]string{"--format", "json=deploy/"}, "write json output deploy/: names a directory, not a file"},
		{[]string{"--format", "json=deploy"}, "write json output deploy: not a regular file"},
		{[]string{"--write-baseline", "missing/b.json"}, "write baseline missing/b.json: directory missing does not exist"},
		{[]string{"report", "--format", "report-html=nowhere/r.html"}, "write report-html output nowhere/r.html: directory nowhere does not exist"},
	} {
		ran = false
		r := runCLI(t, "", append(c.args, "deploy")...)
		if r.code != exitError || !strings.Contains(r.stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, r.code, r.stderr, c.want)
		}
		if ran || strings.Contains(r.stderr, ".tmp") {
			t.Errorf("%v: linted before the output check (rule ran %v), stderr %q", c.args, ran, r.stderr)
		}
	}
	// A good path in an existing directory is written after the run.
	mustMkdir(t, filepath.Join(dir, "out"))
	if r := runCLI(t, "", "--quiet", "--format", "json=out/r.json", "deploy"); r.code != exitOK || !ran {
		t.Errorf("good output: exit %d, rule ran %v, stderr %q", r.code, ran, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "r.json")); err != nil {
		t.Error(err)
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "out"))
	if len(entries) != 1 {
		t.Errorf("out/ holds %v, want only r.json (no probe or temporary file left)", entries)
	}
}
