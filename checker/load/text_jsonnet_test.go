package load

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// TestClassifyJsonnet: jsonnet sources are text by name, even when they spell a
// KubeProxyConfiguration (jsonnet is no YAML: reading it as YAML would be a parse error).
func TestClassifyJsonnet(t *testing.T) {
	kpc := []byte("{\n  kind: 'KubeProxyConfiguration',\n  mode: 'ipvs',\n}\n")
	for _, name := range []string{"kube-proxy.libsonnet", "mixins/KP.JSONNET", `dash\board.jsonnet`} {
		if !wantName(name) {
			t.Errorf("wantName(%q) = false", name)
		}
		for _, explicit := range []bool{false, true} {
			if got := classify(name, kpc, explicit); got != classText {
				t.Errorf("classify(%q, explicit=%v) = %v, want text", name, explicit, got)
			}
		}
	}
	if wantName("jsonnetfile.lock.json.bak") {
		t.Error("wantName reads an unrelated file")
	}
	ws := Bytes("kube-proxy.libsonnet", kpc, nil)
	if len(ws.Problems) != 0 || len(ws.Instances) != 0 || len(ws.Files) != 1 || ws.Files[0].Format != checker.FormatText {
		t.Errorf("jsonnet loaded with problems %v, %d instances", ws.Problems, len(ws.Instances))
	}
}

// TestWalkReadsJsonnet: a tree walk opens .jsonnet and .libsonnet files.
func TestWalkReadsJsonnet(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"dashboard.jsonnet", "mixin.libsonnet", "README.md"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("{ expr: 'up' }\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Load(context.Background(), Options{Paths: []string{dir}, Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range ws.Files {
		got = append(got, f.Path)
	}
	if len(got) != 2 || got[0] != "dashboard.jsonnet" || got[1] != "mixin.libsonnet" {
		t.Errorf("loaded %q", got)
	}
}
