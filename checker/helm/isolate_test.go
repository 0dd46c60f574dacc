package helm

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// The renderer is found beside the running executable, also when that is a link to the
// file it stands beside, else on PATH; never in the working directory through a relative
// PATH entry; a missing one is ErrNoRenderer.
func TestLookHelper(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("executable bits")
	}
	write := func(p string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	dir := t.TempDir()
	t.Setenv("PATH", "")
	bin := filepath.Join(dir, "bin")
	exe := filepath.Join(bin, "kube-proxy-lint")
	write(exe, 0o755)
	if _, err := lookHelper(exe); !errors.Is(err, ErrNoRenderer) {
		t.Fatalf("no renderer anywhere: err = %v, want ErrNoRenderer", err)
	}
	// Not executable: not a renderer.
	write(filepath.Join(bin, Helper), 0o644)
	if _, err := lookHelper(exe); !errors.Is(err, ErrNoRenderer) {
		t.Errorf("a renderer without its executable bit: err = %v", err)
	}
	if err := os.Chmod(filepath.Join(bin, Helper), 0o755); err != nil {
		t.Fatal(err)
	}
	if p, err := lookHelper(exe); err != nil || p != filepath.Join(bin, Helper) {
		t.Errorf("beside the executable: %q, %v", p, err)
	}
	// A link to the executable (a package manager's bin directory) finds the renderer beside
	// the file it links to.
	links := filepath.Join(dir, "links")
	if err := os.MkdirAll(links, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(exe, filepath.Join(links, "kube-proxy-lint")); err != nil {
		t.Fatal(err)
	}
	if p, err := lookHelper(filepath.Join(links, "kube-proxy-lint")); err != nil || p != filepath.Join(bin, Helper) {
		t.Errorf("through a link: %q, %v", p, err)
	}
	// On PATH, when not beside it.
	other := filepath.Join(dir, "other", "kube-proxy-lint")
	write(other, 0o755)
	t.Setenv("PATH", bin)
	if p, err := lookHelper(other); err != nil || p != filepath.Join(bin, Helper) {
		t.Errorf("on PATH: %q, %v", p, err)
	}
	// A relative PATH entry that names the working directory (the repository being linted)
	// is not searched.
	t.Chdir(bin)
	t.Setenv("PATH", ".")
	if p, err := lookHelper(other); !errors.Is(err, ErrNoRenderer) {
		t.Errorf("in the working directory through PATH=.: %q, %v", p, err)
	}
}

// Without a renderer to start, a rendering is ErrNoRenderer, with or without children.
func TestNoRenderer(t *testing.T) {
	var p Pool
	defer p.Close()
	if _, err := p.Render(Request{}, time.Minute); !errors.Is(err, ErrNoRenderer) {
		t.Errorf("no Command, no Renderer: err = %v", err)
	}
	Command = func() (*exec.Cmd, error) { return nil, ErrNoRenderer }
	t.Cleanup(func() { Command = nil })
	if _, err := p.Render(Request{}, time.Minute); !errors.Is(err, ErrNoRenderer) || err.Error() != ErrNoRenderer.Error() {
		t.Errorf("no renderer installed: err = %v", err)
	}
	if strings.ContainsAny(ErrNoRenderer.Error(), `"'<>`) {
		t.Errorf("the loader's notice elides quoted text: %q", ErrNoRenderer)
	}
}

// The renderer started by hand says what it is and does nothing.
func TestServeChildByHand(t *testing.T) {
	var out, errOut strings.Builder
	code := ServeChild([]string{Helper}, strings.NewReader(""), &out, &errOut, func(Request) (*Result, error) {
		t.Fatal("rendered")
		return nil, nil
	})
	if code != 2 || out.Len() != 0 || !strings.Contains(errOut.String(), "it is not run by hand") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
	}
}
