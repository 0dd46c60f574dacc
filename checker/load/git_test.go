package load

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(content, "symlink:") {
			if err := os.Symlink(strings.TrimPrefix(content, "symlink:"), p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"init", "-q", "-b", "main"},
		{"add", "-A", "-f"}, // ignored files too: tracked, so both FromGit and the walk read them
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "c"},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

const kpcYAML = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"

func TestFromGit(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"clusters/a/kube-proxy.yaml":  kpcYAML,
		"clusters/a/notes.md":         "# notes\n",
		"clusters/a/kube-proxy.conf":  kpcYAML,
		"clusters/a/other.conf":       "nothing here\n",
		"clusters/b/vendor/x.yaml":    kpcYAML,
		"clusters/b/ignored.yaml":     kpcYAML,
		"clusters/b/.gitignore":       "ignored.yaml\n",
		"clusters/b/ok.yaml":          kpcYAML,
		"clusters/b/link.yaml":        "symlink:ok.yaml",
		"clusters/b/escape.yaml":      "symlink:../../../outside.yaml",
		"clusters/big.yaml":           strings.Repeat("# padding\n", 200),
		"clusters/a/sub/deep/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n",
	})
	// The work tree is then changed: FromGit must read the commit, not the files.
	if err := os.WriteFile(filepath.Join(dir, "clusters/a/kube-proxy.yaml"), []byte("garbage: ["), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := FromGit(context.Background(), filepath.Join(dir, "clusters"), "HEAD", Options{MaxFileSize: 1000})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range ws.Files {
		names = append(names, f.Path)
	}
	// clusters/b/ignored.yaml is in the commit: .gitignore does not hide a tracked file.
	want := []string{"clusters/a/kube-proxy.conf", "clusters/a/kube-proxy.yaml", "clusters/a/sub/deep/cm.yaml", "clusters/b/ignored.yaml", "clusters/b/ok.yaml"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("files = %q, want %q", names, want)
	}
	if ws.Files[1].Docs[0].Kind != "KubeProxyConfiguration" {
		t.Errorf("kube-proxy.yaml was not read from the commit: %q", ws.Files[1].Content)
	}
	var probs []string
	for _, p := range ws.Problems {
		probs = append(probs, p.Pos.Filename+": "+p.Message)
	}
	wantProbs := []string{
		"clusters/b/escape.yaml: symlink points outside the linted tree; skipped",
		"clusters/big.yaml: file is larger than 1000 bytes; skipped (see --max-file-size)",
	}
	if !reflect.DeepEqual(probs, wantProbs) {
		t.Errorf("problems = %q, want %q", probs, wantProbs)
	}
	if real, _ := filepath.EvalSymlinks(dir); ws.Root != real && ws.Root != dir {
		t.Errorf("root = %s, want the repository root %s", ws.Root, dir)
	}
	if len(ws.Instances) == 0 {
		t.Error("no kube-proxy instance derived")
	}

	// Paths select files and directories relative to dir; a named file is always read.
	ws, err = FromGit(context.Background(), filepath.Join(dir, "clusters", "a"), "HEAD", Options{Paths: []string{"other.conf", "../b/ok.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	names = nil
	for _, f := range ws.Files {
		names = append(names, f.Path)
	}
	if want := []string{"clusters/a/other.conf", "clusters/b/ok.yaml"}; !reflect.DeepEqual(names, want) {
		t.Errorf("files = %q, want %q", names, want)
	}

	for _, tc := range []struct {
		rev   string
		paths []string
		want  string
	}{
		{"nope", nil, `resolve revision "nope"`},
		{"HEAD", []string{"missing.yaml"}, "lint missing.yaml: no such file or directory in HEAD"},
		{"HEAD", []string{"-"}, "standard input"},
		{"HEAD", []string{"/"}, "outside the repository"},
	} {
		_, err := FromGit(context.Background(), dir, tc.rev, Options{Paths: tc.paths})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("FromGit(%s, %q) error = %v, want %q", tc.rev, tc.paths, err, tc.want)
		}
	}
}

// TestFromGitReadsWhatTheWalkReads: --rev and a directory walk share one file filter, so a
// commit's tree yields the files the same tree yields on disk: scripts, units, Terraform,
// inventories, flag files, templates, not only YAML.
func TestFromGitReadsWhatTheWalkReads(t *testing.T) {
	unit := "[Service]\nExecStart=/usr/local/bin/kube-proxy --proxy-mode=ipvs\n"
	dir := gitRepo(t, map[string]string{
		"kube-proxy.yaml":                 kpcYAML,
		"node/bootstrap.sh":               "#!/bin/sh\nexec /usr/local/bin/kube-proxy --proxy-mode=ipvs\n",
		"node/start":                      "#!/bin/bash\nkube-proxy --proxy-mode=ipvs\n",
		"units/kube-proxy.service":        unit,
		"units/kube-proxy.service.j2":     unit,
		"units/kubelet.service.d/10.conf": unit,
		"inventory/prod/inventory.ini":    "[k8s_cluster:vars]\nkube_proxy_mode=ipvs\n",
		"inventory/prod/hosts":            "[all:vars]\nkube_proxy_mode=ipvs\n",
		"tf/main.tf":                      "resource \"aws_eks_addon\" \"p\" {\n  addon_name = \"kube-proxy\"\n  configuration_values = jsonencode({ mode = \"ipvs\" })\n}\n",
		"aks/main.bicep":                  "resource aks 'x' = {\n  properties: { networkProfile: { kubeProxyConfig: { mode: 'IPVS' } } }\n}\n",
		"Dockerfile":                      "FROM x\nCMD [\"kube-proxy\", \"--proxy-mode=ipvs\"]\n",
		"Makefile":                        "run:\n\tkube-proxy --proxy-mode=ipvs\n",
		"kube-proxy.flags":                "--proxy-mode=ipvs\n",
		"containerd/certs.d/x/hosts.toml": "server = \"http://127.0.0.1:31500\"\n",
		"mixin/alerts.libsonnet":          "{ expr: 'kubeproxy_sync_proxy_rules_iptables_restore_failures_total' }\n",
		"docs/readme.md":                  "kube-proxy --proxy-mode=ipvs\n",
		"img/logo.png":                    "\x89PNG\x00",
	})
	walked, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	fromGit, err := FromGit(context.Background(), dir, "HEAD", Options{})
	if err != nil {
		t.Fatal(err)
	}
	names := func(ws *checker.Workspace) []string {
		var out []string
		for _, f := range ws.Files {
			if f.Parent == nil {
				out = append(out, f.Path)
			}
		}
		sort.Strings(out)
		return out
	}
	w, g := names(walked), names(fromGit)
	if !reflect.DeepEqual(w, g) {
		t.Errorf("FromGit reads other files than the walk:\nwalk: %q\ngit:  %q", w, g)
	}
	for _, want := range []string{"node/bootstrap.sh", "units/kube-proxy.service", "inventory/prod/inventory.ini", "tf/main.tf", "Makefile"} {
		if !slices.Contains(g, want) {
			t.Errorf("FromGit skipped %s; read %q", want, g)
		}
	}
}

// TestTrace: the walk and FromGit tell Options.Trace what they leave out and why (--verbose).
func TestTrace(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"kp.yaml":          kpcYAML,
		"README.md":        "# docs\n",
		"vendor/x.yaml":    kpcYAML,
		".gitignore":       "build/\n",
		"app.conf":         "listen 80;\n",
		"testdata/t.yaml":  kpcYAML,
		"node/start.sh":    "#!/bin/sh\nexec kube-proxy --proxy-mode=ipvs\n",
		"docs/notes.txt":   "nothing\n",
		"clusters/a/x.yml": kpcYAML,
	})
	// build/ is written after the commit: untracked, so only the walk sees it and .gitignore
	// skips it.
	mustWriteFile(t, filepath.Join(dir, "build", "out.yaml"), kpcYAML)
	want := map[string]string{
		"README.md":      TraceName,
		"vendor/":        TraceSkipDir,
		"app.conf":       TraceContent,
		"testdata/":      TraceTestdata,
		"docs/notes.txt": TraceName,
	}
	for _, mode := range []string{"walk", "git"} {
		got := map[string]string{}
		var mu sync.Mutex
		opts := Options{Trace: func(name, reason string) {
			mu.Lock()
			defer mu.Unlock()
			got[name] = reason
		}}
		var err error
		if mode == "walk" {
			opts.Paths, opts.Root = []string{dir}, dir
			_, err = Load(context.Background(), opts)
		} else {
			_, err = FromGit(context.Background(), dir, "HEAD", opts)
		}
		if err != nil {
			t.Fatal(err)
		}
		if mode == "walk" {
			if got["build/"] != TraceIgnored {
				t.Errorf("walk: build/ traced as %q, want %q", got["build/"], TraceIgnored)
			}
		}
		for name, reason := range want {
			g := got[name]
			if mode == "git" && strings.HasSuffix(name, "/") {
				// FromGit lists files, not directories: any file below counts.
				for n, r := range got {
					if strings.HasPrefix(n, name) {
						g = r
					}
				}
			}
			if g != reason {
				t.Errorf("%s: %s traced as %q, want %q (all: %v)", mode, name, g, reason, got)
			}
		}
		for _, read := range []string{"kp.yaml", "node/start.sh", "clusters/a/x.yml"} {
			if r, ok := got[read]; ok {
				t.Errorf("%s: %s was read but traced as %q", mode, read, r)
			}
		}
	}
}

func mustWriteFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestTrackedFilesNotIgnored: issue 22 item 10. A pull request commits a bad file and a
// .gitignore that names it (the file, or its directory): the walk skipped the tracked file
// silently. Git never hides a tracked file, and neither does the walk; untracked files that
// .gitignore names are skipped, and ReportIgnored lists them in one notice.
func TestTrackedFilesNotIgnored(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		".gitignore":          "bad.yaml\nhidden/\n*.tmp.yaml\n",
		"bad.yaml":            kpcYAML,
		"hidden/deep/kp.yaml": kpcYAML,
		"ok.yaml":             kpcYAML,
		"sub/.gitignore":      "*\n",
		"sub/tracked.yaml":    kpcYAML,
	})
	// Untracked files that .gitignore names, as a CI step may write them.
	mustWriteFile(t, filepath.Join(dir, "hidden", "untracked.yaml"), kpcYAML)
	mustWriteFile(t, filepath.Join(dir, "x.tmp.yaml"), kpcYAML)
	mustWriteFile(t, filepath.Join(dir, "sub", "new.yaml"), kpcYAML)
	mustWriteFile(t, filepath.Join(dir, "build\x1b[31m", "out.yaml"), kpcYAML)
	mustWriteFile(t, filepath.Join(dir, ".gitignore"), "bad.yaml\nhidden/\n*.tmp.yaml\nbuild*/\n")
	for _, report := range []bool{false, true} {
		ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir, ReportIgnored: report})
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, f := range ws.Files {
			names = append(names, f.Path)
		}
		if want := []string{"bad.yaml", "hidden/deep/kp.yaml", "ok.yaml", "sub/tracked.yaml"}; !reflect.DeepEqual(names, want) {
			t.Errorf("files = %q, want %q", names, want)
		}
		var notices []string
		for _, p := range ws.Problems {
			notices = append(notices, p.Message)
		}
		want := []string(nil)
		if report {
			want = []string{`skipped 4 paths that .gitignore names and Git does not track (files and directories the run's tree may hold, not linted): "build\x1b[31m/", "hidden/untracked.yaml", "sub/new.yaml", "x.tmp.yaml"`}
		}
		if !reflect.DeepEqual(notices, want) {
			t.Errorf("ReportIgnored %v: notices %q, want %q", report, notices, want)
		}
	}
	// Outside a Git work tree nothing is tracked: .gitignore applies as before.
	plain := t.TempDir()
	mustWriteFile(t, filepath.Join(plain, ".gitignore"), "bad.yaml\n")
	mustWriteFile(t, filepath.Join(plain, "bad.yaml"), kpcYAML)
	ws, err := Load(context.Background(), Options{Paths: []string{plain}, Root: plain})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Files) != 0 || len(ws.Problems) != 0 {
		t.Errorf("outside Git: files %d, problems %v", len(ws.Files), ws.Problems)
	}
}
