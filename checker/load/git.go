package load

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/gitdiff"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
)

// treeEntry is one blob of a commit's tree.
type treeEntry struct {
	mode, oid, name string
	size            int64
}

// FromGit loads the tree of commit rev of the repository holding dir, without checking it
// out: the files are read with git ls-tree and git cat-file --batch. File names are relative
// to the repository root, as in the repository. opts.Paths select files and directories; they
// are relative to dir, as on the command line ("." or none: the whole tree). The skip rules of
// Load apply: .git, vendor and node_modules directories, file kinds, --max-file-size; a
// symbolic link is skipped, with a notice when it leaves the tree. .gitignore files do not:
// every file of a commit is tracked, and Git never hides a tracked file. opts.Root and
// opts.Stdin are not used.
func FromGit(ctx context.Context, dir, rev string, opts Options) (*checker.Workspace, error) {
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	opts.ruleFacts = newRuleFacts(opts.Facts)
	if dir == "" {
		dir = "."
	}
	out, err := gitdiff.Git(ctx, dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("find repository: %w", err)
	}
	top := strings.TrimRight(string(out), "\n")
	commit, err := gitdiff.ResolveCommit(ctx, top, rev)
	if err != nil {
		return nil, err
	}
	selected, err := repoPaths(top, dir, opts.Paths)
	if err != nil {
		return nil, err
	}
	out, err = gitdiff.Git(ctx, top, "ls-tree", "-r", "-l", "-z", "--full-tree", commit)
	if err != nil {
		return nil, fmt.Errorf("list tree of %s: %w", rev, err)
	}
	entries, err := parseLsTree(out)
	if err != nil {
		return nil, fmt.Errorf("list tree of %s: %w", rev, err)
	}
	var probs []checker.LoadProblem
	notice := func(name, msg string) {
		probs = append(probs, checker.LoadProblem{Pos: checker.Position{Filename: name}, Message: msg})
	}
	var td *testdataSkips
	tdFiles := map[string]int{}
	if !opts.IncludeTestdata {
		td = &testdataSkips{}
	}
	var picked []treeEntry
	var explicit []bool
	var links []treeEntry
	found := make([]bool, len(selected))
	for _, e := range entries {
		sel, exact := -1, false
		for i, p := range selected {
			if p == "" || e.name == p || strings.HasPrefix(e.name, p+"/") {
				sel, exact = i, e.name == p
				found[i] = true
				break
			}
		}
		if sel < 0 {
			continue
		}
		if !exact && skippedDir(e.name, selected[sel]) {
			opts.trace(e.name, TraceSkipDir)
			continue
		}
		if !exact && td != nil {
			if d := testdataBelow(e.name, selected[sel]); d != "" {
				tdFiles[d]++
				opts.trace(e.name, TraceTestdata)
				continue
			}
		}
		switch e.mode {
		case "120000":
			links = append(links, e)
			continue
		case "160000":
			opts.trace(e.name+"/", TraceSubmodule)
			continue // a submodule: its tree is another repository's
		}
		// The same name filter as the directory walk (wantName), so --rev reads what a
		// work-tree run reads: scripts, units, Terraform, inventories and the rest.
		if !exact && !wantName(e.name) {
			opts.trace(e.name, TraceName)
			continue
		}
		if e.size > opts.MaxFileSize {
			notice(e.name, fmt.Sprintf("file is larger than %d bytes; skipped (see --max-file-size)", opts.MaxFileSize))
			continue
		}
		picked = append(picked, e)
		explicit = append(explicit, exact)
	}
	for i, ok := range found {
		if !ok {
			return nil, fmt.Errorf("lint %s: no such file or directory in %s", opts.Paths[i], rev)
		}
	}
	if td != nil {
		for d, n := range tdFiles {
			td.add(d, n)
		}
		probs = append(probs, td.notice()...)
	}
	if len(links) > 0 {
		targets, err := catBlobs(ctx, top, links)
		if err != nil {
			return nil, err
		}
		for i, l := range links {
			t := string(targets[i])
			if j := path.Join(path.Dir(l.name), t); path.IsAbs(t) || j == ".." || strings.HasPrefix(j, "../") {
				notice(l.name, "symlink points outside the linted tree; skipped")
			}
		}
	}
	blobs, err := catBlobs(ctx, top, picked)
	if err != nil {
		return nil, err
	}
	run := budget.From(ctx)
	for i, b := range blobs {
		if run.Charge(int64(len(b)), picked[i].name) != nil {
			// The run is stopped; its budget reports why.
			return nil, fmt.Errorf("load files: %w", ctx.Err())
		}
	}
	ws := &checker.Workspace{Root: top, Problems: probs}
	files := make([]*checker.File, len(picked))
	fileProbs := make([][]checker.LoadProblem, len(picked))
	aliases := checker.NewAliasBudget(checker.MaxRunAliasNodes)
	order := newTurns(len(picked))
	compactors := sync.Pool{New: func() any { return new(compactor) }}
	parallel(len(picked), opts.Workers, func(i int) {
		defer order.finish(i)
		content := blobs[i]
		if c, ok := opts.Overlay[picked[i].name]; ok {
			content = c
		}
		in := input{name: picked[i].name, content: content, explicit: explicit[i], aliases: aliases, turns: order, index: i}
		files[i], fileProbs[i] = readAndParse(ctx, in, opts.MaxFileSize)
		if !opts.KeepTrees {
			pruneWith(files[i], opts.ruleFactsOf())
			c := compactors.Get().(*compactor)
			settle(files[i], fileProbs[i], in, opts, c)
			compactors.Put(c)
		}
		if files[i] == nil && len(fileProbs[i]) == 0 {
			opts.trace(picked[i].name, TraceContent)
		}
	})
	for i, f := range files {
		ws.Problems = append(ws.Problems, fileProbs[i]...)
		if f != nil {
			ws.Files = append(ws.Files, f)
		}
	}
	if !opts.Helm.Disabled {
		// Charts of the commit render from the files read here (YAML, templates and their
		// helpers; files of other names are not in .Files).
		ins := make([]input, len(picked))
		mem := make(map[string][]byte, len(picked))
		for i, pk := range picked {
			ins[i] = input{name: pk.name}
			mem[pk.name] = blobs[i]
			if c, ok := opts.Overlay[pk.name]; ok {
				mem[pk.name] = c
			}
		}
		if charts := findCharts(ins); len(charts) > 0 {
			renderCharts(ctx, ws, charts, ins, opts, mem)
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("render Helm charts: %w", err)
		}
	}
	ws.TargetFallback = opts.Fallback
	if errs := declaredErrors(finish(ws, opts.Target, opts.Clusters), opts.ClustersPartial); len(errs) > 0 {
		return ws, errors.Join(errs...)
	}
	return ws, nil
}

// repoPaths turns command-line paths, relative to dir, into slash paths relative to the
// repository root top; "" stands for the whole tree.
func repoPaths(top, dir string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		paths = []string{"."}
	}
	realTop, err := filepath.EvalSymlinks(top)
	if err != nil {
		return nil, fmt.Errorf("resolve repository root: %w", err)
	}
	base, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("resolve %s: %w", dir, err)
	}
	if b, err := filepath.EvalSymlinks(base); err == nil {
		base = b
	}
	sel := make([]string, 0, len(paths))
	for _, p := range paths {
		if p == "-" {
			return nil, errors.New("lint -: standard input cannot be read from a Git revision")
		}
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(base, p)
		}
		rel, err := filepath.Rel(realTop, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return nil, fmt.Errorf("lint %s: outside the repository %s", p, top)
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			rel = ""
		}
		sel = append(sel, rel)
	}
	return sel, nil
}

// testdataBelow returns the first testdata directory between the selected path and the file
// name, or "".
func testdataBelow(name, selected string) string {
	rest := strings.TrimPrefix(strings.TrimPrefix(name, selected), "/")
	dirs := strings.Split(rest, "/")
	for i, d := range dirs[:len(dirs)-1] {
		if d == testdataDir {
			return strings.TrimPrefix(selected+"/"+strings.Join(dirs[:i+1], "/"), "/")
		}
	}
	return ""
}

// skippedDir reports whether a directory between the selected path and the file is one
// that Load never descends into.
func skippedDir(name, selected string) bool {
	rest := strings.TrimPrefix(strings.TrimPrefix(name, selected), "/")
	dirs := strings.Split(rest, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if skipDirs[d] {
			return true
		}
	}
	return false
}

// parseLsTree parses "git ls-tree -r -l -z" output: "<mode> <type> <oid> <size>\t<path>\0".
func parseLsTree(out []byte) ([]treeEntry, error) {
	var es []treeEntry
	for _, rec := range bytes.Split(out, []byte{0}) {
		if len(rec) == 0 {
			continue
		}
		meta, name, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			return nil, fmt.Errorf("unexpected ls-tree record %q", rec)
		}
		f := strings.Fields(string(meta))
		if len(f) != 4 {
			return nil, fmt.Errorf("unexpected ls-tree record %q", rec)
		}
		if f[1] != "blob" {
			if f[1] == "commit" {
				es = append(es, treeEntry{mode: f[0], oid: f[2], name: string(name)})
			}
			continue
		}
		size, err := strconv.ParseInt(f[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("unexpected ls-tree size in %q", rec)
		}
		es = append(es, treeEntry{mode: f[0], oid: f[2], name: string(name), size: size})
	}
	return es, nil
}

// catBlobs reads the contents of blobs with one "git cat-file --batch" process.
func catBlobs(ctx context.Context, dir string, es []treeEntry) ([][]byte, error) {
	if len(es) == 0 {
		return nil, nil
	}
	cmd := exec.CommandContext(ctx, "git", "cat-file", "--batch")
	cmd.Dir = dir
	var stdin bytes.Buffer
	for _, e := range es {
		stdin.WriteString(e.oid + "\n")
	}
	cmd.Stdin = &stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("read blobs: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("read blobs: %w", err)
	}
	r := bufio.NewReaderSize(stdout, 64<<10)
	contents := make([][]byte, len(es))
	var readErr error
	for i := range es {
		header, err := r.ReadString('\n')
		if err != nil {
			readErr = fmt.Errorf("read blob %s: %w", es[i].name, err)
			break
		}
		f := strings.Fields(header)
		if len(f) != 3 {
			readErr = fmt.Errorf("read blob %s: git cat-file says %q", es[i].name, strings.TrimSpace(header))
			break
		}
		n, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			readErr = fmt.Errorf("read blob %s: bad size %q", es[i].name, f[2])
			break
		}
		buf := make([]byte, n+1) // content and the newline after it
		if _, err := io.ReadFull(r, buf); err != nil {
			readErr = fmt.Errorf("read blob %s: %w", es[i].name, err)
			break
		}
		contents[i] = buf[:n]
	}
	if readErr != nil {
		_ = cmd.Process.Kill()
	}
	_, _ = io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil && readErr == nil {
		readErr = fmt.Errorf("read blobs: git cat-file (%s): %w", strings.TrimSpace(stderr.String()), err)
	}
	if readErr != nil {
		return nil, readErr
	}
	return contents, nil
}

// parallel calls fn(0..n-1) on at most workers goroutines (GOMAXPROCS when 0).
func parallel(n, workers int, fn func(int)) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, n) {
		wg.Go(func() {
			for i := range next {
				fn(i)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
}
