package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// output is one requested report: a format and where it goes ("" is stdout).
type output struct {
	format string
	path   string
}

// parseOutputs turns --format FORMAT[=FILE] values and --output FILE into outputs.
// An output without =FILE goes to --output, else to stdout; "-" is stdout.
func parseOutputs(formats []string, outFile string, known []string) ([]output, error) {
	if len(formats) == 0 {
		formats = []string{"text"}
	}
	var outs []output
	var unnamed []int // outputs that did not name a file
	for _, v := range formats {
		name, file, hasFile := strings.Cut(v, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		if !slices.Contains(known, name) {
			return nil, fmt.Errorf("parse --format: unknown format %q (want %s)", name, orList(known))
		}
		if hasFile && file == "" {
			return nil, fmt.Errorf("parse --format: %q names no file (write %s=FILE)", v, name)
		}
		if !hasFile {
			unnamed = append(unnamed, len(outs))
		}
		if file == "-" {
			file = ""
		}
		outs = append(outs, output{format: name, path: file})
	}
	if outFile != "" {
		switch len(unnamed) {
		case 0:
			return nil, errors.New("parse --output: every --format names its own file, so --output is unused")
		case 1:
			if outFile != "-" {
				outs[unnamed[0]].path = outFile
			}
		default:
			var names []string
			for _, i := range unnamed {
				names = append(names, outs[i].format)
			}
			return nil, fmt.Errorf("parse --output: it takes one output but %s name no file; write --format FORMAT=FILE",
				andList(names))
		}
	}
	var toStdout []string
	files := map[string]string{}
	for _, o := range outs {
		if o.path == "" {
			toStdout = append(toStdout, o.format)
			continue
		}
		key := filepath.Clean(o.path)
		if abs, err := filepath.Abs(o.path); err == nil {
			key = abs
		}
		if prev, ok := files[key]; ok {
			return nil, fmt.Errorf("parse --format: %s and %s outputs both write to %s", prev, o.format, o.path)
		}
		files[key] = o.format
	}
	if len(toStdout) > 1 {
		return nil, fmt.Errorf("parse --format: %s outputs would all write to stdout; send all but one to a file with --format FORMAT=FILE",
			andList(toStdout))
	}
	return outs, nil
}

// orList formats "a, b or c".
func orList(s []string) string { return joinList(s, " or ") }

// andList formats "a, b and c".
func andList(s []string) string { return joinList(s, " and ") }

func joinList(s []string, last string) string {
	if len(s) <= 1 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + last + s[len(s)-1]
}

// writeOutput writes to stdout when path is empty, else replaces the file at path atomically:
// a reader never sees a half-written report, and a failed or interrupted run leaves the old
// file intact and no temporary file behind.
//
// Outputs are written to regular files only, never through a symbolic link inside roots
// (checkOutputPath, the same check the run made before linting). Whatever else sits at path
// (a link, a FIFO, a device, a directory) may have been planted by the repository under test,
// next to where CI writes its report: writing through a link to ~/.bashrc, or blocking forever
// on a FIFO, is refused. The names /dev/null, /dev/stdout and /dev/stderr (exactly so) are the
// run's own null device, stdout and stderr.
func writeOutput(ctx context.Context, stdout, stderr io.Writer, path string, roots []string, write func(io.Writer) error) error {
	if path == os.DevNull { // "NUL" on Windows
		path = "/dev/null"
	}
	switch path {
	case "", "/dev/stdout":
		return write(stdout)
	case "/dev/stderr":
		return write(stderr)
	case "/dev/null":
		return write(io.Discard)
	}
	dir, err := checkOutputPath(path, roots)
	if err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	target := filepath.Join(dir, filepath.Base(path))
	mode := os.FileMode(0o644)
	if st, err := os.Lstat(target); err == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("replace %s: cannot create a file in %s: %w", path, filepath.Dir(path), unwrapPath(err))
	}
	temps.add(tmp.Name())
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
		temps.remove(tmp.Name())
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("set mode of %s: %w", path, unwrapPath(err))
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	if err := ctx.Err(); err != nil {
		// Interrupted: the previous file stays.
		return err
	}
	// rename replaces whatever is at the checked name now, a link planted since the check
	// included, and never writes through it.
	if err := os.Rename(tmp.Name(), target); err != nil {
		return fmt.Errorf("replace %s: %w", path, unwrapPath(err))
	}
	ok = true
	return nil
}

// tempFiles are the temporary files of outputs being written, removed by removeTemps when a
// signal ends the run before their writers clean up.
type tempFiles struct {
	mu    sync.Mutex
	names map[string]bool
}

var temps = &tempFiles{names: map[string]bool{}}

func (t *tempFiles) add(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.names[name] = true
}

func (t *tempFiles) remove(name string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.names, name)
}

// removeTemps deletes every temporary output file still listed.
func removeTemps() {
	temps.mu.Lock()
	defer temps.mu.Unlock()
	for name := range temps.names {
		_ = os.Remove(name)
		delete(temps.names, name)
	}
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// sourceRoot is the directory that finding paths are relative to: the Git work tree holding
// path (a directory with a .git entry, which is a file in worktrees and submodules), else the
// linted directory itself (the parent directory of a linted file). For "-" it starts from the
// current directory.
func sourceRoot(path string) string {
	if path == "-" {
		path = "."
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return path
	}
	dir := abs
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		dir = filepath.Dir(abs)
	}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}

// streamName reports whether path names the run's own stdout, stderr or null device rather
// than a file: "" (stdout), and exactly /dev/stdout, /dev/stderr, /dev/null or the
// platform's null device.
func streamName(path string) bool {
	switch path {
	case "", "/dev/stdout", "/dev/stderr", "/dev/null":
		return true
	}
	return path == os.DevNull
}

// outputRoots are the trees a run reads, as physical directories (links resolved): the Git
// work tree or directory of each linted path (sourceRoot). An output path may not pass through
// a symbolic link inside one of them: the repository under test could have planted it.
func outputRoots(paths []string) []string {
	var roots []string
	for _, p := range paths {
		root := sourceRoot(p)
		if phys, err := filepath.EvalSymlinks(root); err == nil {
			root = phys
		}
		if !slices.Contains(roots, root) {
			roots = append(roots, root)
		}
	}
	return roots
}

// checkOutputPath is the one check of every file a run writes (--format FORMAT=FILE,
// --output, --write-baseline), made before anything is linted and again just before the file
// is written. It walks path element by element as the system will: an element that is a
// symbolic link inside one of roots (outputRoots) is refused, wherever it sits in the path
// (reports/x.json with reports a committed link to a directory outside the tree), because the
// repository under test may have planted it; a link outside every root is the user's own and
// is followed. Every directory on the way must exist (the error names the first one missing)
// and the file itself, when it exists, must be a regular file. It returns the physical
// directory that holds the file: the writer creates its temporary file there and renames it
// into place, so the name it writes is the one checked.
func checkOutputPath(path string, roots []string) (dir string, err error) {
	vol := filepath.VolumeName(path)
	rest := path[len(vol):]
	start := "."
	if rest != "" && os.IsPathSeparator(rest[0]) {
		start = vol + string(filepath.Separator)
	}
	if rest == "" || os.IsPathSeparator(rest[len(rest)-1]) {
		return "", errors.New("names a directory, not a file")
	}
	phys, err := filepath.EvalSymlinks(start)
	if err == nil {
		phys, err = filepath.Abs(phys)
	}
	if err != nil {
		return "", fmt.Errorf("resolve the current directory: %w", err)
	}
	elems := strings.FieldsFunc(rest, func(r rune) bool { return r < 0x80 && os.IsPathSeparator(uint8(r)) })
	written := strings.TrimSuffix(start, ".")
	for i, e := range elems {
		if written != "" && !os.IsPathSeparator(written[len(written)-1]) {
			written += string(filepath.Separator)
		}
		written += e
		if e == "." {
			continue
		}
		last := i == len(elems)-1
		next := filepath.Join(phys, e)
		st, err := os.Lstat(next)
		switch {
		case errors.Is(err, fs.ErrNotExist) && last:
			return phys, nil
		case errors.Is(err, fs.ErrNotExist):
			return "", fmt.Errorf("directory %s does not exist", written)
		case err != nil:
			return "", err
		case st.Mode()&fs.ModeSymlink != 0 && last:
			return "", errors.New("not a regular file (a symbolic link, FIFO, device or directory); outputs are written to regular files only")
		case st.Mode()&fs.ModeSymlink != 0 && underAny(phys, roots):
			return "", fmt.Errorf("%s is a symbolic link inside the linted tree; outputs are never written through one", written)
		case st.Mode()&fs.ModeSymlink != 0:
			// The user's own link, outside the tree under test.
			if next, err = filepath.EvalSymlinks(next); err != nil {
				return "", err
			}
			if st, err = os.Stat(next); err != nil {
				return "", err
			}
		}
		switch {
		case last && !st.Mode().IsRegular():
			return "", errors.New("not a regular file (a symbolic link, FIFO, device or directory); outputs are written to regular files only")
		case last:
			return phys, nil
		case !st.IsDir():
			return "", fmt.Errorf("%s is not a directory", written)
		}
		phys = next
	}
	return "", errors.New("names a directory, not a file")
}

// underAny reports whether the physical directory dir is one of roots or lies below one.
func underAny(dir string, roots []string) bool {
	for _, r := range roots {
		if rel, err := filepath.Rel(r, dir); err == nil && filepath.IsLocal(rel) {
			return true
		}
	}
	return false
}

// checkOutputs checks every file the run will write (checkOutputPath) and that a file can be
// created in its directory, before anything is linted: a typo in a directory name costs no
// linting time and names the directory, not a temporary file.
func checkOutputs(cfg *lintConfig) error {
	check := func(what, path string) error {
		if streamName(path) {
			return nil
		}
		dir, err := checkOutputPath(path, cfg.roots)
		if err == nil {
			var probe *os.File
			if probe, err = os.CreateTemp(dir, ".kube-proxy-lint-*.tmp"); err == nil {
				_ = probe.Close()
				_ = os.Remove(probe.Name())
			} else {
				err = fmt.Errorf("cannot create a file in %s: %w", filepath.Dir(path), unwrapPath(err))
			}
		}
		if err != nil {
			return fmt.Errorf("write %s %s: %w", what, path, err)
		}
		return nil
	}
	for _, o := range cfg.outputs {
		if err := check(o.format+" output", o.path); err != nil {
			return err
		}
	}
	return check("baseline", cfg.writeBaseline)
}

// unwrapPath drops the file name of a *fs.PathError: it names a temporary file, which means
// nothing to the user.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
