package rules

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// TestScriptForShares: a script that names the words of both KP401 and KP402 is lexed once
// for both and let go once both have visited it; one that names only KP402's is lexed for it
// alone and never held.
func TestScriptForShares(t *testing.T) {
	held := func(f *checker.File, d shell.Dialect) bool {
		missing := false
		f.Memo(kp4ScriptKey{d}, func() any { missing = true; return &kp4Script{} })
		if missing {
			f.Forget(func(k any) bool { return k == kp4ScriptKey{d} })
		}
		return !missing
	}
	both := &checker.File{Path: "reset.sh", Format: checker.FormatText, Content: []byte("#!/bin/sh\niptables -F KUBE-SERVICES\nipvsadm -C\n")}
	d := shell.DialectOf(both.Path, both.Content)
	s1, done1 := scriptFor(both, d)
	s2, done2 := scriptFor(both, d)
	if s1 != s2 || len(s1.Commands) != 2 {
		t.Fatalf("lexed twice or wrongly: %p %p, %d commands", s1, s2, len(s1.Commands))
	}
	done1()
	if !held(both, d) {
		t.Fatal("let go before the second caller visited it")
	}
	done2()
	if held(both, d) {
		t.Error("held after both callers visited it")
	}

	one := &checker.File{Path: "ipvs.sh", Format: checker.FormatText, Content: []byte("#!/bin/sh\nipvsadm -C\n")}
	a, doneA := scriptFor(one, d)
	b, doneB := scriptFor(one, d)
	doneA()
	doneB()
	if a == b || held(one, d) {
		t.Error("a script of one caller's words was shared or held")
	}
}
