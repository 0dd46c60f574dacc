package checker

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Node kernels (RULES.md §1, "Kernel"; KP602). kube-proxy in nftables mode reads the running
// kernel's release (/proc/sys/kernel/osrelease) and refuses to start below Linux 5.13. The
// check compares version numbers only: a distribution kernel with nftables backports (RHEL 8's
// 4.18) is refused all the same, so the node's reported kernelVersion decides, and the
// distribution named in osImage is only a hint for people.

// NFTablesMinKernel is the oldest Linux kernel kube-proxy's nftables mode starts on.
var NFTablesMinKernel = KernelVersion{5, 13, 0}

// KernelVersion is a Linux kernel release as major.minor.patch.
type KernelVersion struct{ Major, Minor, Patch int }

var kernelRe = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.(\d+))?`)

// ParseKernel reads the leading version of a kernel release string such as
// "5.10.215-203.850.amzn2.x86_64" or "6.1.0-18-cloud-amd64", as kube-proxy does
// (k8s.io/apimachinery version.ParseGeneric on the leading numbers).
func ParseKernel(s string) (KernelVersion, bool) {
	m := kernelRe.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return KernelVersion{}, false
	}
	var k KernelVersion
	k.Major, _ = strconv.Atoi(m[1])
	k.Minor, _ = strconv.Atoi(m[2])
	if m[3] != "" {
		k.Patch, _ = strconv.Atoi(m[3])
	}
	return k, true
}

// Less reports whether k is older than o.
func (k KernelVersion) Less(o KernelVersion) bool {
	if k.Major != o.Major {
		return k.Major < o.Major
	}
	if k.Minor != o.Minor {
		return k.Minor < o.Minor
	}
	return k.Patch < o.Patch
}

// String formats the kernel as "5.10" (the patch level only when it matters, never here).
func (k KernelVersion) String() string { return fmt.Sprintf("%d.%d", k.Major, k.Minor) }

// Node is one node of a node inventory: a Node object in the repository, or an item of the
// `kubectl get nodes -o json` output given with --nodes.
type Node struct {
	// Name is metadata.name.
	Name string `json:"name"`
	// Kernel is status.nodeInfo.kernelVersion as reported; KernelVersion its parsed form
	// (KernelKnown false when it is missing or not a version).
	Kernel        string        `json:"kernel"`
	KernelVersion KernelVersion `json:"-"`
	KernelKnown   bool          `json:"-"`
	// OSImage is status.nodeInfo.osImage ("Amazon Linux 2", "Ubuntu 20.04.6 LTS").
	OSImage string `json:"osImage,omitempty"`
	// Pool names the node pool from a well-known label (PoolLabel), "" when none is set.
	Pool      string `json:"pool,omitempty"`
	PoolLabel string `json:"poolLabel,omitempty"`
	// Pos and End span the kernelVersion value, else the node's name or the item.
	Pos, End Position `json:"-"`
	// Scope is the directory whose cluster scopes the node belongs to: every scope at or
	// below it ("" is every scope). Nodes in the repository belong to their file's scope.
	Scope string `json:"-"`
	// Explicit is true for nodes given with --nodes rather than found in the repository.
	Explicit bool `json:"-"`
}

// NFTablesReady reports whether the node's kernel is known and new enough for nftables mode.
func (n *Node) NFTablesReady() bool {
	return n.KernelKnown && !n.KernelVersion.Less(NFTablesMinKernel)
}

// poolLabels are node labels that name a node pool, most specific first: managed node groups
// of EKS, eksctl, GKE, AKS, Karpenter, kops instance groups, Gardener worker pools, and the
// generic spellings people use.
var poolLabels = []string{
	"eks.amazonaws.com/nodegroup",
	"alpha.eksctl.io/nodegroup-name",
	"cloud.google.com/gke-nodepool",
	"kubernetes.azure.com/agentpool",
	"agentpool",
	"karpenter.sh/nodepool",
	"kops.k8s.io/instancegroup",
	"worker.gardener.cloud/pool",
	"node.kubernetes.io/pool",
	"node-pool",
	"nodepool",
	"pool",
}

// IsNodeList reports whether a document is a Node, a NodeList or a List holding Nodes.
func IsNodeList(d *Document) bool {
	switch d.Kind {
	case "Node":
		return d.APIVersion == "v1" || d.APIVersion == ""
	case "NodeList", "List":
		_, items := d.Lookup(Path{"items"})
		if items == nil || items.Kind != yaml.SequenceNode {
			return false
		}
		for _, it := range items.Content {
			if _, k := LookupNode(it, Path{"kind"}); k == nil || k.Value != "Node" {
				return false
			}
		}
		return len(items.Content) > 0 || d.Kind == "NodeList"
	}
	return false
}

// NodeError is a node entry that cannot be read: no kernelVersion, or one that is not a
// version. Pos is where it is.
type NodeError struct {
	Pos     Position
	Message string
}

// NodesOf returns the nodes of a Node, NodeList or List document, and the entries it could not
// read. scope is recorded on every node.
func NodesOf(d *Document, scope string) ([]Node, []NodeError) {
	var items []*yaml.Node
	var paths []Path
	if d.Kind == "Node" {
		items, paths = []*yaml.Node{d.Node}, []Path{nil}
	} else {
		_, seq := d.Lookup(Path{"items"})
		if seq == nil || seq.Kind != yaml.SequenceNode {
			return nil, nil
		}
		for i, it := range seq.Content {
			items = append(items, it)
			paths = append(paths, P("items", i))
		}
	}
	var out []Node
	var errs []NodeError
	for i, it := range items {
		n, err := nodeOf(d, it, paths[i], scope)
		if err != nil {
			errs = append(errs, *err)
			continue
		}
		out = append(out, n)
	}
	return out, errs
}

func nodeOf(d *Document, it *yaml.Node, base Path, scope string) (Node, *NodeError) {
	str := func(p ...any) string {
		_, v := LookupNode(it, P(p...))
		if v == nil || v.Kind != yaml.ScalarNode {
			return ""
		}
		return v.Value
	}
	n := Node{Name: str("metadata", "name"), Kernel: str("status", "nodeInfo", "kernelVersion"), OSImage: str("status", "nodeInfo", "osImage"), Scope: scope}
	_, labels := LookupNode(it, P("metadata", "labels"))
	if labels != nil && labels.Kind == yaml.MappingNode {
		for _, l := range poolLabels {
			if v := str("metadata", "labels", l); v != "" {
				n.Pool, n.PoolLabel = v, l
				break
			}
		}
	}
	var ok bool
	if n.Pos, n.End, ok = d.ValuePos(base.Append("status", "nodeInfo", "kernelVersion")); !ok {
		if n.Pos, n.End, ok = d.ValuePos(base.Append("metadata", "name")); !ok {
			n.Pos, n.End = d.NodePos(it), d.NodeEnd(it)
		}
	}
	what := "node"
	if n.Name != "" {
		what = "node " + n.Name
	}
	if n.Kernel == "" {
		return n, &NodeError{Pos: n.Pos, Message: what + " has no status.nodeInfo.kernelVersion"}
	}
	if n.KernelVersion, n.KernelKnown = ParseKernel(n.Kernel); !n.KernelKnown {
		return n, &NodeError{Pos: n.Pos, Message: fmt.Sprintf("%s: kernelVersion %q is not a kernel version", what, truncate(n.Kernel, 40))}
	}
	return n, nil
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// NodesFor returns the nodes of a cluster: the nodes given for it with --nodes (for its
// name, its root or a directory inside it, or for every cluster when given without one) and the
// Node objects of the repository in the cluster's files. Sorted by pool, then name.
func (ws *Workspace) NodesFor(c *Cluster) []Node {
	var out []Node
	for _, n := range ws.Nodes {
		switch {
		case n.Explicit:
			if n.Scope != "" && !ws.NodesScopeIs(n.Scope, c) {
				continue
			}
		case c == nil || ws.ClusterOf(n.Pos.Filename) != c:
			continue
		}
		out = append(out, n)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pool != out[j].Pool {
			return out[i].Pool < out[j].Pool
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// NodesScopeIs reports whether the scope of a --nodes SCOPE=FILE names cluster c: its name,
// its root, or a directory or file inside it.
func (ws *Workspace) NodesScopeIs(scope string, c *Cluster) bool {
	if c == nil {
		return false
	}
	scope = strings.TrimSuffix(strings.TrimPrefix(scope, "./"), "/")
	if scope == c.Name || (c.File == "" && c.Virtual() == "" && scope == c.Root) || scope == c.File {
		return true
	}
	return ws.ClusterOf(scope) == c || ws.ClusterOf(scope+"/_") == c
}

// NodePool is the nodes of one pool.
type NodePool struct {
	// Name is the pool ("" for nodes without a pool label), Label the label naming it.
	Name, Label string
	Nodes       []Node
}

// Ready counts the pool's nodes whose kernel is new enough for nftables.
func (p *NodePool) Ready() int {
	c := 0
	for i := range p.Nodes {
		if p.Nodes[i].NFTablesReady() {
			c++
		}
	}
	return c
}

// Pools groups nodes by pool, in the order of their first node (NodesFor sorts by pool).
func Pools(nodes []Node) []NodePool {
	var out []NodePool
	idx := map[string]int{}
	for _, n := range nodes {
		i, ok := idx[n.Pool]
		if !ok {
			i = len(out)
			idx[n.Pool] = i
			out = append(out, NodePool{Name: n.Pool, Label: n.PoolLabel})
		}
		out[i].Nodes = append(out[i].Nodes, n)
	}
	return out
}

// OSHint names the distribution of an osImage when RULES.md lists it as too old for nftables on
// its default kernel, "" otherwise. It explains a kernel; it never decides.
func OSHint(osImage string) string {
	s := strings.ToLower(osImage)
	switch {
	case strings.Contains(s, "red hat enterprise linux") && rhelMajor(s) == "8",
		strings.Contains(s, "rocky linux 8"), strings.Contains(s, "almalinux 8"), strings.Contains(s, "centos linux 8"),
		strings.Contains(s, "centos stream 8"), strings.Contains(s, "oracle linux server 8"):
		return "EL 8 kernels (4.18) carry nftables backports, but kube-proxy checks the version number"
	case strings.Contains(s, "centos linux 7"), strings.Contains(s, "centos 7"):
		return "CentOS 7 runs Linux 3.10"
	case strings.Contains(s, "debian gnu/linux 11"):
		return "Debian 11 runs Linux 5.10"
	case strings.Contains(s, "ubuntu 20.04"):
		return "Ubuntu 20.04 runs Linux 5.4 on its GA kernel; its HWE kernel is newer"
	case strings.Contains(s, "ubuntu 18.04"):
		return "Ubuntu 18.04 runs Linux 4.15 or 5.4"
	case strings.Contains(s, "amazon linux 2") && !strings.Contains(s, "amazon linux 2023"):
		return "Amazon Linux 2 runs Linux 5.10 by default; Amazon Linux 2023 runs 6.1"
	}
	return ""
}

func rhelMajor(s string) string {
	i := strings.Index(s, "red hat enterprise linux")
	rest := s[i+len("red hat enterprise linux"):]
	for _, f := range strings.Fields(rest) {
		if f[0] >= '0' && f[0] <= '9' {
			major, _, _ := strings.Cut(f, ".")
			return major
		}
	}
	return ""
}
