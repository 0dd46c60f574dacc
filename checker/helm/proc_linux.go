package helm

import (
	"os/exec"
	"syscall"
)

// dieWithParent makes the child receive SIGKILL when the parent exits.
func dieWithParent(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}

// limitMemory caps the address space of a rendering child, and its CPU time: an allocation
// beyond the cap fails and the child dies, not the run; a child left spinning after its parent
// is gone stops by itself.
func limitMemory(n uint64) {
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
	_ = syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: childCPUSeconds, Max: childCPUSeconds + 5})
}

// childCPUSeconds bounds the CPU time of one rendering child over its whole life.
const childCPUSeconds = 300
