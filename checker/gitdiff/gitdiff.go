// Package gitdiff computes which lines of a Git work tree (or of a commit) changed since a
// revision, for --new-from-rev, --new-from-merge-base and --whole-files. It runs the git
// command and parses its unified diff; Changes answers the engine's ChangeSet questions.
package gitdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strconv"
	"strings"
)

// Changes are the changed lines of each file, by slash path relative to the repository root.
type Changes struct {
	// WholeFiles widens every question to the file: any change in a file makes all of its
	// lines count as changed (--whole-files).
	WholeFiles bool
	files      map[string]*fileChanges
}

type fileChanges struct {
	// all is set for new and untracked files: every line is new.
	all bool
	// added are the new-side line ranges that were added or modified, sorted by start.
	added []lineRange
	// removed are the places lines were removed: after new-side line n (0: before line 1).
	removed []int
}

type lineRange struct{ from, to int }

// NewChanges returns an empty set.
func NewChanges() *Changes { return &Changes{files: map[string]*fileChanges{}} }

func (c *Changes) file(name string) *fileChanges {
	fc := c.files[name]
	if fc == nil {
		fc = &fileChanges{}
		c.files[name] = fc
	}
	return fc
}

// AddFile marks every line of a file as new (an untracked or added file).
func (c *Changes) AddFile(name string) { c.file(name).all = true }

// AddLines marks lines from..to (1-based, inclusive) of a file as added or modified.
func (c *Changes) AddLines(name string, from, to int) {
	fc := c.file(name)
	fc.added = append(fc.added, lineRange{from, to})
}

// AddRemoval records that lines were removed right after new-side line after.
func (c *Changes) AddRemoval(name string, after int) {
	fc := c.file(name)
	fc.removed = append(fc.removed, after)
}

// Files returns the names of the changed files, sorted.
func (c *Changes) Files() []string {
	names := make([]string, 0, len(c.files))
	for n := range c.files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Changed reports whether any of lines from..to of file was added or modified; from == 0
// asks whether the file changed at all.
func (c *Changes) Changed(file string, from, to int) bool {
	fc := c.files[file]
	if fc == nil {
		return false
	}
	if fc.all || from == 0 || c.WholeFiles {
		return true
	}
	for _, r := range fc.added {
		if r.from <= to && from <= r.to {
			return true
		}
	}
	return false
}

// Edited is Changed that also counts lines removed inside the range or at its edges.
func (c *Changes) Edited(file string, from, to int) bool {
	if c.Changed(file, from, to) {
		return true
	}
	fc := c.files[file]
	if fc == nil {
		return false
	}
	for _, after := range fc.removed {
		if from-1 <= after && after <= to {
			return true
		}
	}
	return false
}

// Parse reads a unified diff with zero or more context lines, as "git diff" writes it with
// the default a/ and b/ prefixes, and records the new side's changed lines. Deleted files and
// pure renames change no line.
func Parse(diff []byte) (*Changes, error) {
	c := NewChanges()
	var cur string // new-side name of the current file; "" when deleted or unknown
	oldLeft, newLeft := 0, 0
	n := 0
	// Lines are split by hand, not with bufio.Scanner: a changed line may be longer than any
	// buffer (a minified 100 MB JSON file), and content lines are only looked at by their
	// first byte.
	for rest := diff; len(rest) > 0; {
		n++
		raw := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			raw, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		raw = bytes.TrimSuffix(raw, []byte{'\r'})
		if oldLeft > 0 || newLeft > 0 {
			// Inside a hunk: content lines, which may look like headers ("--- x").
			first := byte(0)
			if len(raw) > 0 {
				first = raw[0]
			}
			switch first {
			case '+':
				newLeft--
			case '-':
				oldLeft--
			case ' ', 0:
				oldLeft--
				newLeft--
			case '\\':
				// "\ No newline at end of file"
			default:
				// The line is the repository's content: not quoted.
				return nil, fmt.Errorf("parse diff line %d: unexpected line inside a hunk", n)
			}
			continue
		}
		if !bytes.HasPrefix(raw, []byte("diff --git ")) && !bytes.HasPrefix(raw, []byte("+++ ")) && !bytes.HasPrefix(raw, []byte("@@ ")) {
			continue
		}
		line := string(raw)
		switch {
		case strings.HasPrefix(line, "diff --git "):
			cur = ""
		case strings.HasPrefix(line, "+++ "):
			name := strings.TrimSuffix(line[4:], "\t")
			if name == "/dev/null" {
				cur = ""
				continue
			}
			name, err := unquote(name)
			if err != nil {
				return nil, fmt.Errorf("parse diff line %d: %w", n, err)
			}
			cur = strings.TrimPrefix(name, "b/")
		case strings.HasPrefix(line, "@@ "):
			o, nw, err := hunkCounts(line)
			if err != nil {
				return nil, fmt.Errorf("parse diff line %d: %w", n, err)
			}
			oldLeft, newLeft = o.count, nw.count
			if cur == "" {
				continue
			}
			if nw.count == 0 {
				// Pure removal: "+c,0" names the line before the removed ones.
				c.AddRemoval(cur, nw.start)
				continue
			}
			c.AddLines(cur, nw.start, nw.start+nw.count-1)
		}
	}
	return c, nil
}

type hunkSide struct{ start, count int }

// hunkCounts parses "@@ -a[,b] +c[,d] @@ …".
func hunkCounts(line string) (old, nw hunkSide, err error) {
	f := strings.Fields(line)
	if len(f) < 3 || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return old, nw, errors.New("bad hunk header")
	}
	if old, err = parseSide(f[1][1:]); err != nil {
		return old, nw, errors.New("bad hunk header")
	}
	if nw, err = parseSide(f[2][1:]); err != nil {
		return old, nw, errors.New("bad hunk header")
	}
	return old, nw, nil
}

func parseSide(s string) (hunkSide, error) {
	start, count, hasCount := strings.Cut(s, ",")
	var h hunkSide
	var err error
	if h.start, err = strconv.Atoi(start); err != nil {
		return h, err
	}
	h.count = 1
	if hasCount {
		if h.count, err = strconv.Atoi(count); err != nil {
			return h, err
		}
	}
	return h, nil
}

// unquote decodes a path that git quoted C-style because of special characters.
func unquote(s string) (string, error) {
	if !strings.HasPrefix(s, `"`) {
		return s, nil
	}
	u, err := strconv.Unquote(s)
	if err != nil {
		return "", fmt.Errorf("unquote path %s: %w", s, err)
	}
	return u, nil
}

// Options say what to compare.
type Options struct {
	// Dir is any directory inside the work tree; "" is the current directory.
	Dir string
	// Base is the revision to compare with (--new-from-rev REV).
	Base string
	// MergeBase compares with the merge base of Base and the linted revision
	// (--new-from-merge-base REV), as a pull request's diff does.
	MergeBase bool
	// Head is the linted revision (--rev); "" compares with the work tree, including staged,
	// unstaged and untracked files that are not ignored.
	Head string
	// WholeFiles sets Changes.WholeFiles.
	WholeFiles bool
	// Paths, when set, limit the diff to these files (slash paths relative to the
	// repository root).
	Paths []string
}

// Compute runs git and returns the changes of Head (or the work tree) since Base, with file
// names relative to the repository root.
func Compute(ctx context.Context, opts Options) (*Changes, error) {
	top, err := Git(ctx, opts.Dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("find repository: %w", err)
	}
	root := strings.TrimRight(string(top), "\n")
	base, err := ResolveCommit(ctx, root, opts.Base)
	if err != nil {
		return nil, err
	}
	head := ""
	if opts.Head != "" {
		if head, err = ResolveCommit(ctx, root, opts.Head); err != nil {
			return nil, err
		}
	}
	if opts.MergeBase {
		other := head
		if other == "" {
			other = "HEAD"
		}
		mb, err := Git(ctx, root, "merge-base", base, other)
		if err != nil {
			return nil, fmt.Errorf("find merge base of %s and %s: %w (in a shallow clone, fetch more history: git fetch --unshallow)", opts.Base, other, err)
		}
		base = strings.TrimSpace(string(mb))
	}
	args := []string{"-c", "core.quotePath=false", "diff", "--no-color", "--no-ext-diff", "--no-textconv",
		"--unified=0", "--src-prefix=a/", "--dst-prefix=b/", "-M", base}
	if head != "" {
		args = append(args, head)
	}
	args = append(args, "--")
	args = append(args, pathspecs(opts.Paths)...)
	out, err := Git(ctx, root, args...)
	if err != nil {
		return nil, fmt.Errorf("diff against %s: %w", opts.Base, err)
	}
	c, err := Parse(out)
	if err != nil {
		return nil, err
	}
	c.WholeFiles = opts.WholeFiles
	if head == "" {
		// Files git does not track yet are new in full, as in golangci-lint.
		out, err := Git(ctx, root, append([]string{"ls-files", "-z", "--others", "--exclude-standard", "--"}, pathspecs(opts.Paths)...)...)
		if err != nil {
			return nil, fmt.Errorf("list untracked files: %w", err)
		}
		for _, name := range strings.Split(string(out), "\x00") {
			if name != "" {
				c.AddFile(name)
			}
		}
	}
	return c, nil
}

// pathspecs turns root-relative file names into literal pathspecs: a name with "*" or ":"
// means itself.
func pathspecs(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = ":(top,literal)" + p
	}
	return out
}

// ResolveCommit turns a revision into a commit ID, with an error that names the revision.
func ResolveCommit(ctx context.Context, dir, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", fmt.Errorf("resolve revision %q: not a revision", rev)
	}
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil {
		return "", fmt.Errorf("resolve revision %q: unknown revision or not a commit", rev)
	}
	return strings.TrimSpace(string(out)), nil
}

// Git runs git with args in dir and returns its standard output. The error carries git's
// first line of standard error. Git's own configuration applies, except that no pager or
// external diff runs.
func Git(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	cmd.Env = append(cmd.Environ(), "GIT_PAGER=cat", "GIT_EXTERNAL_DIFF=", "LC_ALL=C")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n")
			if msg == "" {
				msg = ee.String()
			}
			return nil, fmt.Errorf("git %s: %s", subcommand(args), msg)
		}
		return nil, fmt.Errorf("run git: %w", err)
	}
	return out, nil
}

// subcommand names the git command of args, skipping "-c key=value" options.
func subcommand(args []string) string {
	for i := 0; i < len(args); i++ {
		if args[i] == "-c" {
			i++
			continue
		}
		return args[i]
	}
	return ""
}
