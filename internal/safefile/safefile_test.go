package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("PRIVATE KEY"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	b, err := ReadFile(secret, 100)
	if err != nil || string(b) != "PRIVATE KEY" {
		t.Fatalf("ReadFile(regular) = %q, %v", b, err)
	}
	if _, err := ReadFile(link, 100); !errors.Is(err, ErrSymlink) {
		t.Errorf("ReadFile(symlink) error = %v, want ErrSymlink", err)
	}
	if err := Check(link); !errors.Is(err, ErrSymlink) {
		t.Errorf("Check(symlink) = %v, want ErrSymlink", err)
	}
	if _, err := ReadFile(dir, 100); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(dir) error = %v, want ErrNotRegular", err)
	}
	if _, err := ReadFile(secret, 5); !errors.Is(err, ErrTooLarge) || strings.Contains(err.Error(), "PRIVATE") {
		t.Errorf("ReadFile(large) error = %v, want ErrTooLarge without content", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing"), 5); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadFile(missing) error = %v, want not exist", err)
	}
}
