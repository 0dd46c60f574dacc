package checker

import (
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// TestWalkNodes: every node with its path, a visit that says no keeps the walk out of that
// node, and the depth bound holds.
func TestWalkNodes(t *testing.T) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte("a:\n  b: [x, {c: y}]\nskip:\n  d: z\n"), &doc); err != nil {
		t.Fatal(err)
	}
	var got []string
	WalkNodes(doc.Content[0], Path{"pre"}, 10, func(p Path, n *yaml.Node) bool {
		if n.Kind == yaml.ScalarNode {
			got = append(got, p.String()+"="+n.Value)
		}
		return p.Last() != "skip"
	})
	if want := "pre.a.b[0]=x pre.a.b[1].c=y"; strings.Join(got, " ") != want {
		t.Errorf("got %q, want %q", strings.Join(got, " "), want)
	}
	depth := 0
	WalkNodes(doc.Content[0], nil, 1, func(p Path, _ *yaml.Node) bool {
		depth = max(depth, len(p))
		return true
	})
	if depth != 1 {
		t.Errorf("walked %d levels deep, bound 1", depth)
	}
}
