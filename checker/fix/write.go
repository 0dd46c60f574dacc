package fix

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Errors of Editable and WriteFile (wrapped with the file name).
var (
	// ErrOutside: the name leaves the tree (absolute, "..", or a directory link pointing
	// elsewhere).
	ErrOutside = errors.New("is outside the linted tree")
	// ErrSymlink: the file is a symbolic link; fixes never write through one.
	ErrSymlink = errors.New("is a symbolic link")
	// ErrNotRegular: the file is a directory, FIFO, socket or device.
	ErrNotRegular = errors.New("is not a regular file")
	// ErrChanged: the file on disk is not what was linted (edited meanwhile).
	ErrChanged = errors.New("changed on disk since it was read")
)

// Editable returns nil when fixes may rewrite the file name (slash-separated, relative to
// root): it lies inside root, also after resolving the links of its directories, and it is a
// regular file, not a symbolic link.
func Editable(root, name string) error {
	_, _, err := locate(root, name)
	return err
}

// locate resolves name below root to the path to write (in the real directory) and the file's
// current state.
func locate(root, name string) (string, fs.FileInfo, error) {
	wrap := func(err error) error { return fmt.Errorf("%s %w", name, err) }
	rel := filepath.FromSlash(name)
	if !filepath.IsLocal(rel) {
		return "", nil, wrap(ErrOutside)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", nil, fmt.Errorf("resolve %s: %w", root, unwrapPath(err))
	}
	dir, err := filepath.EvalSymlinks(filepath.Join(root, filepath.Dir(rel)))
	if err != nil {
		return "", nil, fmt.Errorf("resolve the directory of %s: %w", name, unwrapPath(err))
	}
	if r, err := filepath.Rel(realRoot, dir); err != nil || !filepath.IsLocal(r) && r != "." {
		return "", nil, wrap(ErrOutside)
	}
	p := filepath.Join(dir, filepath.Base(rel))
	st, err := os.Lstat(p)
	switch {
	case err != nil:
		return "", nil, fmt.Errorf("stat %s: %w", name, unwrapPath(err))
	case st.Mode()&fs.ModeSymlink != 0:
		return "", nil, wrap(ErrSymlink)
	case !st.Mode().IsRegular():
		return "", nil, wrap(ErrNotRegular)
	}
	return p, st, nil
}

// WriteFile replaces the file name below root with content, atomically: the new content is
// written to a temporary file in the same directory, given the old file's permissions, and
// renamed over the old file, so a reader sees the old or the new file, never a mix, and an
// interrupted run leaves the old file. It refuses names outside root, symbolic links (the
// rename would replace the link, never write through it) and files that are no longer old.
func WriteFile(root, name string, old, content []byte) error {
	p, st, err := locate(root, name)
	if err != nil {
		return err
	}
	cur, err := readNoFollow(p, st)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if !bytes.Equal(cur, old) {
		return fmt.Errorf("%s %w", name, ErrChanged)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+filepath.Base(p)+".*.kube-proxy-lint-fix")
	if err != nil {
		return fmt.Errorf("create a temporary file for %s: %w", name, unwrapPath(err))
	}
	done := false
	defer func() {
		if !done {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(content); err != nil {
		return fmt.Errorf("write %s: %w", name, unwrapPath(err))
	}
	if err := tmp.Chmod(st.Mode().Perm()); err != nil {
		return fmt.Errorf("keep the mode of %s: %w", name, unwrapPath(err))
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", name, unwrapPath(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, unwrapPath(err))
	}
	// A link planted at p since locate is replaced by the rename, not followed.
	if err := os.Rename(tmp.Name(), p); err != nil {
		return fmt.Errorf("replace %s: %w", name, unwrapPath(err))
	}
	done = true
	return nil
}

// readNoFollow reads the regular file p, which Lstat described as st, and fails when what it
// opened is another file (a link or file swapped in since).
func readNoFollow(p string, st fs.FileInfo) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, unwrapPath(err)
	}
	defer func() { _ = f.Close() }()
	fst, err := f.Stat()
	if err != nil {
		return nil, unwrapPath(err)
	}
	if !os.SameFile(st, fst) || !fst.Mode().IsRegular() {
		return nil, ErrChanged
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, unwrapPath(err)
	}
	return b, nil
}

// unwrapPath drops the path from *fs.PathError: callers name the file themselves, relative to
// the tree.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}
