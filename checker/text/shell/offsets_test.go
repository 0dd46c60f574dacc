package shell

import "testing"

// TestSharedOffs: a run of consecutive offsets becomes a window of the shared table, the
// same values, whose capacity ends with it (an append copies, the table is never written);
// other tables, and runs past the bound, stay as they are.
func TestSharedOffs(t *testing.T) {
	run := []int{100, 101, 102, 103}
	got := sharedOffs(append([]int(nil), run...))
	if len(got) != len(run) || cap(got) != len(run) {
		t.Fatalf("len %d cap %d, want %d", len(got), cap(got), len(run))
	}
	for k := range run {
		if got[k] != run[k] {
			t.Fatalf("got %v, want %v", got, run)
		}
	}
	if t0 := identityTable(1); &got[0] != &t0[100] {
		t.Error("not a window of the shared table")
	}
	grown := append(got, 7)
	if t0 := identityTable(1); t0[104] != 104 || grown[4] != 7 {
		t.Error("an append wrote into the shared table")
	}
	for _, offs := range [][]int{{5, 7, 8}, {3, 4, 6}, {maxSharedOffset - 1, maxSharedOffset}, {-1, 0}} {
		in := append([]int(nil), offs...)
		if got := sharedOffs(in); &got[0] != &in[0] {
			t.Errorf("%v: shared, want its own table", offs)
		}
	}
	// Words keep their offsets through the lexer (a quoted word's table is its own).
	s := ParseFile(DialectShell, []byte("iptables -t nat -L 'KUBE-SERVICES'\n"))
	w := s.Commands[0].Words
	if p, e := w[2].Span(1, 3); p != 13 || e != 15 {
		t.Errorf("plain word span %d-%d, want 13-15", p, e)
	}
	if p, e := w[4].Span(0, 4); p != 20 || e != 24 {
		t.Errorf("quoted word span %d-%d, want 20-24", p, e)
	}
}
