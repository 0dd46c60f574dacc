package helm

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"sync"
	"time"
)

// Rendering in a child process. text/template cannot be interrupted and does not bound what
// it builds, so a hostile chart (nested ranges, helpers that include each other twice) could
// spin or allocate without limit. When Command is set, charts are rendered by child processes
// of the same binary, each with a memory limit, killed when a rendering takes longer than its
// timeout; a child that dies takes only its chart with it.

// ChildArg is the argument that makes the binary a rendering child (ServeChild); ChildEnv
// must be set too, so that nobody starts one by accident.
const (
	ChildArg = "__kube-proxy-lint-helm-render"
	ChildEnv = "KUBE_PROXY_LINT_HELM_CHILD"
)

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

// Command starts a rendering child when set (the running binary with ChildArg and
// ChildEnv). Nil renders in this process, bounded by time only (tests).
var Command func() *exec.Cmd

// IsChild reports whether the process was started as a rendering child.
func IsChild(args []string) bool {
	return len(args) == 2 && args[1] == ChildArg && os.Getenv(ChildEnv) == "1"
}

// SelfCommand returns a Command that runs the current executable as a child.
func SelfCommand() func() *exec.Cmd {
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	return func() *exec.Cmd {
		cmd := exec.Command(exe, ChildArg)
		cmd.Env = append(os.Environ(), ChildEnv+"=1")
		return cmd
	}
}

// answer is a child's reply to one request.
type answer struct {
	Res *Result
	Err string
}

// ServeChild renders the requests read from r and writes the results to w until r ends. It
// is the whole program of a rendering child.
func ServeChild(r io.Reader, w io.Writer) int {
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
		res, err := Render(req)
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
	cmd := Command()
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
