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
)

// gitCLIRepo creates a repository for the real rules: old.yaml (mode ipvs,
// committed) and sub/ (a clean configuration), with one commit.
func gitCLIRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// The real rules: registry is rules.All unless a test replaced it.
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	dir := t.TempDir()
	mustWrite(t, filepath.Join(dir, "old.yaml"), kpc("ipvs"))
	mustMkdir(t, filepath.Join(dir, "sub"))
	mustWrite(t, filepath.Join(dir, "sub", "kp.yaml"), kpc("nftables"))
	gitIn(t, dir, "init", "-q", "-b", "main")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "base")
	return dir
}

func kpc(mode string) string {
	return "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: " + mode + "\n"
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// findingsOf runs the CLI with JSON output and returns "file:line RULE" of each finding.
func findingsOf(t *testing.T, wantCode int, args ...string) []string {
	t.Helper()
	// Two rules only, so that rules added later do not change these expectations.
	r := runCLI(t, "", append([]string{"--format", "json", "--target-version", "1.40", "--quiet",
		"--disable", "all", "--enable", "KP102,KP105"}, args...)...)
	if r.code != wantCode {
		t.Fatalf("%q: exit %d, want %d\nstdout: %s\nstderr: %s", args, r.code, wantCode, r.stdout, r.stderr)
	}
	var env struct {
		Findings []struct {
			RuleID string `json:"ruleId"`
			Pos    struct {
				File string `json:"file"`
				Line int    `json:"line"`
			} `json:"pos"`
		} `json:"findings"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
		t.Fatalf("%q: %v\n%s", args, err, r.stdout)
	}
	out := []string{}
	for _, f := range env.Findings {
		out = append(out, f.Pos.File+":"+itoa(f.Pos.Line)+" "+f.RuleID)
	}
	sort.Strings(out)
	return out
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestNewFromRev(t *testing.T) {
	dir := gitCLIRepo(t)
	// A new finding on an added line of the old file, and a new untracked file.
	mustWrite(t, filepath.Join(dir, "old.yaml"), kpc("ipvs")+"featureGates:\n  NoSuchGate: true\n")
	mustWrite(t, filepath.Join(dir, "sub", "new.yaml"), kpc("ipvs"))
	// From a subdirectory, names stay relative to the repository root.
	t.Chdir(filepath.Join(dir, "sub"))

	all := findingsOf(t, 1, "..")
	want := []string{"old.yaml:3 KP102", "old.yaml:5 KP105", "sub/new.yaml:3 KP102"}
	if !reflect.DeepEqual(all, want) {
		t.Fatalf("all findings = %q, want %q", all, want)
	}
	if got, want := findingsOf(t, 1, "--new-from-rev", "HEAD", ".."), []string{"old.yaml:5 KP105", "sub/new.yaml:3 KP102"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--new-from-rev HEAD = %q, want %q", got, want)
	}
	if got := findingsOf(t, 1, "--new-from-rev", "HEAD", "--whole-files", ".."); !reflect.DeepEqual(got, all) {
		t.Errorf("--whole-files = %q, want every finding of the changed files %q", got, all)
	}
	// Only the linted paths are reported, but relative to the root.
	if got, want := findingsOf(t, 1, "--new-from-rev", "HEAD", "."), []string{"sub/new.yaml:3 KP102"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--new-from-rev HEAD . = %q, want %q", got, want)
	}
	r := runCLI(t, "", "--new-from-rev", "no-such-rev", "..")
	if r.code != exitError || !strings.Contains(r.stderr, `resolve revision "no-such-rev"`) {
		t.Errorf("unknown revision: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestNewFromMergeBase(t *testing.T) {
	dir := gitCLIRepo(t)
	gitIn(t, dir, "checkout", "-q", "-b", "feature")
	mustWrite(t, filepath.Join(dir, "sub", "kp.yaml"), kpc("ipvs"))
	gitIn(t, dir, "commit", "-q", "-am", "feature: ipvs")
	gitIn(t, dir, "checkout", "-q", "main")
	mustWrite(t, filepath.Join(dir, "old.yaml"), kpc("nftables"))
	gitIn(t, dir, "commit", "-q", "-am", "main: fix old.yaml")
	gitIn(t, dir, "checkout", "-q", "feature")
	t.Chdir(dir)

	// Against main itself, old.yaml differs too (main fixed it); against the merge base, only
	// the feature's own change counts.
	if got, want := findingsOf(t, 1, "--new-from-rev", "main"), []string{"old.yaml:3 KP102", "sub/kp.yaml:3 KP102"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--new-from-rev main = %q, want %q", got, want)
	}
	if got, want := findingsOf(t, 1, "--new-from-merge-base", "main"), []string{"sub/kp.yaml:3 KP102"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--new-from-merge-base main = %q, want %q", got, want)
	}
	// --rev with --new-from-merge-base: what main's tip would add since the merge base.
	if got := findingsOf(t, 0, "--rev", "main", "--new-from-merge-base", "feature"); len(got) != 0 {
		t.Errorf("--rev main --new-from-merge-base feature = %q, want nothing", got)
	}
}

func TestRev(t *testing.T) {
	dir := gitCLIRepo(t)
	mustWrite(t, filepath.Join(dir, "old.yaml"), kpc("nftables"))
	gitIn(t, dir, "commit", "-q", "-am", "fix")
	mustWrite(t, filepath.Join(dir, "sub", "kp.yaml"), "broken: [")
	t.Chdir(filepath.Join(dir, "sub"))

	// HEAD~1 still had mode ipvs; the broken work-tree file is not read.
	if got, want := findingsOf(t, 1, "--rev", "HEAD~1", ".."), []string{"old.yaml:3 KP102"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--rev HEAD~1 = %q, want %q", got, want)
	}
	if got := findingsOf(t, 0, "--rev", "HEAD", ".."); len(got) != 0 {
		t.Errorf("--rev HEAD = %q, want nothing", got)
	}
	// Paths are relative to the current directory and select part of the tree.
	if got := findingsOf(t, 0, "--rev", "HEAD~1", "."); len(got) != 0 {
		t.Errorf("--rev HEAD~1 . (sub only) = %q, want nothing", got)
	}
	r := runCLI(t, "", "--rev", "HEAD", "--format", "sarif", "--disable", "all", "--enable", "KP102", "..")
	if r.code != 0 || !strings.Contains(r.stdout, `"uri": "file://`) {
		t.Errorf("--rev SARIF: exit %d, want a %%SRCROOT%% at the repository root:\n%s", r.code, r.stdout)
	}
}

func TestOnlyFiles(t *testing.T) {
	dir := gitCLIRepo(t)
	mustWrite(t, filepath.Join(dir, "sub", "kp.yaml"), kpc("ipvs"))
	t.Chdir(filepath.Join(dir, "sub"))
	// The whole repository is loaded; only the named file's findings are reported.
	if got, want := findingsOf(t, 1, "--only-files", "kp.yaml"), []string{"sub/kp.yaml:3 KP102"}; !reflect.DeepEqual(got, want) {
		t.Errorf("--only-files kp.yaml = %q, want %q", got, want)
	}
	if got := findingsOf(t, 0, "--only-files", "deleted.yaml"); len(got) != 0 {
		t.Errorf("--only-files of a file without findings = %q", got)
	}
	// Notices about other files are not repeated on every commit.
	mustWrite(t, filepath.Join(dir, "bin.yaml"), "a\x00b")
	if r := runCLI(t, "", "--only-files", "kp.yaml"); strings.Contains(r.stderr, "bin.yaml") {
		t.Errorf("--only-files printed a notice about another file: %q", r.stderr)
	}
	if r := runCLI(t, "", "--only-files", "../bin.yaml"); !strings.Contains(r.stderr, "bin.yaml") {
		t.Errorf("--only-files hid the notice about the named file: %q", r.stderr)
	}
}

func TestGitFlagUsageErrors(t *testing.T) {
	defaultRules(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--new-from-rev", "a", "--new-from-merge-base", "b"}, "cannot be combined with --new-from-merge-base"},
		{[]string{"--whole-files"}, "--whole-files: it needs --new-from-rev"},
		{[]string{"--only-files", "--new-from-rev", "HEAD", "x"}, "--only-files: it cannot be combined"},
		{[]string{"--only-files", "--rev", "HEAD", "x"}, "--only-files: it cannot be combined with --rev"},
		{[]string{"--rev", "HEAD", "-"}, "stdin"},
		{[]string{"--rev=--output=x"}, "not a revision"},
	} {
		r := runCLI(t, "", tc.args...)
		if r.code != exitError || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

func TestLinkBase(t *testing.T) {
	t.Setenv("GITHUB_SERVER_URL", "https://github.com")
	t.Setenv("GITHUB_REPOSITORY", "o/r")
	t.Setenv("GITHUB_SHA", "abc")
	g := gitFlags{}
	if got := g.linkBaseURL(); got != "https://github.com/o/r/blob/abc/" {
		t.Errorf("from the environment: %q", got)
	}
	g.linkBase = "https://example.com/tree"
	if got := g.linkBaseURL(); got != "https://example.com/tree/" {
		t.Errorf("--link-base: %q", got)
	}
}

func TestHelpGitFlags(t *testing.T) {
	r := runCLI(t, "", "--help")
	for _, s := range []string{
		"--new-from-rev REV", "--new-from-merge-base REV", "--whole-files", "--rev REV", "--only-files",
		"--link-base URL", "github", "rdjson", "rdjsonl", "checkstyle", "markdown",
	} {
		if !strings.Contains(r.stdout, s) {
			t.Errorf("--help lacks %q", s)
		}
	}
}

// TestOnlyFilesRelated: --only-files reports a finding in another file when its evidence in a
// named file is on a changed line (the staged edit made it), not when the named file changed
// elsewhere (the finding is old and must not block an unrelated commit).
func TestOnlyFilesRelated(t *testing.T) {
	dir := gitCLIRepo(t)
	src := filepath.Join("..", "..", "fixtures", "repos", "kubeadm-ipvs", "kube-system")
	for _, name := range []string{"kube-proxy-configmap.yaml", "kube-proxy-daemonset.yaml"} {
		b, err := os.ReadFile(filepath.Join(src, name))
		if err != nil {
			t.Fatal(err)
		}
		mustWrite(t, filepath.Join(dir, "ks", name), string(b))
	}
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "kube-system")
	cm := filepath.Join(dir, "ks", "kube-proxy-configmap.yaml")
	orig, err := os.ReadFile(cm)
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	dsFindings := func(args ...string) []string {
		t.Helper()
		r := runCLI(t, "", append([]string{"--format", "json", "--target-version", "1.40", "--quiet", "--fail-on", "none",
			"--disable", "all", "--enable", "KP106,KP201"}, args...)...)
		var env struct {
			Findings []struct {
				Pos struct {
					File string `json:"file"`
					Line int    `json:"line"`
				} `json:"pos"`
			} `json:"findings"`
		}
		if err := json.Unmarshal([]byte(r.stdout), &env); err != nil {
			t.Fatalf("%q: %v\n%s%s", args, err, r.stdout, r.stderr)
		}
		out := []string{}
		for _, f := range env.Findings {
			out = append(out, f.Pos.File+":"+itoa(f.Pos.Line))
		}
		return out
	}
	if got := dsFindings("--only-files", "ks/kube-proxy-daemonset.yaml"); len(got) == 0 {
		t.Fatal("no finding in the DaemonSet: the fixture changed")
	}
	// An unrelated edit of the ConfigMap: the DaemonSet's old finding is not reported.
	mustWrite(t, cm, strings.Replace(string(orig), "    app: kube-proxy\n", "    app: kube-proxy\n    team: net\n", 1))
	if got := dsFindings("--only-files", "ks/kube-proxy-configmap.yaml"); len(got) != 0 {
		t.Errorf("unrelated ConfigMap edit reports %q", got)
	}
	// An edit of the line the finding rests on: it is reported.
	mustWrite(t, cm, strings.Replace(string(orig), "    mode: ipvs\n", "    mode: nftables\n", 1))
	if got := dsFindings("--only-files", "ks/kube-proxy-configmap.yaml"); len(got) == 0 || !strings.HasPrefix(got[0], "ks/kube-proxy-daemonset.yaml:") {
		t.Errorf("ConfigMap mode edit reports %q, want the DaemonSet's finding (KP106)", got)
	}
	// Every file named (pre-commit run --all-files): everything.
	mustWrite(t, cm, string(orig))
	if got := dsFindings("--only-files", "ks/kube-proxy-configmap.yaml", "ks/kube-proxy-daemonset.yaml"); len(got) == 0 {
		t.Error("--all-files style run reports nothing")
	}
}
