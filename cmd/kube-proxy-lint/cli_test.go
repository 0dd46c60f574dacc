package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
)

func TestSplitCommand(t *testing.T) {
	for _, tc := range []struct {
		args []string
		cmd  string
		rest []string
	}{
		{[]string{"rules"}, "rules", []string{}},
		{[]string{"--config", "c.yaml", "config", "print"}, "config", []string{"--config", "c.yaml", "print"}},
		{[]string{"--policy", "p", "explain", "ORG001"}, "explain", []string{"--policy", "p", "ORG001"}},
		{[]string{"--policy=p", "explain", "X"}, "explain", []string{"--policy=p", "X"}},
		{[]string{"-f", "json", "rules"}, "rules", []string{"-f", "json"}},
		{[]string{"-qf", "json", "rules"}, "rules", []string{"-qf", "json"}},
		{[]string{"--quiet", "version"}, "version", []string{"--quiet"}},
		// A path comes first: the rest are paths, also one named like a command.
		{[]string{"deploy", "rules"}, "", nil},
		{[]string{"./rules"}, "", nil},
		{[]string{"--", "rules"}, "", nil},
		{[]string{"-"}, "", nil},
		// The value of a flag is not a command.
		{[]string{"--output", "rules", "."}, "", nil},
		{[]string{"-o", "explain"}, "", nil},
	} {
		cmd, rest := splitCommand(tc.args)
		name := ""
		if cmd != nil {
			name = cmd.name
		}
		if name != tc.cmd || (cmd != nil && !reflect.DeepEqual(rest, tc.rest)) {
			t.Errorf("splitCommand(%q) = %q %q, want %q %q", tc.args, name, rest, tc.cmd, tc.rest)
		}
	}
}

// TestGlobalFlagsBeforeSubcommand: flags before a subcommand are its flags, and a flag it does
// not take is a usage error that names it, not a path.
func TestGlobalFlagsBeforeSubcommand(t *testing.T) {
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "c.yaml"), "target-version: \"1.41\"\ndisable: [KP101]\n")
	r := runCLI(t, "", "--config", filepath.Join(dir, "c.yaml"), "config", "print")
	if r.code != 0 || !strings.Contains(r.stdout, "target-version: \"1.41\"") || !strings.Contains(r.stdout, "# target 1.41 (from target-version in ") {
		t.Errorf("--config c.yaml config print: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "--policy", orgPolicies, "explain", "ORG001")
	if r.code != 0 || !strings.Contains(r.stdout, "ORG001 (kube-proxy-image-registry)") {
		t.Errorf("--policy p explain ORG001: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "--fail-on", "error", "rules")
	if r.code != exitError || !strings.Contains(r.stderr, "unknown flag: --fail-on") || !strings.Contains(r.stderr, "kube-proxy-lint rules --help") {
		t.Errorf("--fail-on error rules: %d\n%s", r.code, r.stderr)
	}
}

// TestHelpListsCommands: --help names every subcommand and says which words are reserved.
func TestHelpListsCommands(t *testing.T) {
	r := runCLI(t, "", "--help")
	for _, c := range commands {
		if !strings.Contains(r.stdout, "  kube-proxy-lint "+c.name) {
			t.Errorf("--help does not list %s", c.name)
		}
	}
	if !strings.Contains(r.stdout, "Subcommands ("+strings.Join(commandNames(), ", ")+")\n  are reserved words") {
		t.Errorf("--help does not list the reserved words:\n%s", r.stdout)
	}
	for _, c := range commands {
		r := runCLI(t, "", c.name, "--help")
		if r.code != 0 || !strings.Contains(r.stdout, "kube-proxy-lint "+c.name) || !strings.Contains(r.stdout, "Usage:") {
			t.Errorf("%s --help: %d\n%s%s", c.name, r.code, r.stdout, r.stderr)
		}
	}
}

// TestRulesAndExplainReadConfig: rules and explain honour the configuration file: its
// policy-dirs add rules, enable and disable decide what runs, severity overrides show.
func TestRulesAndExplainReadConfig(t *testing.T) {
	dir := t.TempDir()
	mustMkdir(t, filepath.Join(dir, ".git"))
	// The repository's own policies (policy-dirs must lie inside the repository).
	for _, name := range []string{"kube_proxy_image.rego", "lib/k8s.rego"} {
		b, err := os.ReadFile(filepath.Join(orgPolicies, name))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, "policies", name), string(b))
	}
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "policy-dirs: [policies]\ndisable: [KP204]\nenable: [KP604]\nseverity:\n  mode-ipvs: info\ntarget-version: \"1.39\"\n")
	t.Chdir(dir)
	r := runCLI(t, "", "rules", "--format", "json")
	var doc struct {
		Target struct{ Version, Source string }
		Rules  []struct {
			ID               string
			Enabled          bool
			SeverityAtTarget string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("%v\n%s%s", err, r.stdout, r.stderr)
	}
	got := map[string]string{}
	for _, rule := range doc.Rules {
		got[rule.ID] = rule.SeverityAtTarget + "," + map[bool]string{true: "on", false: "off"}[rule.Enabled]
	}
	for id, want := range map[string]string{"ORG001": "error,on", "KP204": "info,off", "KP604": "info,on", "KP102": "info,on", "KP101": "warning,on"} {
		if got[id] != want {
			t.Errorf("rules: %s = %q, want %q", id, got[id], want)
		}
	}
	if doc.Target.Version != "1.39" || !strings.Contains(doc.Target.Source, "target-version in .kube-proxy-lint.yaml") {
		t.Errorf("target: %+v", doc.Target)
	}
	// At 1.40 (the flag wins), KP101 is an error.
	r = runCLI(t, "", "rules", "--target-version", "1.40")
	if !strings.Contains(r.stdout, "at target 1.40 (from --target-version)") {
		t.Errorf("rules --target-version 1.40:\n%s", r.stdout)
	}
	for _, l := range strings.Split(r.stdout, "\n") {
		if f := strings.Fields(l); len(f) > 2 && f[0] == "KP101" && f[2] != "error" {
			t.Errorf("KP101 at 1.40: %q", l)
		}
	}
	r = runCLI(t, "", "explain", "ORG001")
	if r.code != 0 || !strings.Contains(r.stdout, "kube-proxy image from the internal registry") {
		t.Errorf("explain ORG001 with policy-dirs in the config: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runCLI(t, "", "explain", "--no-config", "ORG001"); r.code != exitError {
		t.Errorf("explain --no-config ORG001: %d", r.code)
	}
}

// TestConfigPrintTarget: config print shows the target a lint run of PATH would use, detected
// from the files when nothing sets it.
func TestConfigPrintTarget(t *testing.T) {
	r := runCLI(t, "", "config", "print", "--no-config", "../../fixtures/repos/nftables-ready")
	if r.code != 0 || !strings.Contains(r.stdout, "# target 1.38 (from kube-proxy image tag at ") {
		t.Errorf("config print: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runCLI(t, "", "config", "--no-config", "--target-version", "1.41", "print", "../../fixtures/repos/nftables-ready")
	if r.code != 0 || !strings.Contains(r.stdout, "# target 1.41 (from --target-version)") {
		t.Errorf("config print --target-version: %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestVersionCommand(t *testing.T) {
	old := version
	t.Cleanup(func() { version = old })
	version = "v1.2.3"
	r := runCLI(t, "", "version", "--format", "json")
	var v versionInfo
	if err := json.Unmarshal([]byte(r.stdout), &v); err != nil || r.code != 0 {
		t.Fatalf("version --format json: %v\n%s%s", err, r.stdout, r.stderr)
	}
	if v.Version != "v1.2.3" || !strings.HasPrefix(v.GoVersion, "go") || !strings.Contains(v.Platform, "/") {
		t.Errorf("version: %+v", v)
	}
	if r := runCLI(t, "", "version"); r.code != 0 || !strings.HasPrefix(r.stdout, "kube-proxy-lint v1.2.3 (") {
		t.Errorf("version: %q", r.stdout)
	}
	if r := runCLI(t, "", "version", "--format", "yaml"); r.code != exitError {
		t.Errorf("version --format yaml: %d", r.code)
	}
}

// TestCleanRunSummary: a clean run says what it checked on stderr, unless --quiet.
func TestCleanRunSummary(t *testing.T) {
	r := runCLI(t, "", "--no-config", "../../fixtures/repos/nftables-ready")
	want := "kube-proxy-lint: 0 findings in 1 file (1 kube-proxy instance) · target 1.38 (from kube-proxy image tag at fixtures/repos/nftables-ready/kube-system/kube-proxy.yaml:35:16)\n"
	if r.code != 0 || r.stdout != "" || r.stderr != want {
		t.Errorf("clean run: %d, stdout %q\nstderr %q\nwant   %q", r.code, r.stdout, r.stderr, want)
	}
	if r := runCLI(t, "", "--quiet", "--no-config", "../../fixtures/repos/nftables-ready"); r.stderr != "" {
		t.Errorf("--quiet: stderr %q", r.stderr)
	}
	// With findings, the text output's own summary line says it; other formats get the line.
	r = runCLI(t, "", "--no-config", "--format", "json", "../../fixtures/repos/kubeadm-ipvs")
	if !strings.Contains(r.stderr, "kube-proxy-lint: 8 findings (3 errors, 3 warnings, 2 info) in 4 files (") {
		t.Errorf("json run: stderr %q", r.stderr)
	}
	if r := runCLI(t, "", "--no-config", "../../fixtures/repos/kubeadm-ipvs"); r.stderr != "" {
		t.Errorf("text run with findings: stderr %q", r.stderr)
	}
}

// TestVerbose: --verbose says what was read as what and why the rest was skipped.
func TestVerbose(t *testing.T) {
	dir := t.TempDir()
	mustMkdir(t, filepath.Join(dir, ".git"))
	mustWrite(t, filepath.Join(dir, "kp.yaml"), "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n")
	mustWrite(t, filepath.Join(dir, "node", "start.sh"), "#!/bin/sh\nexec kube-proxy --proxy-mode=nftables\n")
	mustWrite(t, filepath.Join(dir, "README.md"), "# docs\n")
	mustWrite(t, filepath.Join(dir, "vendor", "x.yaml"), "a: b\n")
	mustWrite(t, filepath.Join(dir, "build", "out.yaml"), "a: b\n")
	mustWrite(t, filepath.Join(dir, ".gitignore"), "build/\n")
	mustWrite(t, filepath.Join(dir, "app.conf"), "listen 80;\n")
	r := runCLI(t, "", "--verbose", "--no-config", "--target-version", "1.40", dir)
	for _, want := range []string{
		"kube-proxy-lint: read kp.yaml as YAML: KubeProxyConfiguration (name ends in .yaml)\n",
		"kube-proxy-lint: read node/start.sh as text: kube-proxy command line at line 2 (",
		"kube-proxy-lint: skipped README.md: not a kind of file kube-proxy-lint reads (by its name)\n",
		"kube-proxy-lint: skipped vendor/: a directory kube-proxy-lint never enters\n",
		"kube-proxy-lint: skipped build/: ignored by .gitignore\n",
		"kube-proxy-lint: skipped app.conf: read, but it holds nothing kube-proxy-lint checks\n",
		"kube-proxy-lint: kube-proxy instance in cluster .: KubeProxyConfiguration in kp.yaml: mode nftables at 1.40 (config at kp.yaml:3:7)\n",
		"kube-proxy-lint: target 1.40 (from --target-version)\n",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("--verbose lacks %q:\n%s", want, r.stderr)
		}
	}
	if r := runCLI(t, "", "--verbose", "--quiet", dir); r.code != exitError {
		t.Errorf("--verbose --quiet: %d", r.code)
	}
}

// TestConfigBaselineAndRev: baseline, new-from-rev and max-file-size in the configuration
// file; flags win.
func TestConfigBaselineAndRev(t *testing.T) {
	requireLoader(t)
	dir := gitCLIRepo(t)
	t.Chdir(dir)
	r := runCLI(t, "", "--no-config", "--target-version", "1.40", "--write-baseline", "bl.json", ".")
	if r.code != 0 {
		t.Fatalf("--write-baseline: %d %s", r.code, r.stderr)
	}
	mustWrite(t, ".kube-proxy-lint.yaml", "baseline: bl.json\nmax-file-size: 4MiB\n")
	if got := findingsOf(t, 0, "."); len(got) != 0 {
		t.Errorf("baseline from the config file: %q", got)
	}
	if got := findingsOf(t, 1, "--baseline", "", "."); len(got) != 1 {
		t.Errorf("--baseline \"\" turns the file's baseline off: %q", got)
	}
	mustWrite(t, ".kube-proxy-lint.yaml", "new-from-rev: HEAD\n")
	mustWrite(t, "sub/new.yaml", kpc("ipvs"))
	if got, want := findingsOf(t, 1, "."), []string{"sub/new.yaml:3 KP102"}; !reflect.DeepEqual(got, want) {
		t.Errorf("new-from-rev from the config file: %q, want %q", got, want)
	}
	// pre-commit's --only-files replaces it.
	if got, want := findingsOf(t, 1, "--only-files", "old.yaml"), []string{"old.yaml:3 KP102"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--only-files with new-from-rev in the config file: %q, want %q", got, want)
	}
	mustWrite(t, ".kube-proxy-lint.yaml", "baseline: missing.json\n")
	if r := runCLI(t, "", "."); r.code != exitError || !strings.Contains(r.stderr, "baseline") {
		t.Errorf("missing baseline from the config file: %d %s", r.code, r.stderr)
	}
	mustWrite(t, ".kube-proxy-lint.yaml", "max-file-size: 10\n")
	if r := runCLI(t, "", "--format", "json", "."); !strings.Contains(r.stderr, "larger than 10 bytes") {
		t.Errorf("max-file-size from the config file: %s", r.stderr)
	}
	if r := runCLI(t, "", "--max-file-size", "1MiB", "--format", "json", "."); strings.Contains(r.stderr, "larger than") {
		t.Errorf("--max-file-size 1MiB does not win over the file: %s", r.stderr)
	}
	if r := runCLI(t, "", "--max-file-size", "4 parsecs", "."); r.code != exitError || !strings.Contains(r.stderr, "max-file-size") {
		t.Errorf("bad --max-file-size: %d %s", r.code, r.stderr)
	}
}

// TestCompletionBash drives the bash script as bash does and checks the words it offers.
func TestCompletionBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	r := runCLI(t, "", "completion", "bash")
	if r.code != 0 {
		t.Fatalf("completion bash: %d %s", r.code, r.stderr)
	}
	script := filepath.Join(t.TempDir(), "kpl.bash")
	if err := os.WriteFile(script, []byte(r.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	complete := func(words ...string) []string {
		t.Helper()
		// COMP_WORDS as bash splits the line, "=" a word of its own.
		var quoted []string
		for _, w := range words {
			quoted = append(quoted, "'"+w+"'")
		}
		prog := `source "$1"; COMP_WORDS=(` + strings.Join(quoted, " ") + `); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _kube_proxy_lint; printf '%s\n' "${COMPREPLY[@]}"`
		cmd := exec.Command(bash, "-c", prog, "bash", script)
		cmd.Dir = t.TempDir()
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("bash: %v\n%s", err, out)
		}
		return strings.Fields(string(out))
	}
	for _, tc := range []struct {
		words []string
		want  []string
	}{
		{[]string{"kube-proxy-lint", "ex"}, []string{"explain"}},
		{[]string{"kube-proxy-lint", "--fail-on", "w"}, []string{"warning"}},
		{[]string{"kube-proxy-lint", "--format", "=", "sa"}, []string{"sarif"}},
		{[]string{"kube-proxy-lint", "rules", "--format", ""}, []string{"text", "json", "markdown"}},
		// report takes every format of a lint run (issue 23 item 4).
		{[]string{"kube-proxy-lint", "report", "--format", ""}, report.Formats()},
		{[]string{"kube-proxy-lint", "report", "--format", "=", "report-h"}, []string{"report-html"}},
		{[]string{"kube-proxy-lint", "report", "-f", "report-j"}, []string{"report-json"}},
		{[]string{"kube-proxy-lint", "report", "--fail-on", "n"}, []string{"none"}},
		{[]string{"kube-proxy-lint", "explain", "KP10"}, []string{"KP101", "KP102", "KP103", "KP104", "KP105", "KP106"}},
		{[]string{"kube-proxy-lint", "--enable", "mode-ip"}, []string{"mode-ipvs"}},
		{[]string{"kube-proxy-lint", "completion", ""}, []string{"bash", "zsh", "fish"}},
		{[]string{"kube-proxy-lint", "config", ""}, []string{"print"}},
		{[]string{"kube-proxy-lint", "version", "--f"}, []string{"--format"}},
		{[]string{"kube-proxy-lint", "--no-c"}, []string{"--no-config"}},
	} {
		if got := complete(tc.words...); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("complete %q = %q, want %q", tc.words, got, tc.want)
		}
	}
}

// TestCompletionScripts checks the zsh and fish scripts with their shells when installed,
// and that every script offers every flag of every command.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		r := runCLI(t, "", "completion", shell)
		if r.code != 0 {
			t.Fatalf("completion %s: %d %s", shell, r.code, r.stderr)
		}
		for _, c := range completionSpec() {
			for _, f := range c.flags {
				if !strings.Contains(r.stdout, f.name) {
					t.Errorf("%s script lacks --%s of %q", shell, f.name, c.name)
				}
			}
		}
		bin, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s not installed: syntax not checked", shell)
			continue
		}
		out, err := exec.Command(bin, "-n", "-c", r.stdout).CombinedOutput()
		if shell == "fish" {
			out, err = exec.Command(bin, "--no-execute", "-c", r.stdout).CombinedOutput()
		}
		if err != nil {
			t.Errorf("%s -n: %v\n%s", shell, err, out)
		}
	}
	// fish completes from the script like a user's shell does.
	if fish, err := exec.LookPath("fish"); err == nil {
		script := filepath.Join(t.TempDir(), "kpl.fish")
		if err := os.WriteFile(script, []byte(runCLI(t, "", "completion", "fish").stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		for line, want := range map[string]string{
			"kube-proxy-lint --fail-on ":              "error info none warning",
			"kube-proxy-lint rules --format ":         "json markdown text",
			"kube-proxy-lint report --format report-": "report-html report-json report-markdown",
			"kube-proxy-lint completion ":             "bash fish zsh",
		} {
			out, err := exec.Command(fish, "--no-config", "-c", "source $argv[1]; complete -C $argv[2]", script, line).CombinedOutput()
			var words []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				words = append(words, strings.Fields(l + " ")[0])
			}
			sort.Strings(words)
			if err != nil || strings.Join(words, " ") != want {
				t.Errorf("fish complete %q = %q (%v), want %q", line, words, err, want)
			}
		}
	}
	if r := runCLI(t, "", "completion", "tcsh"); r.code != exitError {
		t.Errorf("completion tcsh: %d", r.code)
	}
}

// TestManPageUpToDate keeps docs/man/kube-proxy-lint.1 generated from the flag sets, and lets
// groff check it when installed.
func TestManPageUpToDate(t *testing.T) {
	page := manPage()
	got, err := os.ReadFile(filepath.Join("..", "..", ManFile))
	if err != nil || string(got) != page {
		t.Errorf("%s is stale or missing (%v); run make docs", ManFile, err)
	}
	for _, c := range commands {
		if !strings.Contains(page, ".SS "+c.name) {
			t.Errorf("man page lacks %s", c.name)
		}
	}
	var lf lintFlags
	newLintFlagSet(&lf).VisitAll(func(f *pflag.Flag) {
		if f.Hidden {
			// Developer flags (--cpu-profile): not in --help, so not in the man page.
			return
		}
		if !strings.Contains(page, `\fB\-\-`+roff(f.Name)+`\fR`) {
			t.Errorf("man page lacks --%s", f.Name)
		}
	})
	groff, err := exec.LookPath("groff")
	if err != nil {
		t.Skip("groff not installed")
	}
	cmd := exec.Command(groff, "-man", "-Tutf8", "-ww", "-z")
	cmd.Stdin = strings.NewReader(page)
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Errorf("groff warns: %v\n%s", err, out)
	}
}

// TestGitHubAnnotationsInActions: in GitHub Actions, annotations name files relative to the
// repository root (GITHUB_WORKSPACE) also from a subdirectory; the text output stays relative
// to the current directory.
func TestGitHubAnnotationsInActions(t *testing.T) {
	requireLoader(t)
	defaultRules(t)
	dir := repo(t)
	t.Setenv("GITHUB_ACTIONS", "true")
	t.Setenv("GITHUB_WORKSPACE", dir)
	t.Chdir(filepath.Join(dir, "deploy"))
	r := runCLI(t, "", "--fail-on", "none", "--format", "github", ".")
	if !strings.Contains(r.stdout, "file=deploy/kube-proxy.yaml,") {
		t.Errorf("annotation not relative to GITHUB_WORKSPACE:\n%s", r.stdout)
	}
	if r := runCLI(t, "", "--fail-on", "none", "--format", "text", "."); !strings.Contains(r.stdout, "\nkube-proxy.yaml:1:1") && !strings.HasPrefix(r.stdout, "kube-proxy.yaml:1:1") {
		t.Errorf("text output in Actions:\n%s", r.stdout)
	}
}

// Issue 23 item 4: every command's --help, completion scripts and the manual come from the
// command table, so report's shows report's defaults and its --format completes to the
// formats it takes.
func TestCommandTableHelpAndCompletion(t *testing.T) {
	for _, c := range commands {
		r := runCLI(t, "", c.name, "--help")
		if r.code != exitOK {
			t.Fatalf("%s --help: exit %d, stderr %q", c.name, r.code, r.stderr)
		}
		if !strings.Contains(r.stdout, flagUsages(c.flags())) {
			t.Errorf("%s --help does not list the command table's flags:\n%s", c.name, r.stdout)
		}
		fs := c.flags()
		if fs.Lookup("format") != nil && len(c.formats) == 0 {
			t.Errorf("%s: --format has no values in the command table", c.name)
		}
	}
	help := runCLI(t, "", "report", "--help").stdout
	for _, want := range []string{"repeatable (default report-markdown)", `(default "none")`} {
		if !strings.Contains(help, want) {
			t.Errorf("report --help lacks %q", want)
		}
	}
	for _, wrong := range []string{"(default text)", `(default "error")`} {
		if strings.Contains(help, wrong) {
			t.Errorf("report --help shows the lint command's default %q", wrong)
		}
	}
	// And what it says is what report does: fail-on none, report-markdown on stdout.
	t.Chdir("../..")
	r := runCLI(t, "", "report", "--quiet", "fixtures/repos/kubeadm-ipvs")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "## kube-proxy migration readiness") {
		t.Errorf("report: exit %d, output %.80q", r.code, r.stdout)
	}
	main := runCLI(t, "", "--help").stdout
	for _, want := range []string{"repeatable (default text)", `(default "error")`} {
		if !strings.Contains(main, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	formats := strings.Join(report.Formats(), " ")
	for shell, want := range map[string]string{
		"bash": `"report --format"|"report -f")` + "\n" + `            COMPREPLY=($(compgen -W "` + formats + `"`,
		"zsh":  "    (report)\n      _arguments -s -S \\\n        '*(-f --format)'{-f,--format}'[add an output in FORMAT=FILE, written to FILE when given]:value:(" + formats + ")'",
		"fish": "complete -c kube-proxy-lint -n '__fish_seen_subcommand_from report' -l format -s f -x -a '" + formats + "'",
	} {
		if script := runCLI(t, "", "completion", shell).stdout; !strings.Contains(script, want) {
			t.Errorf("%s completion: report --format does not offer the formats; want\n%s", shell, want)
		}
	}
}

// Issue 23 item 5: a YAML error in the configuration file names file:line:col and keeps the
// quoted syntax characters, as manifests' KP001 findings do.
func TestConfigSyntaxError(t *testing.T) {
	dir := ipvsRepo(t, "")
	t.Chdir(dir)
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "fail-on: error\ntarget-version: \"1.40\"\nenable: [KP101,\n  KP102\ndisable: []\n")
	for _, args := range [][]string{{"deploy"}, {"config", "print"}, {"rules"}} {
		r := runCLI(t, "", args...)
		want := "kube-proxy-lint: parse config .kube-proxy-lint.yaml:3:9: did not find expected ',' or ']'\n"
		if r.code != exitError || r.stderr != want {
			t.Errorf("%v: exit %d, stderr %q, want %q", args, r.code, r.stderr, want)
		}
	}
}
