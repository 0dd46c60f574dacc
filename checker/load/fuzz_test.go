package load

import (
	"os"
	"path/filepath"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// FuzzBytes checks that no input makes the loader panic or produce positions outside the
// file. Crashers found by `go test -fuzz FuzzBytes` are kept in testdata/fuzz/FuzzBytes.
func FuzzBytes(f *testing.F) {
	seeds, _ := filepath.Glob("../../fixtures/rules/*/*.yaml")
	more, _ := filepath.Glob("../../fixtures/load/*")
	// CI workflows and pipelines in fixture directories: step scripts, heredocs, matrices.
	steps, _ := filepath.Glob("../../fixtures/rules/*/*/.github/workflows/*.yml")
	lists, _ := filepath.Glob("../../fixtures/rules/*/*/*.yml")
	more = append(append(more, steps...), lists...)
	for _, s := range append(seeds, more...) {
		if b, err := os.ReadFile(s); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("a: 1\rb: 2\r"))
	f.Add([]byte("a: 1\u2028b: \"x\"\u0085c: 3\r\n"))
	f.Add([]byte("\ufeffkind: ConfigMap\ndata:\n  config.conf: |2-\n     kind: KubeProxyConfiguration\r\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		ws := Bytes("f.yaml", b, nil)
		check := func(p checker.Position) {
			if p.Offset < 0 || p.Offset > len(b) || (p.IsValid() && p.Line > len(b)+1) {
				t.Fatalf("position out of range: %+v (len %d)", p, len(b))
			}
		}
		for _, p := range ws.Problems {
			check(p.Pos)
		}
		for _, d := range ws.Docs {
			pos, end := d.KindPos()
			check(pos)
			check(end)
			if d.File.Parent == nil && !d.File.Templated {
				// The line table agrees with the YAML parser: every node's position maps back
				// to the line and column yaml.v3 gives it (lone CR, NEL, LS and PS included).
				agree(t, d, d.Node, 0)
			}
			for _, is := range d.Issues {
				if is.Key != nil {
					check(d.NodePos(is.Key))
				}
				if is.Value != nil {
					check(d.NodePos(is.Value))
				}
			}
		}
		for _, in := range ws.Instances {
			for _, fl := range in.Flags {
				check(fl.Pos)
				check(fl.End)
				if _, err := checker.ApplyEdits(b, fl.Remove); err != nil {
					t.Fatalf("remove edits of %s: %v", fl.Name, err)
				}
			}
			in.Mode(ws.Target.Version)
			in.FeatureGates()
			in.NodePortAddresses()
		}
	})
}

// agree checks that d.NodePos reports yaml.v3's own line and column for n and its children.
func agree(t *testing.T, d *checker.Document, n *yaml.Node, depth int) {
	if n == nil || depth > 50 || n.Kind == yaml.AliasNode {
		return
	}
	// An empty node at the very end ("---" without a newline) is placed on a line after the
	// last by yaml.v3; the line table clamps it to the end of the file.
	if p := d.NodePos(n); n.Line <= d.File.Lines.Lines() && (p.Line != n.Line || p.Column != n.Column) {
		t.Fatalf("node %q: yaml.v3 says %d:%d, the line table %d:%d", n.Value, n.Line, n.Column, p.Line, p.Column)
	}
	for _, c := range n.Content {
		agree(t, d, c, depth+1)
	}
}
