package shell

import (
	"sync"
	"sync/atomic"
)

// Offset tables. Most words and heredoc bodies are written as they read: byte k of the text
// is byte Pos+k of the source, so their offset table (Word.Offs, Heredoc.Offs) is the run
// Pos, Pos+1, ..., End. Such tables, eight bytes for each byte of a script, were most of the
// memory of a lexed script (a lexing is shared while a file loads and while KP401 and KP402
// read it: File.Memo) and of the lexer's allocation. sharedOffs
// returns such a run as a window of one read-only table shared by every script, so that it
// costs nothing; its capacity ends with the window, so that an append copies it instead of
// writing into the table. Nothing writes into an offset table after the lexer built it.

// maxSharedOffset bounds the shared table (2 MiB, allocated once for the process): runs past
// it, in scripts of more than 256 KiB, keep tables of their own.
const maxSharedOffset = 1 << 18

var (
	identity   atomic.Pointer[[]int]
	identityMu sync.Mutex
)

// sharedOffs returns offs itself, or, when offs is the run offs[0], offs[0]+1, ... within
// the shared table's bound, the same run as a window of the shared table.
func sharedOffs(offs []int) []int {
	n := len(offs)
	if n == 0 || offs[0] < 0 || offs[n-1] != offs[0]+n-1 || offs[n-1] >= maxSharedOffset {
		return offs
	}
	for k, o := range offs {
		if o != offs[0]+k {
			return offs
		}
	}
	from, to := offs[0], offs[n-1]+1
	t := identityTable(to)
	return t[from:to:to]
}

// identityTable returns a table t with t[i] == i for every i < n (n <= maxSharedOffset).
// A table is never written after it is published; a longer one replaces it.
func identityTable(n int) []int {
	if p := identity.Load(); p != nil && len(*p) >= n {
		return *p
	}
	identityMu.Lock()
	defer identityMu.Unlock()
	if p := identity.Load(); p != nil && len(*p) >= n {
		return *p
	}
	size := 1 << 16
	for size < n {
		size *= 2
	}
	t := make([]int, min(size, maxSharedOffset))
	for i := range t {
		t[i] = i
	}
	identity.Store(&t)
	return t
}
