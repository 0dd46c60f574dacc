package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/internal/hostile"
)

// The tests of this file each build one hostile repository of issue 11 (internal/hostile,
// fixtures/hostile/README.md) and run the command on it. A run that would hang is caught by a
// deadline (hangDeadline), never by timing how fast it was.

// hangDeadline is generous: it only tells a hang from a slow machine.
const hangDeadline = 60 * time.Second

// runWithin runs the CLI in a goroutine and fails the test when it does not return before
// hangDeadline.
func runWithin(t *testing.T, stdin io.Reader, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
	defer cancel()
	done := make(chan result, 1)
	go func() {
		var out, errb bytes.Buffer
		code := run(args, stdin, &out, &errb)
		done <- result{code, out.String(), errb.String()}
	}()
	select {
	case r := <-done:
		return r
	case <-ctx.Done():
		t.Fatalf("kube-proxy-lint %v did not return: it hangs", args)
		return result{}
	}
}

const secret = "-----BEGIN OPENSSH PRIVATE KEY-----\nS3CR3TS3CR3T\n-----END OPENSSH PRIVATE KEY-----\n"

// secretFile writes a private key outside the repository and returns its path.
func secretFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "id_ed25519")
	mustWrite(t, p, secret)
	return p
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skip("symlinks not supported:", err)
	}
}

// Item 1: a configuration file, baseline or policy planted as a link to a private key is
// never read, and no error shows its content.
func TestHostileLinkedConfigBaselinePolicies(t *testing.T) {
	key := secretFile(t)
	dir := ipvsRepo(t, "")
	t.Chdir(dir)
	symlink(t, key, filepath.Join(dir, ".kube-proxy-lint.yaml"))
	r := runWithin(t, nil, ".")
	if r.code != exitError || strings.Contains(r.stderr, "S3CR3T") || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("linked config: exit %d, stderr %q", r.code, r.stderr)
	}
	if err := os.Remove(".kube-proxy-lint.yaml"); err != nil {
		t.Fatal(err)
	}
	symlink(t, key, filepath.Join(dir, "baseline.json"))
	r = runWithin(t, nil, "--baseline", "baseline.json", ".")
	if r.code != exitError || strings.Contains(r.stderr, "S3CR3T") || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("linked baseline: exit %d, stderr %q", r.code, r.stderr)
	}
	// A regular config that is not YAML at all, and one with the key as a value.
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), secret)
	if r := runWithin(t, nil, "."); r.code != exitError || strings.Contains(r.stderr, "S3CR3T") {
		t.Errorf("key as config: exit %d, stderr %q", r.code, r.stderr)
	}
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "S3CR3TS3CR3T: x\ntarget-version: S3CR3TS3CR3T\n")
	if r := runWithin(t, nil, "."); r.code != exitError || strings.Contains(r.stderr, "S3CR3T") {
		t.Errorf("bad config: exit %d, stderr %q", r.code, r.stderr)
	}
	// policy-dirs that leave the repository, or hold a link to the key.
	outside := filepath.Dir(key)
	mustWrite(t, filepath.Join(outside, "leak.rego"), "package x\n")
	for _, dirs := range []string{outside, "../" + filepath.Base(outside), "/dev/zero"} {
		mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "policy-dirs: ["+dirs+"]\n")
		if r := runWithin(t, nil, "."); r.code != exitError || !strings.Contains(r.stderr, "outside the repository") {
			t.Errorf("policy-dirs %s: exit %d, stderr %q", dirs, r.code, r.stderr)
		}
	}
	mustMkdir(t, filepath.Join(dir, "policies"))
	symlink(t, key, filepath.Join(dir, "policies", "p.rego"))
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "policy-dirs: [policies]\n")
	if r := runWithin(t, nil, "."); r.code != exitError || strings.Contains(r.stderr, "S3CR3T") || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("linked policy: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runWithin(t, nil, "--no-repo-policies", "--target-version", "1.40", "."); r.code != exitFindings {
		t.Errorf("--no-repo-policies: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Item 9: devices and FIFOs planted as .gitignore, policy-dirs, lint arguments or outputs.
func TestHostileDevicesAndFIFOs(t *testing.T) {
	dir := ipvsRepo(t, "")
	t.Chdir(dir)
	symlink(t, "/dev/zero", filepath.Join(dir, ".gitignore"))
	mkfifo(t, filepath.Join(dir, "deploy", ".gitignore"))
	r := runWithin(t, nil, "--target-version", "1.40", ".")
	if r.code != exitFindings || !strings.Contains(r.stdout, "KP102") || !strings.Contains(r.stderr, "notice: .gitignore: not read: is a symbolic link") || !strings.Contains(r.stderr, "notice: deploy/.gitignore: not read: is not a regular file") {
		t.Errorf(".gitignore devices: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	mkfifo(t, filepath.Join(dir, "fifo.yaml"))
	r = runWithin(t, nil, "fifo.yaml")
	if r.code != exitError || !strings.Contains(r.stderr, "fifo.yaml: not a regular file") {
		t.Errorf("explicit FIFO: exit %d, stderr %q", r.code, r.stderr)
	}
	// Walked, the FIFO is a notice, not a hang.
	if r := runWithin(t, nil, "--target-version", "1.40", "."); r.code != exitFindings || !strings.Contains(r.stderr, "notice: fifo.yaml: not a regular file") {
		t.Errorf("walked FIFO: exit %d, stderr %q", r.code, r.stderr)
	}
	mkfifo(t, filepath.Join(dir, "pol"))
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "policy-dirs: [pol]\n")
	if r := runWithin(t, nil, "."); r.code != exitError || !strings.Contains(r.stderr, "not a regular file") {
		t.Errorf("FIFO policy-dirs: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Item 6: outputs replace regular files only; a planted link, FIFO or device is refused and
// left alone.
func TestHostileOutputPaths(t *testing.T) {
	dir := ipvsRepo(t, "")
	t.Chdir(dir)
	victim := filepath.Join(t.TempDir(), "bashrc")
	mustWrite(t, victim, "original\n")
	symlink(t, victim, filepath.Join(dir, "out.sarif"))
	mkfifo(t, filepath.Join(dir, "fifo.sarif"))
	symlink(t, "/dev/zero", filepath.Join(dir, "zero.sarif"))
	for _, out := range []string{"out.sarif", "fifo.sarif", "zero.sarif"} {
		r := runWithin(t, nil, "--target-version", "1.40", "--format", "sarif="+out, "deploy")
		if r.code != exitError || !strings.Contains(r.stderr, "not a regular file") {
			t.Errorf("output %s: exit %d, stderr %q", out, r.code, r.stderr)
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "original\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if st, err := os.Lstat("out.sarif"); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the planted link was replaced")
	}
	// The run's own streams by name.
	if r := runWithin(t, nil, "--target-version", "1.40", "--format", "json=/dev/stdout", "--format", "text=/dev/null", "deploy"); r.code != exitFindings || !strings.Contains(r.stdout, `"KP102"`) {
		t.Errorf("/dev/stdout: exit %d, stderr %q", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file %s left behind", e.Name())
		}
	}
}

// Item 4: file names and values that target the consumers of the outputs reach none of them
// raw: no workflow command, no terminal escape, no mention.
func TestHostileFileNames(t *testing.T) {
	dir := t.TempDir()
	mustMkdir(t, filepath.Join(dir, ".git"))
	t.Chdir(dir)
	for i, name := range hostile.InjectionNames {
		content := hostile.KubeProxyIPVS
		if i%2 == 1 {
			content = "kind: [broken\n" // a notice on stderr
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Skipf("file name %q: %v", name, err)
		}
	}
	for _, format := range []string{"text", "github", "markdown"} {
		r := runWithin(t, nil, "--target-version", "1.40", "--format", format, ".")
		if r.code != exitFindings {
			t.Errorf("%s: exit %d, stderr %q", format, r.code, r.stderr)
		}
		for stream, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
			for _, l := range strings.Split(out, "\n") {
				trimmed := strings.TrimLeft(l, " \t")
				ours := format == "github" && stream == "stdout" && regexpCommand(l)
				if strings.HasPrefix(trimmed, "::") && !ours {
					t.Errorf("%s %s: line %q is a workflow command", format, stream, l)
				}
				if strings.Contains(l, "##[") || strings.ContainsAny(l, "\x1b\x07\r\u202e") {
					t.Errorf("%s %s: line %q carries a command or control character", format, stream, l)
				}
				if format == "markdown" && stream == "stdout" && strings.Contains(strings.ReplaceAll(l, "@&#8203;", ""), "@") {
					t.Errorf("markdown: line %q mentions", l)
				}
			}
		}
		if format == "text" && !strings.Contains("\n"+r.stdout, "\n..x.yaml:3:7: ") {
			t.Errorf("..x.yaml is not reported relative to the root:\n%s", r.stdout)
		}
	}
}

// regexpCommand reports whether l is one of the github format's own commands.
func regexpCommand(l string) bool { return githubCommandRe.MatchString(l) }

// githubCommandRe is one workflow command: level, properties without a raw ":", the data.
var githubCommandRe = regexp.MustCompile(`^::(error|warning|notice) [^:]*::`)

// Item 12: SIGINT and SIGTERM end a run at once, also one blocked reading a stdin that never
// ends, with 128 + the signal, and no temporary output file is left.
func TestHostileInterrupt(t *testing.T) {
	for sig, want := range map[syscall.Signal]int{syscall.SIGINT: 130, syscall.SIGTERM: 143} {
		pr, pw := io.Pipe()
		sigs := make(chan os.Signal, 1)
		done := make(chan int, 1)
		var out, errb bytes.Buffer
		go func() { done <- runWithSignals([]string{"-"}, pr, &out, &errb, sigs) }()
		sigs <- sig
		ctx, cancel := context.WithTimeout(context.Background(), hangDeadline)
		select {
		case code := <-done:
			if code != want {
				t.Errorf("%v: exit %d, want %d", sig, code, want)
			}
		case <-ctx.Done():
			t.Fatalf("%v did not end the run", sig)
		}
		cancel()
		_ = pw.Close()
		inFlight.Wait() // the abandoned run reads the end of its stdin and finishes
	}
	// A temporary output file of a run that the signal abandons is removed.
	dir := t.TempDir()
	started, release := make(chan struct{}), make(chan struct{})
	go func() {
		_ = writeOutput(context.Background(), nil, nil, filepath.Join(dir, "r.sarif"), nil, func(w io.Writer) error {
			_, _ = w.Write([]byte("partial"))
			close(started)
			<-release
			return nil
		})
	}()
	<-started
	removeTemps()
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("temporary file left: %v", entries)
	}
	close(release)
}

// Item 13: a file named on the command line that is not linted at all exits 2; skipped parts
// are notices, never silent.
func TestHostileExplicitSkips(t *testing.T) {
	dir := ipvsRepo(t, "")
	t.Chdir(dir)
	mustWrite(t, filepath.Join(dir, "utf16.yaml"), "\xff\xfek\x00i\x00n\x00d\x00")
	mustWrite(t, filepath.Join(dir, "utf32.yaml"), "\xff\xfe\x00\x00k\x00\x00\x00")
	mustWrite(t, filepath.Join(dir, "install.sh"), "#!/bin/sh\nkube-proxy --proxy-mode=ipvs\nexit 0\n\x00\x01binary payload")
	mustWrite(t, filepath.Join(dir, "blob.bin.yaml"), "kind: x\x00\x01")
	key := secretFile(t)
	symlink(t, key, filepath.Join(dir, "key.yaml"))
	for _, tc := range []struct {
		arg, want string
	}{
		{"utf16.yaml", "utf16.yaml: file is UTF-16LE"},
		{"utf32.yaml", "utf32.yaml: file is UTF-32LE"},
		{"blob.bin.yaml", "binary file"},
		{"key.yaml", "symlink points outside the linted tree"},
	} {
		r := runWithin(t, nil, "--quiet", tc.arg)
		if r.code != exitError || !strings.Contains(r.stderr, tc.want) || strings.Contains(r.stderr, "S3CR3T") {
			t.Errorf("%s: exit %d, stderr %q", tc.arg, r.code, r.stderr)
		}
	}
	r := runWithin(t, nil, "--target-version", "1.40", "install.sh")
	if r.code != exitFindings || !strings.Contains(r.stdout, "install.sh:2:") || !strings.Contains(r.stderr, "notice: install.sh:4:1: binary data") {
		t.Errorf("script with a payload: exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	r = runWithin(t, nil, "--target-version", "1.40", ".")
	if r.code != exitFindings || !strings.Contains(r.stderr, "notice: utf16.yaml: file is UTF-16LE") {
		t.Errorf("walked: exit %d, stderr %q", r.code, r.stderr)
	}
}

// Item 3: with --config-from-base, a pull request's configuration and policies do not apply:
// it cannot disable rules, lower fail-on or run its own Rego.
func TestHostileConfigFromBase(t *testing.T) {
	dir := gitCLIRepo(t)
	t.Chdir(dir)
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "target-version: \"1.40\"\npolicy-dirs: [policies]\n")
	mustMkdir(t, filepath.Join(dir, "policies"))
	mustWrite(t, filepath.Join(dir, "policies", "org.rego"), policyNamed("ORG001", "base-policy"))
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "config")
	base := gitIn(t, dir, "rev-parse", "HEAD")
	// The pull request: turns everything off and brings a policy of its own.
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "disable: [all]\nfail-on: none\npolicy-dirs: [policies, evil]\n")
	mustMkdir(t, filepath.Join(dir, "evil"))
	mustWrite(t, filepath.Join(dir, "evil", "evil.rego"), policyNamed("EVIL001", "pr-policy"))
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "pr")

	if r := runWithin(t, nil, "--format", "json", "."); r.code != exitOK || strings.Contains(r.stdout, "KP102") {
		t.Errorf("the pull request's own configuration: exit %d\n%s", r.code, r.stderr)
	}
	r := runWithin(t, nil, "--config-from-base", base, "--format", "json", ".")
	rep := parseJSON(t, r.stdout)
	ids := ruleIDs(rep.Findings)
	if r.code != exitFindings || !strings.Contains(ids, "KP102") || !strings.Contains(ids, "ORG001") || strings.Contains(ids, "EVIL001") {
		t.Errorf("--config-from-base: exit %d, findings %s\n%s", r.code, ids, r.stderr)
	}
	r = runWithin(t, nil, "--config-from-base", base, "--no-repo-policies", "--format", "json", ".")
	if ids := ruleIDs(parseJSON(t, r.stdout).Findings); r.code != exitFindings || strings.Contains(ids, "ORG001") || !strings.Contains(ids, "KP102") {
		t.Errorf("--no-repo-policies: exit %d, findings %s\n%s", r.code, ids, r.stderr)
	}
	// A base without a configuration file: defaults, not the pull request's file.
	first := gitIn(t, dir, "rev-list", "--max-parents=0", "HEAD")
	if r := runWithin(t, nil, "--config-from-base", first, "--target-version", "1.40", "."); r.code != exitFindings {
		t.Errorf("base without a config: exit %d, stderr %q", r.code, r.stderr)
	}
	// A link in the base is refused there too.
	if err := os.Remove(".kube-proxy-lint.yaml"); err != nil {
		t.Fatal(err)
	}
	symlink(t, secretFile(t), filepath.Join(dir, ".kube-proxy-lint.yaml"))
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "link")
	if r := runWithin(t, nil, "--config-from-base", "HEAD", "."); r.code != exitError || !strings.Contains(r.stderr, "symbolic link") {
		t.Errorf("linked config in the base: exit %d, stderr %q", r.code, r.stderr)
	}
	if r := runWithin(t, nil, "--config-from-base", "HEAD", "--config", "x.yaml", "."); r.code != exitError || !strings.Contains(r.stderr, "exclude each other") {
		t.Errorf("--config with --config-from-base: exit %d, stderr %q", r.code, r.stderr)
	}
}

// policyNamed is a user policy that reports every KubeProxyConfiguration.
func policyNamed(id, name string) string {
	return "# METADATA\n# title: " + name + "\n# description: test\n# custom:\n#   id: " + id + "\n#   name: " + name +
		"\n#   severity: error\n#   remediation: none\npackage org." + strings.ReplaceAll(name, "-", "_") +
		"\n\nfindings contains {\"msg\": \"seen\", \"path\": [\"kind\"]} if input.kind == \"KubeProxyConfiguration\"\n"
}

// Issue 22 item 12: an output path that passes through a link the repository committed
// (reports -> a directory outside the tree) is refused before anything is linted, for every
// kind of output, and nothing is written outside the tree. A link outside the tree is the
// user's own and is followed.
func TestHostileLinkedOutputDirectory(t *testing.T) {
	dir := ipvsRepo(t, "")
	t.Chdir(dir)
	outside := t.TempDir()
	symlink(t, outside, filepath.Join(dir, "reports"))
	mustMkdir(t, filepath.Join(dir, "deploy", "nested"))
	symlink(t, outside, filepath.Join(dir, "deploy", "nested", "up"))
	for _, args := range [][]string{
		{"--format", "json=reports/report.json"},
		{"-o", "reports/report.txt"},
		{"--output", "reports/report.txt"},
		{"--format", "sarif=reports/x.sarif"},
		{"--format", "text", "--format", "sarif=reports/../x.sarif"},
		{"--format", "sarif=./deploy/nested/up/x.sarif"},
		{"--format", "sarif=" + filepath.Join(dir, "reports", "x.sarif")},
		{"--write-baseline", "reports/baseline.json"},
		{"report", "--format", "report-html=reports/r.html"},
	} {
		args = append(args, "--target-version", "1.40", "deploy")
		r := runWithin(t, nil, args...)
		if r.code != exitError || !strings.Contains(r.stderr, "is a symbolic link inside the linted tree") {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.stderr)
		}
		if strings.Contains(r.stderr, ".tmp") || r.stdout != "" {
			t.Errorf("%v: linted or wrote before refusing: stdout %q, stderr %q", args, r.stdout, r.stderr)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files written outside the tree through the link: %v", entries)
	}
	// The user's own link, outside the tree under test, is followed.
	mine := filepath.Join(t.TempDir(), "mine")
	symlink(t, outside, mine)
	if r := runWithin(t, nil, "--quiet", "--format", "json="+filepath.Join(mine, "ok.json"), "--target-version", "1.40", "deploy"); r.code != exitFindings {
		t.Errorf("output through the user's link: exit %d, stderr %q", r.code, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(outside, "ok.json")); err != nil {
		t.Errorf("output through the user's link not written: %v", err)
	}
}

// Issue 22 item 11: a file named on the command line through a committed link to a directory
// outside the tree (deploy -> ../outside, kube-proxy-lint deploy/x.yaml) is not read: exit 2,
// an error that names the link, nothing of the file in the output. In a repository and
// without one (where the named file's directory is the link itself); a link inside the tree
// is followed.
func TestHostileNamedFileThroughLinkedDirectory(t *testing.T) {
	outside := t.TempDir()
	mustWrite(t, filepath.Join(outside, "x.yaml"), "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: S3CR3T\n")
	for _, repo := range []bool{true, false} {
		dir := t.TempDir()
		if repo {
			mustMkdir(t, filepath.Join(dir, ".git"))
		}
		mustMkdir(t, filepath.Join(dir, "real", "sub"))
		mustWrite(t, filepath.Join(dir, "real", "sub", "kp.yaml"), "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n")
		symlink(t, outside, filepath.Join(dir, "deploy"))
		symlink(t, "real", filepath.Join(dir, "inside"))
		t.Chdir(dir)
		for _, args := range [][]string{
			{"deploy/x.yaml"},
			{"./deploy/x.yaml"},
			{filepath.Join(dir, "deploy", "x.yaml")},
			{"inside/sub/kp.yaml", "deploy/x.yaml"},
			{"deploy/"},
		} {
			if !repo && filepath.IsAbs(args[0]) {
				continue // no tree to hold the link: the user's own path
			}
			r := runWithin(t, nil, append([]string{"--target-version", "1.40", "--format", "json"}, args...)...)
			if r.code != exitError || !strings.Contains(r.stderr, "symlink deploy points outside the linted tree") || strings.Contains(r.stdout+r.stderr, "S3CR3T") {
				t.Errorf("repository %v, %v: exit %d\nstdout %s\nstderr %s", repo, args, r.code, r.stdout, r.stderr)
			}
		}
		if r := runWithin(t, nil, "--target-version", "1.40", "--format", "json", "inside/sub/kp.yaml"); r.code != exitFindings || !strings.Contains(r.stdout, "KP102") {
			t.Errorf("repository %v, a link inside the tree: exit %d\nstdout %s\nstderr %s", repo, r.code, r.stdout, r.stderr)
		}
	}
}

// Issue 22 item 10: a pull request commits a bad file and a .gitignore that names it. The
// tracked file is linted (also with --no-inline-suppressions and --config-from-base), and
// with --config-from-base what .gitignore still leaves out (untracked files) is listed on
// stderr without --verbose.
func TestHostileGitignoreHidesTrackedFile(t *testing.T) {
	dir := gitCLIRepo(t)
	t.Chdir(dir)
	mustWrite(t, filepath.Join(dir, ".kube-proxy-lint.yaml"), "target-version: \"1.40\"\n")
	gitIn(t, dir, "add", "-A")
	gitIn(t, dir, "commit", "-q", "-m", "config")
	base := gitIn(t, dir, "rev-parse", "HEAD")
	mustWrite(t, filepath.Join(dir, ".gitignore"), "bad.yaml\nout/\n")
	mustWrite(t, filepath.Join(dir, "bad.yaml"), kpc("ipvs"))
	gitIn(t, dir, "add", "-f", ".gitignore", "bad.yaml")
	gitIn(t, dir, "commit", "-q", "-m", "pr")
	mustWrite(t, filepath.Join(dir, "out", "generated.yaml"), kpc("ipvs"))
	for _, args := range [][]string{
		{"."},
		{"--no-inline-suppressions", "."},
		{"--config-from-base", base, "--no-inline-suppressions", "."},
	} {
		r := runWithin(t, nil, append([]string{"--format", "json"}, args...)...)
		inBad := strings.Contains(r.stdout, `"file": "bad.yaml"`)
		if r.code != exitFindings || !inBad {
			t.Errorf("%v: exit %d, no finding in the tracked bad.yaml\n%s", args, r.code, r.stderr)
		}
		notice := strings.Contains(r.stderr, `notice: out/: skipped 1 paths that .gitignore names and Git does not track`) && strings.Contains(r.stderr, `"out/"`)
		if fromBase := args[0] == "--config-from-base"; notice != fromBase {
			t.Errorf("%v: notice of the skipped paths %v, want %v\n%s", args, notice, fromBase, r.stderr)
		}
	}
}
