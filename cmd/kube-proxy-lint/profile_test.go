package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfiles: the hidden --cpu-profile and --mem-profile write their files, and only then.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "kube-proxy.yaml")
	if err := os.WriteFile(in, []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu, mem := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out")
	r := runCLI(t, "", "--no-config", "-q", "--cpu-profile", cpu, "--mem-profile", mem, in)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, p := range []string{cpu, mem} {
		st, err := os.Stat(p)
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: not written (%v)", filepath.Base(p), err)
		}
	}
	r = runCLI(t, "", "--no-config", "-q", in)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Errorf("a run without the flags wrote files: %d entries", len(entries))
	}
	if r := runCLI(t, "", "--no-config", "--cpu-profile", filepath.Join(dir, "missing", "cpu.out"), in); r.code != exitError ||
		!strings.Contains(r.stderr, "missing does not exist") {
		t.Errorf("unwritable --cpu-profile: exit %d, want %d; stderr %q", r.code, exitError, r.stderr)
	}
	// Never through a link inside the linted tree.
	outside := t.TempDir()
	symlink(t, outside, filepath.Join(dir, "prof"))
	if r := runCLI(t, "", "--no-config", "--mem-profile", filepath.Join(dir, "prof", "mem.out"), dir); r.code != exitError ||
		!strings.Contains(r.stderr, "is a symbolic link inside the linted tree") {
		t.Errorf("--mem-profile through a link: exit %d, stderr %q", r.code, r.stderr)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("profile written through the link: %v", entries)
	}
}
