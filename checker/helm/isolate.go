package helm

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// Rendering in a child process. text/template cannot be interrupted and does not bound what
// it builds, so a hostile chart (nested ranges, helpers that include each other twice) could
// spin or allocate without limit. Charts are rendered by child processes of the renderer
// executable kube-proxy-lint-helm (Helper), each with a memory limit, killed when a rendering
// takes longer than its timeout; a child that dies takes only its chart with it. The renderer
// is an executable of its own so that kube-proxy-lint does not link Helm (package helm's
// comment).

// Helper is the renderer executable's name, looked up beside the running executable first,
// then on PATH (HelperCommand).
const Helper = "kube-proxy-lint-helm"

// ChildArg is the argument that makes the renderer serve requests (ServeChild), followed by
// Protocol; ChildEnv must be set too, so that nobody starts one by accident.
const (
	ChildArg = "__kube-proxy-lint-helm-render"
	ChildEnv = "KUBE_PROXY_LINT_HELM_CHILD"
)

// Protocol names what a rendering child is asked and answers: Request and Result as gob
// encodes them, and what their offsets mean. Change it with either: a renderer of another
// version then refuses (exitProtocol) instead of answering what the parent would misread.
const Protocol = "1"

// exitProtocol is the renderer's exit code when the parent speaks another Protocol.
const exitProtocol = 3

// ChildMemory is the address space a rendering child may use. It is not lowered to share a
// smaller budget: an idle child already maps about 1.7 GB of address space (the runtime's
// reservations and the binary), so a lower limit fails at random, not at a size. The
// children of a run share its budget by how many render at once (ChildrenAtOnce).
const ChildMemory = 2 << 30

// ChildrenAtOnce is how many children may render at once within share bytes for all of
// them: at most workers, at least one.
func ChildrenAtOnce(share int64, workers int) int {
	return max(min(workers, int(share/ChildMemory)), 1)
}

// Command starts a rendering child when set, or says why it cannot (ErrNoRenderer). Nil
// renders in this process with Renderer, bounded by time only (tests).
var Command func() (*exec.Cmd, error)

// Renderer renders in this process when Command is nil: render.Render in tests. Nil (and
// Command nil) answers ErrNoRenderer.
var Renderer func(Request) (*Result, error)

// ErrNoRenderer is the answer when no renderer can be started.
var ErrNoRenderer = errors.New("the Helm renderer " + Helper + " is not installed beside kube-proxy-lint or on PATH (it is part of every release archive and image; go install github.com/kube-proxy-lint/kube-proxy-lint/cmd/...@VERSION installs both)")

// protocolError is the answer when the renderer found speaks another Protocol.
type protocolError struct{ path string }

func (e *protocolError) Error() string {
	return "the Helm renderer " + e.path + " is from another version of kube-proxy-lint: install both from the same release"
}

// HelperCommand returns a Command that starts the renderer: Helper beside the running
// executable (or beside the file it links to), else on PATH. It is looked up once, when the
// first chart is rendered: runs without charts never look.
func HelperCommand() func() (*exec.Cmd, error) {
	find := sync.OnceValues(FindHelper)
	return func() (*exec.Cmd, error) {
		path, err := find()
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(path, ChildArg, Protocol)
		cmd.Env = append(os.Environ(), ChildEnv+"=1")
		return cmd, nil
	}
}

// FindHelper is the path of the renderer executable HelperCommand starts, or ErrNoRenderer.
func FindHelper() (string, error) {
	exe, err := os.Executable()
	if err != nil {
		exe = ""
	}
	return lookHelper(exe)
}

// lookHelper finds the renderer beside exe (the running executable; "" for none) or on PATH.
func lookHelper(exe string) (string, error) {
	name := Helper
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe != "" {
		dirs := []string{filepath.Dir(exe)}
		if real, err := filepath.EvalSymlinks(exe); err == nil && filepath.Dir(real) != dirs[0] {
			dirs = append(dirs, filepath.Dir(real))
		}
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode().Perm()&0o111 != 0) {
				return p, nil
			}
		}
	}
	// exec.LookPath refuses a match in the working directory (exec.ErrDot): a repository
	// being linted cannot provide its own renderer.
	if p, err := exec.LookPath(name); err == nil && filepath.IsAbs(p) {
		return p, nil
	}
	return "", ErrNoRenderer
}

// IsChild reports whether the process was started as a rendering child (of any Protocol).
func IsChild(args []string) bool {
	return len(args) == 3 && args[1] == ChildArg && os.Getenv(ChildEnv) == "1"
}

// answer is a child's reply to one request.
type answer struct {
	Res *Result
	Err string
}

// ServeChild is the whole program of the renderer executable: when started as a rendering
// child of this Protocol, it renders the requests read from r with render and writes the
// results to w until r ends; started by hand, it says what it is on stderr (exit code 2).
func ServeChild(args []string, r io.Reader, w, stderr io.Writer, render func(Request) (*Result, error)) int {
	if !IsChild(args) {
		fmt.Fprintln(stderr, Helper+" renders Helm charts for kube-proxy-lint, which starts it; it is not run by hand.")
		return 2
	}
	if args[2] != Protocol {
		return exitProtocol
	}
	limitMemory(ChildMemory)
	debug.SetMemoryLimit(ChildMemory / 2)
	dec, enc := gob.NewDecoder(r), gob.NewEncoder(w)
	for {
		var req Request
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return 0
			}
			return 2
		}
		res, err := render(req)
		a := answer{Res: res}
		if err != nil {
			a.Err = err.Error()
		}
		if err := enc.Encode(&a); err != nil {
			return 2
		}
	}
}

// child is a running rendering child.
type child struct {
	cmd *exec.Cmd
	enc *gob.Encoder
	dec *gob.Decoder
	in  io.WriteCloser
}

func startChild() (*child, error) {
	cmd, err := Command()
	if err != nil {
		return nil, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = nil // Helm's logs never reach the terminal
	dieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &child{cmd: cmd, enc: gob.NewEncoder(in), dec: gob.NewDecoder(io.LimitReader(out, maxAnswer)), in: in}, nil
}

// maxAnswer bounds what one child may send back over its life.
const maxAnswer = 256 << 20

func (c *child) stop() {
	_ = c.in.Close()
	_ = c.cmd.Process.Kill()
	_ = c.cmd.Wait()
}

// Pool renders requests in children, one child per caller at a time, reused.
type Pool struct {
	mu   sync.Mutex
	idle []*child
}

// Close stops the idle children.
func (p *Pool) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.idle {
		c.stop()
	}
	p.idle = nil
}

// Render renders req in a child (in this process when Command is nil) within timeout.
func (p *Pool) Render(req Request, timeout time.Duration) (*Result, error) {
	return p.RenderContext(context.Background(), req, timeout)
}

// RenderContext is Render that also kills the child when ctx is done (the run stopped: an
// interrupt, or its budget is spent), instead of waiting for the timeout.
func (p *Pool) RenderContext(ctx context.Context, req Request, timeout time.Duration) (*Result, error) {
	if Command == nil {
		return RenderBounded(req, timeout)
	}
	p.mu.Lock()
	var c *child
	if n := len(p.idle); n > 0 {
		c, p.idle = p.idle[n-1], p.idle[:n-1]
	}
	p.mu.Unlock()
	if c == nil {
		var err error
		if c, err = startChild(); err != nil {
			if errors.Is(err, ErrNoRenderer) {
				return nil, err
			}
			return nil, fmt.Errorf("start the rendering process: %w", err)
		}
	}
	timer := time.AfterFunc(timeout, func() { _ = c.cmd.Process.Kill() })
	stopCtx := context.AfterFunc(ctx, func() { _ = c.cmd.Process.Kill() })
	var a answer
	err := c.enc.Encode(&req)
	if err == nil {
		err = c.dec.Decode(&a)
	}
	stopped := !timer.Stop()
	if !stopCtx() {
		// ctx was done during the rendering: the child was killed (or is being).
		c.stop()
		return nil, ctx.Err()
	}
	if err != nil {
		c.stop()
		if stopped {
			return nil, ErrTimeout
		}
		if c.cmd.ProcessState != nil && c.cmd.ProcessState.ExitCode() == exitProtocol {
			return nil, &protocolError{path: c.cmd.Path}
		}
		return nil, errors.New("the rendering process failed (out of memory?)")
	}
	p.mu.Lock()
	p.idle = append(p.idle, c)
	p.mu.Unlock()
	if a.Err != "" {
		return nil, &Error{Msg: a.Err}
	}
	return a.Res, nil
}
