package load

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// input is one file to load.
type input struct {
	name     string // reported name, slash-separated, relative to the root
	abs      string // path on disk; empty for stdin
	content  []byte // preset content (stdin)
	explicit bool   // named on the command line: always decoded
}

// skipDirs are never descended into.
var skipDirs = map[string]bool{".git": true, "vendor": true, "node_modules": true}

// testdataDir is the directory name Go tools skip; Load skips it unless
// Options.IncludeTestdata is set.
const testdataDir = "testdata"

// testdataSkips counts what skipping testdata directories left out, for one notice.
type testdataSkips struct {
	first       string
	dirs, files int
}

func (t *testdataSkips) add(dir string, files int) {
	if t.first == "" || dir < t.first {
		t.first = dir
	}
	t.dirs++
	t.files += files
}

// notice is the one load notice that says how much was skipped, or nil.
func (t *testdataSkips) notice() []checker.LoadProblem {
	if t.dirs == 0 {
		return nil
	}
	return []checker.LoadProblem{{Pos: checker.Position{Filename: t.first}, Message: fmt.Sprintf(
		"skipped %d files in %d testdata directories (test inputs, not clusters); --include-testdata lints them", t.files, t.dirs)}}
}

// collect expands the paths into the files to load.
func collect(opts Options) ([]input, []checker.LoadProblem, string, error) {
	root := opts.Root
	if root == "" {
		root = "."
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, nil, "", fmt.Errorf("resolve root: %w", err)
	}
	paths := opts.Paths
	if len(paths) == 0 {
		paths = []string{"."}
	}
	var ins []input
	var probs []checker.LoadProblem
	seen := map[string]bool{}
	var td *testdataSkips
	if !opts.IncludeTestdata {
		td = &testdataSkips{}
	}
	for _, p := range paths {
		if p == "-" {
			if opts.Stdin == nil {
				return nil, nil, "", errors.New("read stdin: no input")
			}
			b, err := io.ReadAll(io.LimitReader(opts.Stdin, opts.MaxFileSize+1))
			if err != nil {
				return nil, nil, "", fmt.Errorf("read stdin: %w", err)
			}
			name := opts.StdinName
			if name == "" {
				name = "<stdin>"
			}
			if int64(len(b)) > opts.MaxFileSize {
				probs = append(probs, checker.LoadProblem{Pos: checker.Position{Filename: name}, Message: fmt.Sprintf("input is larger than %d bytes; skipped", opts.MaxFileSize)})
				continue
			}
			ins = append(ins, input{name: name, content: b, explicit: true})
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, nil, "", fmt.Errorf("lint %s: %w", p, unwrapPathError(err))
		}
		abs, _ := filepath.Abs(p)
		if !st.IsDir() {
			if !seen[abs] {
				seen[abs] = true
				ins = append(ins, input{name: relName(absRoot, abs), abs: abs, explicit: true})
			}
			continue
		}
		walked, wp := walkDir(absRoot, abs, seen, td)
		ins = append(ins, walked...)
		probs = append(probs, wp...)
	}
	if td != nil {
		probs = append(probs, td.notice()...)
	}
	return ins, probs, absRoot, nil
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

func relName(root, abs string) string {
	if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return filepath.ToSlash(abs)
}

// walkDir lists candidate files below dir, honouring .gitignore files and skipping symlinks
// that loop, dangle or leave the tree. With td set, testdata directories below dir are
// skipped and counted in td.
func walkDir(root, dir string, seen map[string]bool, td *testdataSkips) ([]input, []checker.LoadProblem) {
	var ins []input
	var probs []checker.LoadProblem
	ig := NewIgnorer()
	realDir, _ := filepath.EvalSymlinks(dir)
	notice := func(path, msg string) {
		probs = append(probs, checker.LoadProblem{Pos: checker.Position{Filename: relName(root, path)}, Message: msg})
	}
	_ = filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		if err != nil {
			notice(path, "cannot read: "+unwrapPathError(err).Error())
			if e != nil && e.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			if path != dir && (skipDirs[e.Name()] || ig.Ignored(rel, true)) {
				return fs.SkipDir
			}
			if path != dir && td != nil && e.Name() == testdataDir {
				td.add(relName(root, path), countFiles(path))
				return fs.SkipDir
			}
			if b, err := os.ReadFile(filepath.Join(path, ".gitignore")); err == nil {
				if rel == "." {
					rel = ""
				}
				ig.AddFile(rel, b)
			}
			return nil
		}
		if ig.Ignored(rel, false) {
			return nil
		}
		if e.Type()&fs.ModeSymlink != 0 {
			target, err := filepath.EvalSymlinks(path)
			if err != nil {
				notice(path, "symlink skipped: "+unwrapPathError(err).Error())
				return nil
			}
			if realDir != "" && !strings.HasPrefix(target, realDir+string(filepath.Separator)) {
				notice(path, "symlink points outside the linted tree; skipped")
			}
			// Links inside the tree are linted at their real path.
			return nil
		}
		if !e.Type().IsRegular() {
			return nil
		}
		if !wantName(path) {
			return nil
		}
		if seen[path] {
			return nil
		}
		seen[path] = true
		ins = append(ins, input{name: relName(root, path), abs: path})
		return nil
	})
	return ins, probs
}

// countFiles counts the regular files below dir, without reading them.
func countFiles(dir string) int {
	n := 0
	_ = filepath.WalkDir(dir, func(_ string, e fs.DirEntry, err error) error {
		if err == nil && e.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// readAndParse reads one input and decodes it. It returns a nil file when the file is not
// one kube-proxy-lint reads.
func readAndParse(in input, maxSize int64) (*checker.File, []checker.LoadProblem) {
	content := in.content
	if in.abs != "" {
		fh, err := os.Open(in.abs)
		if err != nil {
			return nil, []checker.LoadProblem{{Pos: checker.Position{Filename: in.name}, Message: "cannot read: " + unwrapPathError(err).Error()}}
		}
		defer func() { _ = fh.Close() }()
		content, err = io.ReadAll(io.LimitReader(fh, maxSize+1))
		if err != nil {
			return nil, []checker.LoadProblem{{Pos: checker.Position{Filename: in.name}, Message: "cannot read: " + unwrapPathError(err).Error()}}
		}
		if int64(len(content)) > maxSize {
			return nil, []checker.LoadProblem{{Pos: checker.Position{Filename: in.name}, Message: fmt.Sprintf("file is larger than %d bytes; skipped (see --max-file-size)", maxSize)}}
		}
	}
	f := newFile(in.name, content)
	class, why := classifyWhy(in.name, content, in.explicit)
	f.Reason = why
	switch class {
	case classYAML:
		probs := parseFile(f)
		for _, d := range f.Docs {
			probs = append(probs, decodeDoc(d)...)
		}
		if strings.HasPrefix(why, "content: apiVersion") {
			// Read as YAML for what its first lines say, not for its name: a file that then
			// fails to decode is a notice, not a KP001 finding.
			for i := range probs {
				if probs[i].Document == nil {
					probs[i].Manifest = false
				}
			}
		}
		return f, probs
	case classText:
		f.Format = checker.FormatText
		var probs []checker.LoadProblem
		for _, dec := range textDecoders {
			probs = append(probs, dec(f)...)
		}
		return f, probs
	}
	return nil, nil
}
