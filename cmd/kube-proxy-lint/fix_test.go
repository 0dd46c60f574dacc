package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
)

// fixTree is a small cluster with fixes of both kinds, for the real rules at target 1.40:
//
//	ds.yaml      a kube-proxy DaemonSet with two flags --config makes it ignore (KP201, safe)
//	cm.yaml      its ConfigMap: mode ipvs (KP102, unsafe) and udpIdleTimeout (KP002, safe)
//	kpc.yaml     a standalone configuration without a mode, CRLF, mode 0600 (KP101, safe)
var fixTree = map[string]string{
	"ds.yaml": `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-proxy
  namespace: kube-system
spec:
  template:
    spec:
      containers:
      - name: kube-proxy
        image: registry.k8s.io/kube-proxy:v1.39.0
        command:
        - /usr/local/bin/kube-proxy
        - --config=/var/lib/kube-proxy/config.conf
        - --proxy-mode=iptables
        - --ipvs-scheduler=rr
        volumeMounts:
        - name: kube-proxy
          mountPath: /var/lib/kube-proxy
      volumes:
      - name: kube-proxy
        configMap:
          name: kube-proxy
`,
	"cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: ipvs
    udpIdleTimeout: 250ms
    nodePortAddresses: ["primary"]
`,
	"kpc.yaml": "# standalone\r\napiVersion: kubeproxy.config.k8s.io/v1alpha1\r\nkind: KubeProxyConfiguration\r\nnodePortAddresses: [\"primary\"]\r\n",
}

// writeTree writes files into a new directory, kpc.yaml with mode 0600.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		mustMkdir(t, filepath.Dir(p))
		mustWrite(t, p, content)
	}
	if _, ok := files["kpc.yaml"]; ok {
		if err := os.Chmod(filepath.Join(dir, "kpc.yaml"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// safeFixed is fixTree after --fix.
var safeFixed = map[string]string{
	"ds.yaml": strings.Replace(fixTree["ds.yaml"], "        - --proxy-mode=iptables\n        - --ipvs-scheduler=rr\n", "", 1),
	"cm.yaml": strings.Replace(fixTree["cm.yaml"], "    udpIdleTimeout: 250ms\n", "", 1),
	"kpc.yaml": strings.Replace(fixTree["kpc.yaml"], "kind: KubeProxyConfiguration\r\n",
		"kind: KubeProxyConfiguration\r\nmode: iptables\r\n", 1),
}

func TestFixAppliesSafeFixes(t *testing.T) {
	dir := writeTree(t, fixTree)
	r := runCLI(t, "", "--fix", "--target-version", "1.40", "--color", "never", dir)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (KP102 is left)\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	got := readTree(t, dir)
	for name, want := range safeFixed {
		if got[name] != want {
			t.Errorf("%s after --fix:\n%s\nwant:\n%s", name, got[name], want)
		}
	}
	if runtime.GOOS != "windows" {
		if st, err := os.Stat(filepath.Join(dir, "kpc.yaml")); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("kpc.yaml lost its mode: %v %v", st.Mode(), err)
		}
	}
	for _, want := range []string{
		"kube-proxy-lint: fixed 4 findings in 3 files: KP002 (1), KP101 (1), KP106 (1), KP201 (1)\n",
		"kube-proxy-lint: 1 more finding has an unsafe fix, which changes behaviour: KP102 (1); --fix --unsafe-fixes applies them",
	} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	// What is left is reported as a run without --fix would report it.
	if !strings.Contains(r.stdout, "cm.yaml:10:11: error: kube-proxy mode ipvs") || strings.Contains(r.stdout, "KP201") ||
		!strings.Contains(r.stdout, "fix (unsafe): Set mode to nftables") {
		t.Errorf("report of the findings left:\n%s", r.stdout)
	}
	plain := runCLI(t, "", "--target-version", "1.40", "--color", "never", dir)
	if plain.stdout != r.stdout || plain.code != r.code {
		t.Errorf("the report after --fix differs from a plain run:\n%s\n---\n%s", r.stdout, plain.stdout)
	}
	// Idempotent: a second --fix changes nothing.
	r2 := runCLI(t, "", "--fix", "--target-version", "1.40", "--color", "never", dir)
	if again := readTree(t, dir); !equalTrees(again, got) {
		t.Errorf("second --fix changed files")
	}
	if !strings.Contains(r2.stderr, "kube-proxy-lint: no fix applied\n") || r2.code != 1 {
		t.Errorf("second --fix: exit %d, stderr %s", r2.code, r2.stderr)
	}
}

func equalTrees(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestFixUnsafe(t *testing.T) {
	dir := writeTree(t, fixTree)
	r := runCLI(t, "", "--fix", "--unsafe-fixes", "--target-version", "1.40", "--quiet", dir)
	got := readTree(t, dir)
	if want := strings.Replace(safeFixed["cm.yaml"], "mode: ipvs", "mode: nftables", 1); got["cm.yaml"] != want {
		t.Errorf("cm.yaml after --fix --unsafe-fixes:\n%s\nwant:\n%s", got["cm.yaml"], want)
	}
	if r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want a clean, quiet run", r.code, r.stdout, r.stderr)
	}
}

// TestDiff checks --diff: exit 1 and nothing written when there is something to fix, the
// same changes as --fix, and the output of git diff --no-index.
func TestDiff(t *testing.T) {
	dir := writeTree(t, fixTree)
	r := runCLI(t, "", "--diff", "--target-version", "1.40", dir)
	if r.code != 1 {
		t.Fatalf("--diff: exit %d, want 1\n%s", r.code, r.stderr)
	}
	if got := readTree(t, dir); !equalTrees(got, fixTree) {
		t.Errorf("--diff wrote files")
	}
	if !strings.Contains(r.stderr, "kube-proxy-lint: would fix 4 findings in 3 files") {
		t.Errorf("stderr: %s", r.stderr)
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	// git diff --no-index between the tree and the --fix result.
	base := t.TempDir()
	orig, fixed := filepath.Join(base, "orig"), filepath.Join(base, "fixed")
	for _, d := range []string{orig, fixed} {
		for name, content := range fixTree {
			mustWrite(t, filepath.Join(d, name), content)
		}
	}
	if r := runCLI(t, "", "--fix", "--target-version", "1.40", "--quiet", fixed); r.code != 1 {
		t.Fatalf("--fix: exit %d", r.code)
	}
	cmd := exec.Command("git", "diff", "--no-index", "--no-color", "--no-ext-diff", "orig", "fixed")
	cmd.Dir = base
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
		t.Fatalf("git diff: %v", err)
	}
	var want []string
	for _, line := range strings.SplitAfter(string(out), "\n") {
		if strings.HasPrefix(line, "diff --git ") || strings.HasPrefix(line, "index ") {
			continue
		}
		line = strings.Replace(line, "--- a/orig/", "--- a/", 1)
		line = strings.Replace(line, "+++ b/fixed/", "+++ b/", 1)
		want = append(want, line)
	}
	if r.stdout != strings.Join(want, "") {
		t.Errorf("--diff differs from git diff --no-index:\n%s\n--- git\n%s", r.stdout, strings.Join(want, ""))
	}
	// And it applies.
	ap := exec.Command("git", "apply", "--unsafe-paths", "-")
	ap.Dir = orig
	ap.Stdin = strings.NewReader(r.stdout)
	if out, err := ap.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v: %s", err, out)
	}
	if a, b := readTree(t, orig), readTree(t, fixed); !equalTrees(a, b) {
		t.Errorf("the applied diff differs from --fix")
	}
	// Nothing left to fix: exit 0, no diff.
	clean := runCLI(t, "", "--diff", "--target-version", "1.40", fixed)
	if clean.code != 0 || clean.stdout != "" {
		t.Errorf("--diff on fixed files: exit %d, stdout %q", clean.code, clean.stdout)
	}
}

func TestDiffOutputs(t *testing.T) {
	dir := writeTree(t, fixTree)
	r := runCLI(t, "", "--diff", "--format", "json", dir)
	if r.code != 2 || !strings.Contains(r.stderr, "parse --diff: the diff is printed on stdout; send the json output to a file") {
		t.Errorf("--diff --format json: exit %d, %s", r.code, r.stderr)
	}
	out := filepath.Join(t.TempDir(), "report.json")
	r = runCLI(t, "", "--diff", "--quiet", "--target-version", "1.40", "--format", "json="+out, dir)
	if r.code != 1 || !strings.HasPrefix(r.stdout, "--- a/") {
		t.Errorf("--diff --format json=FILE: exit %d, stdout %q", r.code, r.stdout)
	}
	if b, err := os.ReadFile(out); err != nil || !bytes.Contains(b, []byte(`"safety": "safe"`)) {
		t.Errorf("report file: %v\n%s", err, b)
	}
	for _, args := range [][]string{{"--unsafe-fixes"}, {"--fix", "--write-baseline", out}} {
		if r := runCLI(t, "", append(args, dir)...); r.code != 2 {
			t.Errorf("%v: exit %d, want a usage error: %s", args, r.code, r.stderr)
		}
	}
}

func TestFixStdinPrintsDiff(t *testing.T) {
	in := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnodePortAddresses: [\"primary\"]\n"
	r := runCLI(t, in, "--fix", "--target-version", "1.40", "--stdin-filename", "kp.yaml", "-")
	want := "--- a/kp.yaml\n+++ b/kp.yaml\n@@ -1,3 +1,4 @@\n apiVersion: kubeproxy.config.k8s.io/v1alpha1\n kind: KubeProxyConfiguration\n+mode: iptables\n nodePortAddresses: [\"primary\"]\n"
	if r.code != 1 || r.stdout != want {
		t.Errorf("exit %d, stdout:\n%s\nwant:\n%s", r.code, r.stdout, want)
	}
	if !strings.Contains(r.stderr, "--fix does not write standard input: printing the diff instead") {
		t.Errorf("stderr: %s", r.stderr)
	}
}

func TestFixRevPrintsDiff(t *testing.T) {
	dir := gitCLIRepo(t)
	t.Chdir(dir)
	before := readTree(t, filepath.Join(dir, "sub"))
	r := runCLI(t, "", "--fix", "--unsafe-fixes", "--rev", "HEAD", "--target-version", "1.40", ".")
	if r.code != 1 || !strings.Contains(r.stdout, "--- a/old.yaml\n+++ b/old.yaml\n") || !strings.Contains(r.stdout, "+mode: nftables\n") {
		t.Errorf("exit %d, stdout:\n%s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "--fix does not write the files of a Git revision (--rev): printing the diff instead") {
		t.Errorf("stderr: %s", r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "old.yaml")); string(b) != kpc("ipvs") {
		t.Errorf("old.yaml was written: %q", b)
	}
	if after := readTree(t, filepath.Join(dir, "sub")); !equalTrees(before, after) {
		t.Errorf("sub/ changed")
	}
}

func TestFixNeverThroughSymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	base := t.TempDir()
	repo, outside := filepath.Join(base, "repo"), filepath.Join(base, "outside")
	noMode := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnodePortAddresses: [\"primary\"]\n"
	mustWrite(t, filepath.Join(outside, "kp.yaml"), noMode)
	mustWrite(t, filepath.Join(repo, "real.yaml"), noMode)
	if err := os.Symlink(filepath.Join(outside, "kp.yaml"), filepath.Join(repo, "link.yaml")); err != nil {
		t.Fatal(err)
	}
	r := runCLI(t, "", "--fix", "--target-version", "1.40", filepath.Join(repo, "link.yaml"), filepath.Join(repo, "real.yaml"))
	if b, _ := os.ReadFile(filepath.Join(outside, "kp.yaml")); string(b) != noMode {
		t.Errorf("wrote through the link: %q", b)
	}
	if fi, err := os.Lstat(filepath.Join(repo, "link.yaml")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(repo, "real.yaml")); !strings.Contains(string(b), "mode: iptables") {
		t.Errorf("real.yaml not fixed: %q", b)
	}
	// A link out of the tree is not even read (issue 11), so there is nothing to fix in it,
	// and a named file that was not linted makes the run exit 2.
	if r.code != exitError || !strings.Contains(r.stderr, "link.yaml: symlink points outside the linted tree") {
		t.Errorf("stderr does not say why link.yaml was left: %s", r.stderr)
	}
}

// TestFixRollsBack: the ipvs fix of a JSON configuration uncovers KP301, which has no fix in
// a flow mapping, so the fix is rolled back and said so.
func TestFixRollsBack(t *testing.T) {
	// The ipvs fix of a JSON configuration uncovers KP301's advice (nodePortAddresses unset, no
	// NodePort Service in the cluster), which JSON gives no fix for: advice is a follow-up
	// printed after the fix, not a reason to undo it (rollbacks for new warnings: checker/fix).
	content := `{"apiVersion": "kubeproxy.config.k8s.io/v1alpha1", "kind": "KubeProxyConfiguration", "mode": "ipvs"}` + "\n"
	dir := writeTree(t, map[string]string{"kp.json": content})
	r := runCLI(t, "", "--fix", "--unsafe-fixes", "--target-version", "1.40", dir)
	if b, _ := os.ReadFile(filepath.Join(dir, "kp.json")); !strings.Contains(string(b), `"mode": "nftables"`) {
		t.Errorf("kp.json not fixed: %s", b)
	}
	for _, want := range []string{"fixed 1 finding in 1 file: KP102 (1)", "1 finding to follow up", "kp.json:1:52: KP301 (nodeport-addresses-narrowed)"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
}

// TestFixOnlyFiles: with --only-files (the pre-commit hooks), fixes apply to the named files
// only.
func TestFixOnlyFiles(t *testing.T) {
	dir := gitCLIRepo(t)
	t.Chdir(dir)
	noMode := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nnodePortAddresses: [\"primary\"]\n"
	mustWrite(t, filepath.Join(dir, "staged.yaml"), noMode)
	mustWrite(t, filepath.Join(dir, "other.yaml"), noMode)
	r := runCLI(t, "", "--only-files", "--fix", "--target-version", "1.40", "staged.yaml")
	files := readTree(t, dir)
	if !strings.Contains(files["staged.yaml"], "mode: iptables") || files["other.yaml"] != noMode {
		t.Errorf("staged.yaml %q, other.yaml %q", files["staged.yaml"], files["other.yaml"])
	}
	if r.code != 0 {
		t.Errorf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
}

// TestPreCommitFixHook checks that the fixing hooks exist and run --fix on the staged files.
func TestPreCommitFixHook(t *testing.T) {
	b, err := os.ReadFile("../../.pre-commit-hooks.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, line := range strings.Split(string(b), "\n") {
		if id, ok := strings.CutPrefix(line, "- id: "); ok {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	if i := sort.SearchStrings(ids, "kube-proxy-lint-fix"); i == len(ids) || ids[i] != "kube-proxy-lint-fix" {
		t.Fatalf("no kube-proxy-lint-fix hook in %v", ids)
	}
	if !strings.Contains(string(b), "entry: kube-proxy-lint --only-files --fix\n") {
		t.Errorf("the fix hook does not run --only-files --fix")
	}
}
