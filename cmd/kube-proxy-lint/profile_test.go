package main

import (
	"os"
	"path/filepath"
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
	if r := runCLI(t, "", "--no-config", "--cpu-profile", filepath.Join(dir, "missing", "cpu.out"), in); r.code != exitError {
		t.Errorf("unwritable --cpu-profile: exit %d, want %d", r.code, exitError)
	}
}
