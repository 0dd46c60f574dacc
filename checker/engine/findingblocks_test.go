package engine

import (
	"strconv"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// TestFindingBlocks: a rule's findings are kept in order, in blocks of at most
// maxFindingBlock, none of which is grown by copying.
func TestFindingBlocks(t *testing.T) {
	var b findingBlocks
	const n = 3*maxFindingBlock + 17
	for i := range n {
		first := len(b.blocks) > 0 && len(b.blocks[0]) > 0
		var before *checker.Finding
		if first {
			before = &b.blocks[0][0]
		}
		b.add(checker.Finding{Message: strconv.Itoa(i)})
		if first && &b.blocks[0][0] != before {
			t.Fatalf("finding %d: the first block was copied", i)
		}
	}
	if b.n != n {
		t.Fatalf("n = %d, want %d", b.n, n)
	}
	k := 0
	for _, x := range b.blocks {
		if cap(x) > maxFindingBlock {
			t.Errorf("a block of %d", cap(x))
		}
		for _, f := range x {
			if f.Message != strconv.Itoa(k) {
				t.Fatalf("finding %d reads %q", k, f.Message)
			}
			k++
		}
	}
	if k != n {
		t.Errorf("%d findings in the blocks, want %d", k, n)
	}
}
