//go:build !linux

package helm

// limitMemory is a no-op where the address space cannot be capped: the child's soft memory
// limit and the parent's timeout still apply.
func limitMemory(uint64) {}
