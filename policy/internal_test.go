package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// TestInternalOnReleasedFile: an internal error on a pruned document whose file let its text
// go (a file of headers) is still reported where the document starts, not by a crash.
func TestInternalOnReleasedFile(t *testing.T) {
	dir := t.TempDir()
	src := "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: a\n---\napiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: b\n"
	if err := os.WriteFile(filepath.Join(dir, "sa.yaml"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Docs) != 2 || !ws.Docs[1].Pruned || ws.Docs[1].File.Lines != nil {
		t.Fatal("the ServiceAccounts are not headers of a released file: the case tests nothing")
	}
	var got []checker.Finding
	p := checker.NewPass(&checker.Rule{ID: "ORG1"}, ws, func(f checker.Finding) { got = append(got, f) })
	(&regoRule{file: "x.rego"}).internal(p, ws.Docs[1], errors.New("boom"))
	if len(got) != 1 || got[0].Pos.Filename != "sa.yaml" || got[0].Pos.Line != 6 || !got[0].Internal {
		t.Errorf("got %+v, want an internal finding at sa.yaml:6", got)
	}
}
