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
// Outputs are written to regular files only. Whatever else sits at path (a symbolic link, a
// FIFO, a device, a directory) may have been planted by the repository under test, next to
// where CI writes its report: writing through a link to ~/.bashrc, or blocking forever on a
// FIFO, is refused. The names /dev/null, /dev/stdout and /dev/stderr (exactly so) are the
// run's own null device, stdout and stderr.
func writeOutput(ctx context.Context, stdout, stderr io.Writer, path string, write func(io.Writer) error) error {
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
	mode := os.FileMode(0o644)
	st, err := os.Lstat(path)
	switch {
	case err == nil && st.Mode().IsRegular():
		mode = st.Mode().Perm()
	case err == nil:
		return fmt.Errorf("replace %s: not a regular file (a symbolic link, FIFO, device or directory); outputs are written to regular files only", path)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("replace %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
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
		return fmt.Errorf("write %s: %w", tmp.Name(), err)
	}
	if err := tmp.Chmod(mode); err != nil {
		return fmt.Errorf("set mode of %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", tmp.Name(), err)
	}
	if err := ctx.Err(); err != nil {
		// Interrupted: the previous file stays.
		return err
	}
	// rename replaces whatever is at path now, a link planted since Lstat included, and never
	// writes through it.
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
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
