package checker

import (
	"path"
	"sort"
	"strings"
	"sync"
)

// Clusters (RULES.md "Clusters"): every cross-file judgement asks one model of which files
// form which cluster. checker/cluster infers it once per run (identity anchors, roots,
// alternatives, declared clusters) and stores it in the workspace with SetClusters; rules,
// the engine, the report and fixes read it through ClusterOf and SameCluster. A file that
// belongs to no cluster is shared: it is judged on its own, at the configured or default
// target, and takes no cluster's evidence.

// Cluster is one cluster of the repository.
type Cluster struct {
	// Name is unique in the run and is what findings, the summary, the report and the
	// clusters command show: the root directory ("." for the repository root), the anchor
	// file of a cluster that is one file, "CHART (VALUES)" for a chart rendering, or the
	// declared name.
	Name string `json:"name"`
	// Root is the cluster's directory ("" for the repository root). For a rendering it is
	// the chart's real directory; for a cluster that is one file, that file's directory.
	Root string `json:"root"`
	// File is set when the cluster is one file (alternatives side by side in one directory,
	// such as three kind configurations): only that file belongs to it.
	File string `json:"file,omitempty"`
	// How says how the cluster was found: "identity anchor", "deployed kube-proxy",
	// "declared in .kube-proxy-lint.yaml", "chart rendering".
	How string `json:"how"`
	// Anchors are the files and documents that make it a cluster.
	Anchors []ClusterAnchor `json:"anchors,omitempty"`
	// Declared is true for a cluster from the configuration's clusters: list; Paths are its
	// globs and Version its declared version (nil when none).
	Declared bool     `json:"declared,omitempty"`
	Paths    []string `json:"paths,omitempty"`
	Version  *Version `json:"-"`
	// VersionPos is where the declared version is written, DeclaredPos where the declared
	// cluster is.
	VersionPos  *Position `json:"-"`
	DeclaredPos *Position `json:"-"`
	// Unit is the self-contained tree the cluster lies in (UnitOf), "" for none; a
	// rendering's unit is its virtual directory.
	Unit string `json:"-"`
	// virtual is the virtual directory of a chart rendering: the files below it belong to
	// the cluster.
	virtual string
}

// ClusterAnchor is one piece of evidence that names a cluster.
type ClusterAnchor struct {
	// What names it: "kubeadm ClusterConfiguration", "kind Cluster", "kube-proxy DaemonSet".
	What string   `json:"what"`
	Pos  Position `json:"pos"`
}

// SetVirtual marks the cluster as a chart rendering whose virtual files lie below dir.
func (c *Cluster) SetVirtual(dir string) { c.virtual = dir }

// Virtual returns the virtual directory of a chart rendering, "" for other clusters.
func (c *Cluster) Virtual() string { return c.virtual }

// clusterIndex answers ClusterOf; built once by SetClusters, read-only afterwards.
type clusterIndex struct {
	files    map[string]*Cluster // one-file clusters and declared members, by path
	roots    map[string]*Cluster // inferred clusters by root directory, per unit (key unit+"\x00"+root)
	virtuals map[string]*Cluster // renderings by virtual directory
	declared []*Cluster
	// mu guards cache, the clusters of the files looked up so far (rules look up from
	// several goroutines).
	mu    sync.RWMutex
	cache map[string]*Cluster
}

// SetClusters stores the cluster model. files maps each file that a declared cluster or a
// one-file cluster owns; every other file is placed by walking up to the deepest root of an
// inferred cluster in its own self-contained tree.
func (ws *Workspace) SetClusters(clusters []*Cluster, files map[string]*Cluster) {
	x := &clusterIndex{files: files, roots: map[string]*Cluster{}, virtuals: map[string]*Cluster{}}
	if x.files == nil {
		x.files = map[string]*Cluster{}
	}
	for _, c := range clusters {
		c.Anchors = uniqueAnchors(c.Anchors)
		switch {
		case c.Declared:
			x.declared = append(x.declared, c)
		case c.virtual != "":
			x.virtuals[c.virtual] = c
		case c.File == "":
			x.roots[c.Unit+"\x00"+c.Root] = c
		}
	}
	sort.SliceStable(clusters, func(i, j int) bool { return clusters[i].Name < clusters[j].Name })
	ws.Clusters = clusters
	x.cache = map[string]*Cluster{}
	ws.clusters = x
}

// ClusterOf returns the cluster a file belongs to (a slash-separated path relative to the
// root, real or virtual), nil for a shared file. Embedded documents belong to their outer
// file's cluster.
func (ws *Workspace) ClusterOf(file string) *Cluster {
	x := ws.clusters
	if x == nil {
		return nil
	}
	file = path.Clean(file)
	if c, ok := x.files[file]; ok {
		return c
	}
	x.mu.RLock()
	c, ok := x.cache[file]
	x.mu.RUnlock()
	if ok {
		return c
	}
	c = x.lookup(file)
	x.mu.Lock()
	x.cache[file] = c
	x.mu.Unlock()
	return c
}

func (x *clusterIndex) lookup(file string) *Cluster {
	for _, c := range x.declared {
		if c.matches(file) {
			return c
		}
	}
	if len(x.virtuals) > 0 {
		for d := dirOf(file); d != ""; d = parentDir(d) {
			if c := x.virtuals[d]; c != nil {
				return c
			}
		}
	}
	unit := UnitOf(file)
	for d := dirOf(file); ; d = parentDir(d) {
		if c := x.roots[unit+"\x00"+d]; c != nil {
			return c
		}
		if d == "" || (unit != "" && d == unit) {
			break
		}
	}
	return nil
}

// matches reports whether a declared cluster's globs match file: a glob matches the file
// itself or a directory above it, and "**" matches any number of directories.
func (c *Cluster) matches(file string) bool {
	for _, g := range c.Paths {
		if GlobMatch(g, file) {
			return true
		}
	}
	return false
}

// GlobMatch reports whether a slash-separated glob matches file or one of its parent
// directories. "*", "?" and "[...]" match within one path element as path.Match does, "**"
// matches any number of elements, and a trailing "/" or "/**" is implied for directories.
func GlobMatch(glob, file string) bool {
	glob = strings.TrimPrefix(strings.TrimSuffix(glob, "/"), "./")
	g := strings.Split(glob, "/")
	f := strings.Split(file, "/")
	for n := len(f); n > 0; n-- {
		if matchElems(g, f[:n]) {
			return true
		}
	}
	return false
}

func matchElems(g, f []string) bool {
	for len(g) > 0 {
		if g[0] == "**" {
			if len(g) == 1 {
				return true
			}
			for i := 0; i <= len(f); i++ {
				if matchElems(g[1:], f[i:]) {
					return true
				}
			}
			return false
		}
		if len(f) == 0 {
			return false
		}
		if ok, err := path.Match(g[0], f[0]); err != nil || !ok {
			return false
		}
		g, f = g[1:], f[1:]
	}
	return len(f) == 0
}

// ClusterName returns the name of the cluster a file belongs to, "" for a shared file.
func (ws *Workspace) ClusterName(file string) string {
	if c := ws.ClusterOf(file); c != nil {
		return c.Name
	}
	return ""
}

// ClusterKey returns a key shared by exactly the files that see each other's evidence: the
// files of one cluster, or the shared files of one directory.
func (ws *Workspace) ClusterKey(file string) string {
	if c := ws.ClusterOf(file); c != nil {
		return "c\x00" + c.Name
	}
	return "s\x00" + dirOf(path.Clean(file))
}

// SameCluster reports whether two files see each other's evidence: both in one cluster, or
// both shared in the same directory. Shared files are judged on their own: a shared file never
// sees a cluster's files, nor shared files elsewhere.
func (ws *Workspace) SameCluster(a, b string) bool {
	ca, cb := ws.ClusterOf(a), ws.ClusterOf(b)
	if ca != nil || cb != nil {
		return ca == cb
	}
	return dirOf(path.Clean(a)) == dirOf(path.Clean(b))
}

// ClusterByName returns the cluster named name, or nil.
func (ws *Workspace) ClusterByName(name string) *Cluster {
	for _, c := range ws.Clusters {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// InstanceCluster returns the cluster of a kube-proxy instance: that of its workload, else of
// its command line or installer file, else of its configuration.
func (ws *Workspace) InstanceCluster(in *Instance) *Cluster {
	if f := instanceFile(in); f != "" {
		return ws.ClusterOf(f)
	}
	return nil
}

// InstanceFile returns the file that anchors an instance: its workload's, else its command
// line's or installer's, else its configuration's (outer files for embedded documents).
func InstanceFile(in *Instance) string { return instanceFile(in) }

// uniqueAnchors sorts anchors by position and keeps one per position (a kubeadm document is
// both an installer instance and an identity document): the first description, in order.
func uniqueAnchors(as []ClusterAnchor) []ClusterAnchor {
	sort.SliceStable(as, func(i, j int) bool { return as[i].Pos.Less(as[j].Pos) })
	out := as[:0]
	for _, a := range as {
		if n := len(out); n > 0 && out[n-1].Pos == a.Pos {
			continue
		}
		out = append(out, a)
	}
	return out
}
