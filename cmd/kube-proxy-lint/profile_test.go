package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProfiles: the hidden --cpu-profile, --mem-profile and --mem-trace write their files, and
// only then.
func TestProfiles(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "kube-proxy.yaml")
	if err := os.WriteFile(in, []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cpu, mem, trace := filepath.Join(dir, "cpu.out"), filepath.Join(dir, "mem.out"), filepath.Join(dir, "mem.tsv")
	r := runCLI(t, "", "--no-config", "-q", "--cpu-profile", cpu, "--mem-profile", mem, "--mem-trace", trace, in)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, p := range []string{cpu, mem, trace} {
		st, err := os.Stat(p)
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: not written (%v)", filepath.Base(p), err)
		}
	}
	// The trace: a header, rows from loading to the output (the last sample is taken when the
	// run ends), and the peak.
	b, _ := os.ReadFile(trace)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) < 3 || lines[0] != "seconds\tphase\tobjects_mib\tunused_mib\tfree_mib\tgoal_mib\tlive_mib\tmapped_mib" ||
		!strings.Contains(lines[1], "\tload\t") || !strings.Contains(lines[len(lines)-2], "\toutput\t") ||
		!strings.HasPrefix(lines[len(lines)-1], "# peak: ") {
		t.Errorf("--mem-trace wrote:\n%s", b)
	}
	for _, l := range lines[1 : len(lines)-1] {
		if f := strings.Split(l, "\t"); len(f) != 8 {
			t.Errorf("--mem-trace row %q: %d columns, want 8", l, len(f))
		}
	}
	r = runCLI(t, "", "--no-config", "-q", in)
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		t.Errorf("a run without the flags wrote files: %d entries", len(entries))
	}
	if r := runCLI(t, "", "--no-config", "--cpu-profile", filepath.Join(dir, "missing", "cpu.out"), in); r.code != exitError ||
		!strings.Contains(r.stderr, "missing does not exist") {
		t.Errorf("unwritable --cpu-profile: exit %d, want %d; stderr %q", r.code, exitError, r.stderr)
	}
	// Never through a link inside the linted tree.
	outside := t.TempDir()
	symlink(t, outside, filepath.Join(dir, "prof"))
	for _, flag := range []string{"--mem-profile", "--mem-trace"} {
		if r := runCLI(t, "", "--no-config", flag, filepath.Join(dir, "prof", "mem.out"), dir); r.code != exitError ||
			!strings.Contains(r.stderr, "is a symbolic link inside the linted tree") {
			t.Errorf("%s through a link: exit %d, stderr %q", flag, r.code, r.stderr)
		}
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("profile written through the link: %v", entries)
	}
}
