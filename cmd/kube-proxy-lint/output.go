package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
// a reader never sees a half-written report, and a failed run leaves the old file intact.
func writeOutput(stdout io.Writer, path string, write func(io.Writer) error) error {
	if path == "" {
		return write(stdout)
	}
	mode := os.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if st.Mode()&(os.ModeDevice|os.ModeNamedPipe|os.ModeCharDevice) != 0 {
			// /dev/null, /dev/stderr, a FIFO: nothing to replace atomically, write through.
			return writeDevice(path, write)
		}
		if !st.Mode().IsRegular() {
			return fmt.Errorf("replace %s: not a regular file", path)
		}
		mode = st.Mode().Perm()
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("create temporary file: %w", err)
	}
	ok := false
	defer func() {
		if !ok {
			_ = tmp.Close()
			_ = os.Remove(tmp.Name())
		}
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
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	ok = true
	return nil
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

// writeDevice writes an output to a device or pipe such as /dev/null.
func writeDevice(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		_ = f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		_ = f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	return nil
}
