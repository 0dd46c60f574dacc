package helm

import "syscall"

// limitMemory caps the address space of a rendering child: an allocation beyond it fails and
// the child dies, not the run.
func limitMemory(n uint64) {
	_ = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
}
