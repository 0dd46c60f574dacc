package load

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const kpc = "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"

// TestWalkBadInput builds a tree of hostile entries and checks that each becomes a notice or
// a problem, and that the good file is still loaded.
func TestWalkBadInput(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	write(t, outside, "secret.yaml", kpc)
	write(t, dir, "good.yaml", kpc)
	write(t, dir, "binary.yaml", "kind: x\x00\x01\x02")
	write(t, dir, "latin1.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: caf\xe9}\n")
	write(t, dir, "empty.yaml", "")
	write(t, dir, "huge.yaml", "kind: ConfigMap\n"+strings.Repeat("# padding\n", 100))
	write(t, dir, "ignored/x.yaml", kpc)
	write(t, dir, ".gitignore", "ignored/\n*.tmp.yaml\n")
	write(t, dir, "a.tmp.yaml", kpc)
	write(t, dir, "vendor/v.yaml", kpc)
	write(t, dir, "node_modules/m.yaml", kpc)
	write(t, dir, "notes.md", "kind: KubeProxyConfiguration\n")
	write(t, dir, "kube-proxy.conf", kpc)
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "out.yaml")); err != nil {
		t.Skip("symlinks not supported")
	}
	if err := os.Symlink("loop2.yaml", filepath.Join(dir, "loop1.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop1.yaml", filepath.Join(dir, "loop2.yaml")); err != nil {
		t.Fatal(err)
	}
	write(t, dir, "unreadable.yaml", kpc)
	if err := os.Chmod(filepath.Join(dir, "unreadable.yaml"), 0); err != nil {
		t.Fatal(err)
	}
	ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir, MaxFileSize: 500})
	if err != nil {
		t.Fatal(err)
	}
	msgs := map[string]string{}
	for _, p := range ws.Problems {
		msgs[p.Pos.Filename] = p.Message
	}
	var files []string
	for _, f := range ws.Files {
		files = append(files, f.Path)
	}
	got := strings.Join(files, " ")
	// Binary and non-UTF-8 files are read (and reported) but hold no documents.
	want := "binary.yaml empty.yaml good.yaml kube-proxy.conf latin1.yaml"
	wantInstances := 2
	if os.Geteuid() == 0 {
		// root reads files without permission bits.
		want += " unreadable.yaml"
		wantInstances++
	} else if !strings.Contains(msgs["unreadable.yaml"], "permission") {
		t.Errorf("unreadable.yaml: problem %q", msgs["unreadable.yaml"])
	}
	if got != want {
		t.Errorf("files %q, want %q", got, want)
	}
	for name, frag := range map[string]string{
		"binary.yaml": "binary",
		"latin1.yaml": "UTF-8",
		"huge.yaml":   "larger than",
		"out.yaml":    "outside",
		"loop1.yaml":  "symlink",
		"loop2.yaml":  "symlink",
	} {
		if !strings.Contains(msgs[name], frag) {
			t.Errorf("%s: problem %q, want it to mention %q", name, msgs[name], frag)
		}
	}
	if len(ws.Instances) != wantInstances {
		t.Errorf("got %d instances", len(ws.Instances))
	}
}

func TestStdin(t *testing.T) {
	ws, err := Load(context.Background(), Options{Paths: []string{"-"}, Stdin: bytes.NewReader([]byte(kpc)), StdinName: "in.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Files) != 1 || ws.Files[0].Path != "in.yaml" || len(ws.Instances) != 1 {
		t.Fatalf("stdin not loaded: %+v", ws.Files)
	}
}

func TestMissingPath(t *testing.T) {
	_, err := Load(context.Background(), Options{Paths: []string{"/does/not/exist"}})
	if err == nil || !strings.Contains(err.Error(), "/does/not/exist") {
		t.Fatalf("err = %v", err)
	}
}

// TestTestdataSkipped: testdata directories are skipped with one notice that counts their
// files, unless IncludeTestdata is set or the directory is named on the command line.
func TestTestdataSkipped(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "clusters/prod/kube-proxy.yaml", kpc)
	write(t, dir, "pkg/testdata/a.yaml", kpc)
	write(t, dir, "pkg/testdata/sub/b.yaml", kpc)
	write(t, dir, "other/testdata/c.sh", "#!/bin/sh\nkube-proxy --proxy-mode=ipvs\n")
	names := func(opts Options) ([]string, []string) {
		ws, err := Load(context.Background(), opts)
		if err != nil {
			t.Fatal(err)
		}
		var fs, ps []string
		for _, f := range ws.Files {
			fs = append(fs, f.Path)
		}
		for _, p := range ws.Problems {
			ps = append(ps, p.Pos.Filename+": "+p.Message)
		}
		return fs, ps
	}
	files, probs := names(Options{Paths: []string{dir}, Root: dir})
	if strings.Join(files, ",") != "clusters/prod/kube-proxy.yaml" {
		t.Errorf("files = %v", files)
	}
	if len(probs) != 1 || !strings.Contains(probs[0], "skipped 3 files in 2 testdata directories") || !strings.HasPrefix(probs[0], "other/testdata: ") {
		t.Errorf("notices = %q", probs)
	}
	files, probs = names(Options{Paths: []string{dir}, Root: dir, IncludeTestdata: true})
	if len(files) != 4 || len(probs) != 0 {
		t.Errorf("with IncludeTestdata: files %v, notices %q", files, probs)
	}
	files, _ = names(Options{Paths: []string{filepath.Join(dir, "pkg", "testdata")}, Root: dir})
	if len(files) != 2 {
		t.Errorf("a testdata directory named on the command line: files %v", files)
	}
}
