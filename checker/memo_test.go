package checker

import (
	"sync"
	"testing"
)

// TestMemo: File.Memo computes a key's value once and returns it after, for a few keys (kept
// in a slice) and many (a map), and concurrent first calls agree on one value.
func TestMemo(t *testing.T) {
	type key struct{ i int }
	f := &File{}
	calls := map[int]int{}
	for round := 0; round < 2; round++ {
		for i := 0; i < 3*memoSliceKeys; i++ {
			got := f.Memo(key{i}, func() any { calls[i]++; return i * 10 })
			if got != i*10 {
				t.Fatalf("key %d: got %v", i, got)
			}
		}
	}
	for i := 0; i < 3*memoSliceKeys; i++ {
		if calls[i] != 1 {
			t.Errorf("key %d computed %d times", i, calls[i])
		}
	}
	if f.memoMap == nil || f.memoKV != nil {
		t.Error("many keys are not kept in a map")
	}

	g := &File{}
	var wg sync.WaitGroup
	vals := make([]any, 8)
	for w := range vals {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vals[w] = g.Memo(key{1}, func() any { return new(int) })
		}()
	}
	wg.Wait()
	for _, v := range vals {
		if v != vals[0] {
			t.Fatal("concurrent first calls returned different values")
		}
	}
}

// TestForget: File.Forget drops the values of the keys it selects, in the slice and in the
// map, and keeps the others; a forgotten key is computed again on its next Memo.
func TestForget(t *testing.T) {
	type key struct{ i int }
	type other struct{}
	for _, n := range []int{2, 3 * memoSliceKeys} {
		f := &File{}
		for i := range n {
			f.Memo(key{i}, func() any { return i })
		}
		f.Memo(other{}, func() any { return "kept" })
		f.Forget(func(k any) bool { _, ok := k.(key); return ok })
		if got := f.Memo(other{}, func() any { return "again" }); got != "kept" {
			t.Errorf("%d keys: a key not selected was forgotten", n)
		}
		for i := range n {
			if got := f.Memo(key{i}, func() any { return -1 }); got != -1 {
				t.Fatalf("%d keys: key %d was not forgotten", n, i)
			}
		}
	}
}

// TestForgetContains: after ForgetContains a file answers Contains as before, searching its
// content again; a file whose content was released keeps the answers found before.
func TestForgetContains(t *testing.T) {
	f := &File{Content: []byte("mode: ipvs\n")}
	if !f.Contains("ipvs") || f.Contains("nftables") {
		t.Fatal("Contains is wrong before ForgetContains")
	}
	f.ForgetContains()
	if len(f.memoKV) != 0 || f.memoMap != nil {
		t.Error("the offsets are still held")
	}
	if !f.Contains("ipvs") || f.Contains("nftables") {
		t.Error("Contains is wrong after ForgetContains")
	}
	f.Content = nil // released
	f.ForgetContains()
	if !f.Contains("ipvs") || f.Contains("nftables") {
		t.Error("a released file forgot what it held")
	}
	// What it found stays an entry; what it did not is a bit, not an entry.
	if len(f.memoKV) != 1 || f.absent == 0 {
		t.Errorf("released file: %d memo entries, absent bits %b; want the one answer that found something, and bits", len(f.memoKV), f.absent)
	}
	// A word first asked once the text is gone finds nothing and is kept as a bit too.
	if f.Contains("iptables") || len(f.memoKV) != 1 {
		t.Errorf("a word asked after release: %d memo entries", len(f.memoKV))
	}
	// Many files and many words: each file keeps its own answers.
	g := &File{Content: []byte("kind: KubeProxyConfiguration\nmode: nftables\n")}
	for _, w := range []string{"ipvs", "nftables", "KubeProxy", "iptables"} {
		g.Contains(w)
	}
	g.Content = nil
	g.ForgetContains()
	if g.Contains("ipvs") || !g.Contains("nftables") || !g.Contains("KubeProxy") || g.Contains("iptables") {
		t.Error("a second released file answers wrong")
	}
	if !f.Contains("ipvs") || f.Contains("KubeProxy") {
		t.Error("the first file's answers changed")
	}
}
