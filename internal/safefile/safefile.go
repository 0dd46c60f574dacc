// Package safefile reads files that an attacker may have planted: the configuration file, a
// baseline, policies, .gitignore files and the files being linted all come from the repository
// under test. It never follows a symbolic link in the last path element, never blocks on a FIFO
// or device (it opens without waiting and refuses anything but a regular file), and never
// reads more than a size limit.
//
// Errors name the path and what was wrong with it; they never quote the file's content.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Errors returned (wrapped in *Error) by Open and ReadFile.
var (
	// ErrSymlink: the path is a symbolic link, which is not followed.
	ErrSymlink = errors.New("is a symbolic link, not followed")
	// ErrNotRegular: the path is a directory, FIFO, socket or device.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrTooLarge: the file is larger than the limit.
	ErrTooLarge = errors.New("is larger than the limit")
)

// Error is a file that cannot be read safely.
type Error struct {
	Path string
	Err  error
	// Limit is the size limit, for ErrTooLarge.
	Limit int64
}

func (e *Error) Error() string {
	if errors.Is(e.Err, ErrTooLarge) {
		return fmt.Sprintf("%s: is larger than %d bytes", e.Path, e.Limit)
	}
	return e.Path + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Open opens path for reading if it is a regular file and not a symbolic link. It does not
// block when path is a FIFO. The caller closes the file.
func Open(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNoFollow(path)
	if err != nil {
		if isLoop(err) {
			return nil, nil, &Error{Path: path, Err: ErrSymlink}
		}
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, nil, &Error{Path: path, Err: err}
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, nil, &Error{Path: path, Err: err}
	}
	if !st.Mode().IsRegular() {
		_ = f.Close()
		return nil, nil, &Error{Path: path, Err: ErrNotRegular}
	}
	return f, st, nil
}

// ReadFile reads the regular file at path, at most limit bytes (limit <= 0: no limit). A
// symbolic link, a directory, FIFO or device, or a larger file is an *Error.
func ReadFile(path string, limit int64) ([]byte, error) {
	f, st, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	if limit > 0 && st.Size() > limit {
		return nil, &Error{Path: path, Err: ErrTooLarge, Limit: limit}
	}
	var r io.Reader = f
	if limit > 0 {
		// The file may grow after Stat.
		r = io.LimitReader(f, limit+1)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return nil, &Error{Path: path, Err: err}
	}
	if limit > 0 && int64(len(b)) > limit {
		return nil, &Error{Path: path, Err: ErrTooLarge, Limit: limit}
	}
	return b, nil
}

// Check reports whether path could be opened by Open, without opening it: it must be a
// regular file and not a symbolic link.
func Check(path string) error {
	st, err := os.Lstat(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return &Error{Path: path, Err: err}
	}
	switch {
	case st.Mode()&fs.ModeSymlink != 0:
		return &Error{Path: path, Err: ErrSymlink}
	case !st.Mode().IsRegular():
		return &Error{Path: path, Err: ErrNotRegular}
	}
	return nil
}
