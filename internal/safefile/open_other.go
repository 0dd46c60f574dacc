//go:build !unix

package safefile

import (
	"errors"
	"io/fs"
	"os"
)

// errLink marks a symbolic link found by Lstat.
var errLink = errors.New("symbolic link")

// openNoFollow checks with Lstat that path is a regular file and not a symbolic link, then
// opens it. Without O_NOFOLLOW there is a window between the two; Open checks the type of the
// opened file again.
func openNoFollow(path string) (*os.File, error) {
	st, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if st.Mode()&fs.ModeSymlink != 0 {
		return nil, errLink
	}
	if !st.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "open", Path: path, Err: ErrNotRegular}
	}
	return os.Open(path)
}

func isLoop(err error) bool { return errors.Is(err, errLink) }
