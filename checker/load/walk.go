package load

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/gitdiff"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/safefile"
)

// input is one file to load.
type input struct {
	name     string // reported name, slash-separated, relative to the root
	abs      string // path on disk; empty for stdin
	content  []byte // preset content (stdin)
	explicit bool   // named on the command line: always decoded
	// aliases is the run's alias expansion budget (checker.Document.Generic); turns and index
	// order its charges (order.go). Both are nil for in-memory loads.
	aliases *checker.AliasBudget
	turns   *turns
	index   int
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
	var ignored ignoredSkips
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
				probs = append(probs, checker.LoadProblem{Pos: checker.Position{Filename: name}, Message: fmt.Sprintf("input is larger than %d bytes; skipped", opts.MaxFileSize), Explicit: true})
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
		if elem, ok := linkedOut(absRoot, p, abs, st.IsDir()); !ok {
			// deploy/x.yaml with deploy a committed link to ../outside: not read, exit 2.
			probs = append(probs, checker.LoadProblem{Pos: checker.Position{Filename: relName(absRoot, abs)}, Explicit: true,
				Message: fmt.Sprintf("symlink %s points outside the linted tree; skipped", elem)})
			continue
		}
		if !st.IsDir() {
			in, prob := explicitFile(absRoot, abs)
			switch {
			case prob != nil:
				probs = append(probs, *prob)
			case !seen[in.abs]:
				seen[in.abs] = true
				ins = append(ins, in)
			}
			continue
		}
		walked, wp := walkDir(absRoot, abs, seen, td, &ignored, opts.MaxFileSize, opts.trace)
		ins = append(ins, walked...)
		probs = append(probs, wp...)
	}
	if td != nil {
		probs = append(probs, td.notice()...)
	}
	if opts.ReportIgnored {
		probs = append(probs, ignored.notice()...)
	}
	return ins, probs, absRoot, nil
}

// explicitFile is the input for a file named on the command line. A symbolic link is followed
// only when its target lies inside the tree (the root): a committed link to ~/.ssh/id_rsa
// must not be read because a hook or CI job names it. A FIFO or device is refused before it
// is opened, so that it cannot block the run.
func explicitFile(root, abs string) (input, *checker.LoadProblem) {
	name := relName(root, abs)
	skip := func(msg string) (input, *checker.LoadProblem) {
		return input{}, &checker.LoadProblem{Pos: checker.Position{Filename: name}, Message: msg, Explicit: true}
	}
	lst, err := os.Lstat(abs)
	if err != nil {
		return skip("cannot read: " + unwrapPathError(err).Error())
	}
	real := abs
	if lst.Mode()&fs.ModeSymlink != 0 {
		target, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return skip("symlink skipped: " + unwrapPathError(err).Error())
		}
		realRoot, err := filepath.EvalSymlinks(root)
		if err != nil || !inside(realRoot, target) {
			return skip("symlink points outside the linted tree; skipped")
		}
		real = target
		if lst, err = os.Lstat(real); err != nil {
			return skip("cannot read: " + unwrapPathError(err).Error())
		}
	}
	if !lst.Mode().IsRegular() {
		return skip("not a regular file (a FIFO, socket or device); skipped")
	}
	return input{name: name, abs: real, explicit: true}, nil
}

// linkedOut checks every element of a path named on the command line (p, absolute abs) that
// lies inside the tree: the root, and the current directory for a relative path. A symbolic
// link among them, which the repository under test may have committed, must lead inside the
// tree (links inside it are followed, as while walking); one that leads out is returned, as
// the path it was named by, and nothing below it is read. Links above the tree (the user's
// own, such as /tmp on some systems) are followed. The last element of a file is
// explicitFile's; that of a directory (dir true) is checked here.
func linkedOut(root, p, abs string, dir bool) (string, bool) {
	trees := []string{root}
	if !filepath.IsAbs(p) {
		if wd, err := os.Getwd(); err == nil {
			trees = append(trees, wd)
		}
	}
	for _, tree := range trees {
		rel, err := filepath.Rel(tree, abs)
		if err != nil || rel == "." || !filepath.IsLocal(rel) {
			continue
		}
		phys, err := filepath.EvalSymlinks(tree)
		if err != nil {
			continue
		}
		realTree := phys
		elems := strings.Split(rel, string(filepath.Separator))
		if !dir {
			elems = elems[:len(elems)-1]
		}
		for i, e := range elems {
			next := filepath.Join(phys, e)
			st, err := os.Lstat(next)
			if err != nil {
				break // explicitFile or the walk says what is wrong
			}
			if st.Mode()&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(next)
				if err != nil {
					break
				}
				if target != realTree && !inside(realTree, target) {
					return filepath.ToSlash(filepath.Join(elems[:i+1]...)), false
				}
				next = target
			}
			phys = next
		}
	}
	return "", true
}

// inside reports whether path lies strictly below dir (both cleaned and absolute).
func inside(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && filepath.IsLocal(rel)
}

// readReason is why a file could not be read, without its path (the problem's position
// names the file).
func readReason(err error) string {
	var se *safefile.Error
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	return unwrapPathError(err).Error()
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

// ignoredSkips are the paths .gitignore files left out of a walk, for one notice.
type ignoredSkips struct{ names []string }

// maxIgnoredNames is how many skipped paths the notice names.
const maxIgnoredNames = 20

// notice is the one load notice that lists what .gitignore left out, or nil.
func (s *ignoredSkips) notice() []checker.LoadProblem {
	if len(s.names) == 0 {
		return nil
	}
	names := slices.Clone(s.names)
	slices.Sort(names)
	shown := names[:min(len(names), maxIgnoredNames)]
	quoted := make([]string, len(shown))
	for i, n := range shown {
		quoted[i] = strconv.Quote(n)
	}
	more := ""
	if len(names) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return []checker.LoadProblem{{Pos: checker.Position{Filename: names[0]}, Message: fmt.Sprintf(
		"skipped %d paths that .gitignore names and Git does not track (files and directories the run's tree may hold, not linted): %s%s",
		len(names), strings.Join(quoted, ", "), more)}}
}

// trackedFiles are the files Git tracks below a walked directory, by slash path relative to
// it, and the directories that hold them. A .gitignore never hides a tracked file (Git itself
// does not): a pull request that commits a bad file and a .gitignore naming it must still be
// linted.
type trackedFiles struct {
	files, dirs map[string]bool
	err         error
}

// listTracked runs git ls-files in dir, when dir is inside a Git work tree (a .git entry in it
// or above it); otherwise nothing is tracked.
func listTracked(dir string) *trackedFiles {
	t := &trackedFiles{files: map[string]bool{}, dirs: map[string]bool{}}
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return t
		}
		d = parent
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := gitdiff.Git(ctx, dir, "ls-files", "-z", "--cached")
	if err != nil {
		t.err = err
		return t
	}
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		t.files[name] = true
		for d := path.Dir(name); d != "." && !t.dirs[d]; d = path.Dir(d) {
			t.dirs[d] = true
		}
	}
	return t
}

// walkDir lists candidate files below dir, honouring .gitignore files for the files Git does
// not track and skipping symlinks that loop, dangle or leave the tree. With td set, testdata
// directories below dir are skipped and counted in td; what .gitignore left out is added to
// ignored.
func walkDir(root, dir string, seen map[string]bool, td *testdataSkips, ignored *ignoredSkips, maxSize int64, trace func(name, reason string)) ([]input, []checker.LoadProblem) {
	var ins []input
	var probs []checker.LoadProblem
	ig := NewIgnorer()
	realDir, _ := filepath.EvalSymlinks(dir)
	notice := func(path, msg string) {
		probs = append(probs, checker.LoadProblem{Pos: checker.Position{Filename: relName(root, path)}, Message: msg})
	}
	// tracked is listed when .gitignore first names something: most walks never ask Git.
	var tracked *trackedFiles
	isTracked := func(rel string, isDir bool) bool {
		if tracked == nil {
			tracked = listTracked(dir)
			if tracked.err != nil {
				notice(dir, "cannot list the files Git tracks ("+tracked.err.Error()+"); what .gitignore names is skipped, tracked or not")
			}
		}
		if isDir {
			return tracked.dirs[rel]
		}
		return tracked.files[rel]
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
			if path != dir && skipDirs[e.Name()] {
				trace(relName(root, path)+"/", TraceSkipDir)
				return fs.SkipDir
			}
			if path != dir && ig.Ignored(rel, true) && !isTracked(rel, true) {
				trace(relName(root, path)+"/", TraceIgnored)
				ignored.names = append(ignored.names, relName(root, path)+"/")
				return fs.SkipDir
			}
			if path != dir && td != nil && e.Name() == testdataDir {
				td.add(relName(root, path), countFiles(path))
				trace(relName(root, path)+"/", TraceTestdata)
				return fs.SkipDir
			}
			gi := filepath.Join(path, ".gitignore")
			if _, err := os.Lstat(gi); err == nil {
				// A .gitignore may be a planted link to /dev/zero or a FIFO: read only a
				// regular file, never through a link, at most the file size limit.
				b, err := safefile.ReadFile(gi, maxSize)
				if err != nil {
					notice(gi, "not read: "+readReason(err))
					return nil
				}
				if rel == "." {
					rel = ""
				}
				ig.AddFile(rel, b)
			}
			return nil
		}
		if ig.Ignored(rel, false) && !isTracked(rel, false) {
			trace(relName(root, path), TraceIgnored)
			ignored.names = append(ignored.names, relName(root, path))
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
		// The name filter sees the reported name, as FromGit's does.
		name := relName(root, path)
		if !wantName(name) {
			trace(name, TraceName)
			return nil
		}
		if !e.Type().IsRegular() {
			notice(path, "not a regular file (a FIFO, socket or device); skipped")
			return nil
		}
		if seen[path] {
			return nil
		}
		seen[path] = true
		ins = append(ins, input{name: name, abs: path})
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

// readSized reads at most limit bytes of r into a buffer sized for the size the file had when
// opened (as os.ReadFile does), so that a file's content costs its size: io.ReadAll's
// doubling left up to half of every buffer unused, for the whole run.
func readSized(r io.Reader, size, limit int64) ([]byte, error) {
	b := make([]byte, 0, min(max(size, 0), limit)+1)
	lr := io.LimitReader(r, limit)
	for {
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return b, nil
			}
			return b, err
		}
		if len(b) == cap(b) {
			// The file grew since it was opened.
			b = append(b, 0)[:len(b)]
		}
	}
}

// readAndParse reads one input and decodes it. It returns a nil file when the file is not
// one kube-proxy-lint reads.
func readAndParse(ctx context.Context, in input, maxSize int64) (*checker.File, []checker.LoadProblem) {
	skip := func(msg string) (*checker.File, []checker.LoadProblem) {
		return nil, []checker.LoadProblem{{Pos: checker.Position{Filename: in.name}, Message: msg, Explicit: in.explicit}}
	}
	content := in.content
	if in.abs != "" {
		// Regular files only, never through a link (the walk saw a regular file, but it may
		// have been swapped since), without blocking on a FIFO, at most maxSize bytes.
		fh, st, err := safefile.Open(in.abs)
		if err != nil {
			return skip("cannot read: " + readReason(err))
		}
		defer func() { _ = fh.Close() }()
		if st.Size() > maxSize {
			return skip(fmt.Sprintf("file is larger than %d bytes; skipped (see --max-file-size)", maxSize))
		}
		content, err = readSized(fh, st.Size(), maxSize+1)
		if err != nil {
			return skip("cannot read: " + unwrapPathError(err).Error())
		}
		if int64(len(content)) > maxSize {
			return skip(fmt.Sprintf("file is larger than %d bytes; skipped (see --max-file-size)", maxSize))
		}
	}
	if enc := unicodeBOM(content); enc != "" {
		if !in.explicit && !claimedName(in.name) {
			return nil, nil
		}
		return skip(fmt.Sprintf("file is %s (byte order mark); kube-proxy-lint reads UTF-8: convert it (e.g. iconv -f %s -t UTF-8) to lint it", enc, enc))
	}
	f := newFile(in.name, content)
	class, why := classifyWhy(in.name, content, in.explicit)
	f.Reason = why
	f.AliasBudget = in.aliases
	switch class {
	case classYAML:
		if in.turns != nil && bytes.IndexByte(content, '*') >= 0 {
			// Aliases: charge the run's budget in input order (order.go).
			in.turns.wait(in.index)
		}
		probs := parseFile(f)
		if len(f.Docs) == 0 && in.explicit {
			// A named file that could not be read as YAML at all (binary, not UTF-8) and is
			// not reported as KP001: the run must not pass as if it had been linted.
			for i := range probs {
				if !probs[i].Manifest {
					probs[i].Explicit = true
				}
			}
		}
		for _, d := range f.Docs {
			if ctx.Err() != nil {
				// Cancelled (SIGINT/SIGTERM): the run is abandoned, stop inside a long file.
				return nil, nil
			}
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
		var probs []checker.LoadProblem
		if nul := bytes.IndexByte(content, 0); nul >= 0 {
			// A script with a binary payload (a self-extracting installer): the text before
			// the payload is linted, the rest is not, and the user is told.
			pos := f.PositionAt(nul)
			f = newFile(in.name, content[:nul])
			probs = append(probs, checker.LoadProblem{Pos: pos, Message: "binary data (a NUL byte) from here on is not linted"})
		}
		f.Format = checker.FormatText
		for _, dec := range textDecoders {
			probs = append(probs, dec(f)...)
		}
		return f, probs
	}
	if bytes.IndexByte(content, 0) >= 0 && (in.explicit || claimedName(in.name)) {
		nul := bytes.IndexByte(content, 0)
		return nil, []checker.LoadProblem{{Pos: f.PositionAt(nul), Message: "binary file (a NUL byte) skipped", Explicit: in.explicit}}
	}
	return nil, nil
}

// claimedName reports whether a file's name alone says it is one kube-proxy-lint reads (YAML,
// a YAML template, a script, unit, Dockerfile, Makefile or flag file), as opposed to the
// names the walk only looks into (no extension, .conf), so that skipping it deserves a notice.
func claimedName(name string) bool {
	return isYAMLName(name) || isYAMLTemplate(name) || isTextFirst(name, nil)
}

// unicodeBOM names the encoding of a UTF-16 or UTF-32 byte order mark at the start of b, or
// returns "".
func unicodeBOM(b []byte) string {
	switch {
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE, 0, 0}):
		return "UTF-32LE"
	case bytes.HasPrefix(b, []byte{0, 0, 0xFE, 0xFF}):
		return "UTF-32BE"
	case bytes.HasPrefix(b, []byte{0xFF, 0xFE}):
		return "UTF-16LE"
	case bytes.HasPrefix(b, []byte{0xFE, 0xFF}):
		return "UTF-16BE"
	}
	return ""
}
