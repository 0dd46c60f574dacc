package load

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// MaxNodesFileSize bounds a --nodes file: `kubectl get nodes -o json` of a 5,000-node cluster
// is some 50 MB.
const MaxNodesFileSize = 256 << 20

// repoNodes collects the Node objects of the repository (a Node, a NodeList, or the List that
// `kubectl get nodes -o yaml` writes): each belongs to its file's scope. Entries without a
// readable kernelVersion are left out: a Node manifest need not carry a status.
func repoNodes(ws *checker.Workspace) []checker.Node {
	var out []checker.Node
	for _, d := range ws.Docs {
		if d.Parent != nil || !checker.IsNodeList(d) {
			continue
		}
		nodes, _ := checker.NodesOf(d, ws.ScopeOf(d.File.Path))
		out = append(out, nodes...)
	}
	return out
}

// NodesFile reads a node inventory given with --nodes: the output of `kubectl get nodes -o
// json` or `-o yaml` (a List or NodeList of Nodes), or Node documents. name is the file name
// used in positions and messages; scope is the directory whose cluster scopes the nodes belong
// to ("" for all). It also returns the file, so that outputs can show its lines. Anything that
// is not such an inventory is an error naming file:line, so that a wrong file is never taken
// for a cluster without nodes.
func NodesFile(path, name, scope string) ([]checker.Node, *checker.File, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read nodes file %s: %w", name, unwrapPathError(err))
	}
	defer func() { _ = fh.Close() }()
	content, err := io.ReadAll(io.LimitReader(fh, MaxNodesFileSize+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read nodes file %s: %w", name, unwrapPathError(err))
	}
	if len(content) > MaxNodesFileSize {
		return nil, nil, fmt.Errorf("read nodes file %s: larger than %d bytes", name, MaxNodesFileSize)
	}
	return NodesBytes(name, content, scope)
}

// NodesBytes is NodesFile on content in memory.
func NodesBytes(name string, content []byte, scope string) ([]checker.Node, *checker.File, error) {
	f := newFile(name, content)
	if probs := parseFile(f); len(probs) > 0 {
		return nil, nil, fmt.Errorf("%s: %s", probs[0].Pos, probs[0].Message)
	}
	var out []checker.Node
	docs := 0
	for _, d := range f.Docs {
		identify(d)
		docs++
		if !checker.IsNodeList(d) {
			pos, _ := d.KindPos()
			kind := d.Kind
			if kind == "" {
				kind = "none"
			}
			return nil, nil, fmt.Errorf("%s: not a node inventory: want a Node, NodeList or List of Nodes (kubectl get nodes -o json), found kind %s", pos, truncateName(kind))
		}
		nodes, errs := checker.NodesOf(d, scope)
		if len(errs) > 0 {
			return nil, nil, fmt.Errorf("%s: %s", errs[0].Pos, errs[0].Message)
		}
		for i := range nodes {
			nodes[i].Explicit = true
		}
		out = append(out, nodes...)
	}
	if docs == 0 {
		return nil, nil, errors.New(name + ":1:1: not a node inventory: the file holds no document")
	}
	return out, f, nil
}

// truncateName keeps a kind from the file short in an error message.
func truncateName(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
