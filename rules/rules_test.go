package rules

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// TestAll checks the registry: well-formed unique IDs and names, complete docs, sorted by ID.
func TestAll(t *testing.T) {
	all := All()
	if err := checker.Validate(all); err != nil {
		t.Fatalf("invalid rule registry:\n%v", err)
	}
	// All must hand out a fresh slice so callers may reorder or filter it freely.
	if len(all) > 0 {
		again := All()
		again[0] = nil
		if All()[0] == nil {
			t.Error("All returns a shared slice; it must build a new one on each call")
		}
	}
}
