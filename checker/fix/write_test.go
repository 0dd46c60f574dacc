//go:build unix

package fix

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestWriteFile(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "dir", "a.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("mode: ipvs\r\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(root, "dir/a.yaml", []byte("mode: ipvs\r\n"), []byte("mode: nftables\r\n")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(p)
	if string(b) != "mode: nftables\r\n" {
		t.Errorf("content %q", b)
	}
	st, _ := os.Stat(p)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	left, _ := filepath.Glob(filepath.Join(root, "dir", ".*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	// The file changed since it was linted: refused, untouched.
	err := WriteFile(root, "dir/a.yaml", []byte("mode: ipvs\r\n"), []byte("x"))
	if !errors.Is(err, ErrChanged) {
		t.Errorf("changed file: %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "mode: nftables\r\n" {
		t.Errorf("changed file was written: %q", b)
	}
}

func TestWriteFileRefuses(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	target := filepath.Join(outside, "secret.yaml")
	if err := os.WriteFile(target, []byte("mode: ipvs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "real.yaml"), []byte("mode: ipvs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.Symlink(target, filepath.Join(root, "link.yaml")))
	must(os.Symlink("real.yaml", filepath.Join(root, "inner-link.yaml")))
	must(os.Symlink(outside, filepath.Join(root, "linkdir")))
	must(syscall.Mkfifo(filepath.Join(root, "fifo.yaml"), 0o644))
	for name, want := range map[string]error{
		"link.yaml":              ErrSymlink,
		"inner-link.yaml":        ErrSymlink,
		"linkdir/secret.yaml":    ErrOutside,
		"../outside/secret.yaml": ErrOutside,
		"/etc/passwd":            ErrOutside,
		"fifo.yaml":              ErrNotRegular,
	} {
		if err := Editable(root, name); !errors.Is(err, want) {
			t.Errorf("Editable(%s) = %v, want %v", name, err, want)
		}
		err := WriteFile(root, name, []byte("mode: ipvs\n"), []byte("pwned\n"))
		if !errors.Is(err, want) {
			t.Errorf("WriteFile(%s) = %v, want %v", name, err, want)
		}
		if strings.Contains(err.Error(), base) {
			t.Errorf("error names the absolute path: %v", err)
		}
	}
	if b, _ := os.ReadFile(target); string(b) != "mode: ipvs\n" {
		t.Errorf("wrote through a link: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "real.yaml")); string(b) != "mode: ipvs\n" {
		t.Errorf("wrote through a link: %q", b)
	}
	if err := Editable(root, "real.yaml"); err != nil {
		t.Errorf("real.yaml: %v", err)
	}
}
