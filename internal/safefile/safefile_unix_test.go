//go:build unix

package safefile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadFileDevices: a FIFO with no writer and a device are refused at once, never read.
func TestReadFileDevices(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("mkfifo:", err)
	}
	if _, err := ReadFile(fifo, 10); !errors.Is(err, ErrNotRegular) {
		t.Errorf("ReadFile(fifo) error = %v, want ErrNotRegular", err)
	}
	for _, dev := range []string{"/dev/zero", "/dev/null"} {
		if _, err := os.Stat(dev); err != nil {
			continue
		}
		if _, err := ReadFile(dev, 10); !errors.Is(err, ErrNotRegular) {
			t.Errorf("ReadFile(%s) error = %v, want ErrNotRegular", dev, err)
		}
	}
}
