//go:build unix

package safefile

import (
	"errors"
	"os"
	"syscall"
)

// openNoFollow opens path read-only without following a final symbolic link (O_NOFOLLOW) and
// without waiting for a writer when it is a FIFO (O_NONBLOCK; a no-op on regular files).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
}

// isLoop reports the error O_NOFOLLOW gives for a symbolic link (ELOOP; EMLINK on some BSDs).
func isLoop(err error) bool {
	return errors.Is(err, syscall.ELOOP) || errors.Is(err, syscall.EMLINK)
}
