package checker

import (
	"strconv"

	"go.yaml.in/yaml/v3"
)

// WalkNodes visits n and every node below it, depth first, down to maxDepth levels. visit
// gets each node with its path from n (after prefix), and returns whether to go into it. The
// path is the walk's one stack, changed as the walk goes on: visit must Clone or Append what
// it keeps. Copying a path at every node of a document was most of the cost of whole-document
// walks on large trees. Aliases are not followed.
func WalkNodes(n *yaml.Node, prefix Path, maxDepth int, visit func(p Path, n *yaml.Node) bool) {
	stack := append(make(Path, 0, len(prefix)+16), prefix...)
	var walk func(n *yaml.Node, depth int)
	walk = func(n *yaml.Node, depth int) {
		if n == nil || depth > maxDepth || !visit(stack, n) {
			return
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				stack = append(stack, n.Content[i].Value)
				walk(n.Content[i+1], depth+1)
				stack = stack[:len(stack)-1]
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				stack = append(stack, strconv.Itoa(i))
				walk(c, depth+1)
				stack = stack[:len(stack)-1]
			}
		}
	}
	walk(n, 0)
}

// Last returns the path's last element, or "".
func (p Path) Last() string {
	if len(p) == 0 {
		return ""
	}
	return p[len(p)-1]
}
