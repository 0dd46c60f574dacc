//go:build !linux

package helm

import "os/exec"

// dieWithParent is a no-op where the platform offers no parent-death signal: a child reads
// its requests from the parent and ends when that pipe closes.
func dieWithParent(*exec.Cmd) {}

// limitMemory is a no-op where the address space cannot be capped: the child's soft memory
// limit and the parent's timeout still apply.
func limitMemory(uint64) {}
