// Package cluster infers which files form which cluster (RULES.md "Clusters"): identity
// anchors name clusters, each cluster's root is the highest directory that holds its anchors
// and no other cluster's, alternatives side by side (kind configurations in one directory,
// chart renderings, test and example trees) are clusters of their own, files under no root
// are shared, and clusters declared in the configuration replace inference for the paths
// they cover. The model is stored in the workspace (checker.Workspace.SetClusters), where
// every cross-file judgement reads it.
package cluster

import (
	"fmt"
	"path"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Declared is a cluster declared in the configuration file.
type Declared struct {
	Name  string
	Paths []string
	// PathPos[i] is where Paths[i] is written; Pos where the entry starts.
	PathPos []checker.Position
	Pos     checker.Position
	Version *checker.Version
	// VersionPos is where the version is written.
	VersionPos *checker.Position
}

// Error is a declared cluster that cannot be used: a path in two clusters, a glob that
// matches nothing. Pos is in the configuration file.
type Error struct {
	Pos     checker.Position
	Message string
	// Unmatched is set on a glob that matches no file of the workspace: an error when the
	// run read the whole tree the globs are written for, not when it linted part of it.
	Unmatched bool
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Message }

// anchor is one piece of evidence that a directory holds a cluster.
type anchor struct {
	file, dir, unit string
	what            string
	pos             checker.Position
	// name is the cluster's own name when the anchor gives one (Talos clusterName).
	name string
	// alt is true for a whole-cluster definition of an installer whose definitions side by
	// side in one directory are alternatives (several kind or kubeadm configurations).
	alt       bool
	installer string
	identity  bool
	// vars are the top-level variables of a kubespray vars file outside an inventory's
	// group_vars/host_vars (for varsAlternatives).
	vars []string
}

// Infer builds the cluster model of ws and stores it (Workspace.SetClusters). Declared
// clusters own the files their globs match; the others are inferred. The errors are about
// the declared clusters (positions in the configuration file).
func Infer(ws *checker.Workspace, declared []Declared) []error {
	var errs []error
	files := map[string]*checker.Cluster{}
	var clusters []*checker.Cluster
	covered := map[string]bool{}
	all := allFiles(ws)
	for _, d := range declared {
		c := &checker.Cluster{Name: d.Name, How: "declared in " + d.Pos.String(),
			Declared: true, Paths: d.Paths, Version: d.Version, VersionPos: d.VersionPos}
		dp := d.Pos
		c.DeclaredPos = &dp
		clusters = append(clusters, c)
		for i, g := range d.Paths {
			n := 0
			// Files this glob matches that an earlier declared cluster holds: one error per
			// other cluster, naming the first file and how many there are.
			taken := map[*checker.Cluster][]string{}
			var takers []*checker.Cluster
			for _, f := range all {
				if !checker.GlobMatch(g, f) {
					continue
				}
				n++
				if o := files[f]; o != nil && o != c {
					if taken[o] == nil {
						takers = append(takers, o)
					}
					taken[o] = append(taken[o], f)
					continue
				}
				files[f] = c
				covered[f] = true
			}
			for _, o := range takers {
				fs := taken[o]
				what := fs[0] + " is"
				if len(fs) > 1 {
					what = fmt.Sprintf("%d files (first: %s) are", len(fs), fs[0])
				}
				errs = append(errs, &Error{Pos: posAt(d.PathPos, i, d.Pos),
					Message: fmt.Sprintf("%s also in the cluster declared at %s: a file belongs to one declared cluster", what, declPos(declared, o))})
			}
			if n == 0 {
				errs = append(errs, &Error{Pos: posAt(d.PathPos, i, d.Pos), Unmatched: true,
					Message: "this paths glob matches no linted file"})
			}
		}
		c.Root = declaredRoot(files, c)
	}

	anchors := collect(ws, covered)
	top := commonTop(all)
	// An inferred cluster's root never climbs to a directory that holds a declared
	// cluster's files: those are another cluster's.
	blocked := map[string]bool{}
	for f := range covered {
		for d := dirOf(f); !blocked[d]; d = dirOf(d) {
			blocked[d] = true
			if d == "" {
				break
			}
		}
	}
	inferred := place(anchors, top, blocked)
	for _, c := range inferred {
		clusters = append(clusters, c)
		if c.File != "" {
			files[c.File] = c
		}
	}
	if len(declared) == 0 && !anyIn(inferred, checker.UnitOf(path.Join(top, "_"))) && len(ws.Files) > 0 {
		// Nothing names a cluster outside test and example trees: the repository is taken as
		// one cluster (a GitOps repository of a managed cluster holds no installer config).
		clusters = append(clusters, &checker.Cluster{Name: dirName(top), Root: top, How: "no cluster definition in the repository: taken as one cluster"})
	}
	clusters = append(clusters, renderings(ws, clusters)...)
	uniqueNames(clusters)
	ws.SetClusters(clusters, files)
	mergeLayers(ws)
	return errs
}

// mergeLayers gives the layers of one configuration what one of them sets: a Talos
// KubeProxyConfig with enabled: false (or a patch's cluster.proxy.disabled) disables the
// kube-proxy of the machine config it is merged into, in the same cluster, and a mode set in
// one layer only (a patch's cluster.proxy.mode) is the mode of the others. Layers that set
// different modes keep their own (which one wins depends on the patch order).
func mergeLayers(ws *checker.Workspace) {
	type key struct {
		c         *checker.Cluster
		installer string
	}
	type shared struct {
		off   *checker.InstallerSetting
		mode  *checker.InstallerSetting
		modes int
	}
	layers := map[key]*shared{}
	for _, in := range ws.Instances {
		if in.Installer == nil || !checker.LayeringInstaller(in.Installer.Name) {
			continue
		}
		k := key{ws.InstanceCluster(in), in.Installer.Name}
		if k.c == nil {
			continue
		}
		sh := layers[k]
		if sh == nil {
			sh = &shared{}
			layers[k] = sh
		}
		if in.IsDisabled() && sh.off == nil {
			sh.off = in.Installer.Disabled
		}
		if m := in.Installer.Mode; m != nil && m != sh.mode {
			sh.mode = m
			sh.modes++
		}
	}
	for _, in := range ws.Instances {
		if in.Installer == nil || !checker.LayeringInstaller(in.Installer.Name) {
			continue
		}
		sh := layers[key{ws.InstanceCluster(in), in.Installer.Name}]
		if sh == nil {
			continue
		}
		if sh.off != nil && !in.IsDisabled() {
			in.Installer.Disabled = sh.off
		}
		if sh.modes == 1 && in.Installer.Mode == nil {
			in.Installer.Mode = sh.mode
		}
	}
}

// anyIn reports whether a cluster lies in the self-contained tree unit.
func anyIn(cs []*checker.Cluster, unit string) bool {
	for _, c := range cs {
		if c.Unit == unit {
			return true
		}
	}
	return false
}

// commonTop is the deepest directory holding every file: roots never climb above what was
// linted.
func commonTop(files []string) string {
	var parts []string
	for i, f := range files {
		d := strings.Split(dirOf(f), "/")
		if dirOf(f) == "" {
			return ""
		}
		if i == 0 {
			parts = d
			continue
		}
		n := 0
		for n < len(parts) && n < len(d) && parts[n] == d[n] {
			n++
		}
		parts = parts[:n]
	}
	return strings.Join(parts, "/")
}

// declPos is where the declared cluster c is written.
func declPos(declared []Declared, c *checker.Cluster) checker.Position {
	for _, d := range declared {
		if d.Name == c.Name {
			return d.Pos
		}
	}
	return checker.Position{}
}

func posAt(ps []checker.Position, i int, def checker.Position) checker.Position {
	if i < len(ps) {
		return ps[i]
	}
	return def
}

// declaredRoot is the deepest directory holding every file of a declared cluster.
func declaredRoot(files map[string]*checker.Cluster, c *checker.Cluster) string {
	var parts []string
	first := true
	for f, o := range files {
		if o != c {
			continue
		}
		d := strings.Split(dirOf(f), "/")
		if dirOf(f) == "" {
			d = nil
		}
		if first {
			parts, first = d, false
			continue
		}
		n := 0
		for n < len(parts) && n < len(d) && parts[n] == d[n] {
			n++
		}
		parts = parts[:n]
	}
	return strings.Join(parts, "/")
}

// allFiles lists the real files of the workspace (not stdin).
func allFiles(ws *checker.Workspace) []string {
	out := make([]string, 0, len(ws.Files))
	for _, f := range ws.Files {
		if f.Parent == nil && f.Path != "-" {
			out = append(out, f.Path)
		}
	}
	return out
}

// identityKinds are the documents that name a cluster besides the installer configurations
// that the loader turns into kube-proxy instances: apiVersion group prefix and kind.
var identityKinds = []struct{ group, kind, what string }{
	{"kubeadm.k8s.io/", "ClusterConfiguration", "kubeadm ClusterConfiguration"},
	{"kubeadm.k8s.io/", "InitConfiguration", "kubeadm InitConfiguration"},
	{"kind.x-k8s.io/", "Cluster", "kind Cluster"},
	{"cluster.x-k8s.io/", "Cluster", "Cluster API Cluster"},
	{"kops.k8s.io/", "Cluster", "kops Cluster"},
	{"kops/", "Cluster", "kops Cluster"},
	{"eksctl.io/", "ClusterConfig", "eksctl ClusterConfig"},
	{"core.gardener.cloud/", "Shoot", "Gardener Shoot"},
	{"kubekey.kubesphere.io/", "Cluster", "KubeKey Cluster"},
	{"k0s.k0sproject.io/", "ClusterConfig", "k0s ClusterConfig"},
	{"k0sctl.k0sproject.io/", "Cluster", "k0sctl Cluster"},
	{"kubeone.k8c.io/", "KubeOneCluster", "KubeOne KubeOneCluster"},
	{"apps.sealos.io/", "Cluster", "sealos Cluster"},
}

// splitInstallers are the installers whose cluster definitions side by side in one directory
// are alternatives, each its own cluster (three kind configurations, a directory of kops
// specs); the others spread one cluster over several files of a directory (Talos control
// plane and worker configs, kubespray group_vars, k3s server and agent configs, Terraform
// modules).
var splitInstallers = map[string]bool{
	checker.InstallerKubeadm: true, checker.InstallerKind: true, checker.InstallerKops: true,
	checker.InstallerEKS: true, checker.InstallerKubeKey: true, checker.InstallerK0s: true,
	checker.InstallerKubeOne: true, checker.InstallerSealos: true, checker.InstallerCAPI: true,
	checker.InstallerGardener: true, checker.InstallerAKS: true, checker.InstallerAKSEngine: true,
}

// collect lists the anchors of the files that no declared cluster covers.
func collect(ws *checker.Workspace, covered map[string]bool) []anchor {
	var out []anchor
	add := func(a anchor) {
		if covered[a.file] || a.file == "" || a.file == "-" {
			return
		}
		if a.dir == "" && a.file != "" {
			a.dir = dirOf(a.file)
		}
		a.unit = checker.UnitOf(a.file)
		out = append(out, a)
	}
	for _, d := range ws.Docs {
		if d.Parent != nil && !initInString(d) {
			continue
		}
		f := d.File.Outer()
		if f.Render != nil {
			continue // renderings are placed by renderings()
		}
		for _, k := range identityKinds {
			if d.Kind == k.kind && strings.HasPrefix(d.APIVersion, k.group) {
				if strings.HasPrefix(k.group, "kubeadm.") && (d.Parent == nil && JoinOnly(f) || d.Parent != nil && JoinOnly(d.File)) {
					break
				}
				pos, _ := d.KindPos()
				inst := installerOfGroup(k.group)
				add(anchor{file: f.Path, what: k.what, pos: pos, identity: true, alt: splitInstallers[inst], installer: inst})
				break
			}
		}
	}
	for _, in := range ws.Instances {
		file := checker.InstanceFile(in)
		if file == "" || ws.RenderedFile(file) != nil {
			continue
		}
		if in.Installer != nil && in.Installer.Name != checker.InstallerScript {
			ins := in.Installer
			a := anchor{file: file, what: in.Label, identity: true, alt: splitInstallers[ins.Name], installer: ins.Name, pos: ins.Anchor}
			if ins.Name == checker.InstallerKubespray || ins.Name == checker.InstallerKubeasz {
				a.dir = inventoryDir(file)
				a.alt = false
				if ins.Name == checker.InstallerKubespray && a.dir == dirOf(file) && ins.Doc != nil {
					a.vars = topKeys(ins.Doc)
				}
			}
			if ins.Name == checker.InstallerTalos && ins.Doc != nil {
				a.name = ins.Doc.Str(checker.P("cluster", "clusterName"))
			}
			add(a)
			continue
		}
		a := anchor{file: file, what: in.Label}
		switch {
		case in.Workload != nil:
			a.pos, _ = in.Workload.KindPos()
		case in.Kind == checker.InstanceCommand:
			a.pos = in.Program
		case in.Config != nil:
			a.pos, _ = in.Config.KindPos()
		}
		add(a)
	}
	varsAlternatives(out)
	return out
}

// varsAlternatives marks as alternatives the kubespray vars files side by side outside an
// inventory's group_vars/host_vars that set a variable another of them sets too: one
// scenario per file (kubespray's own tests/files, one per CI job, each passed with -e @FILE),
// not one cluster's variables spread over several files, which would not set one variable
// twice.
func varsAlternatives(as []anchor) {
	byDir := map[string]map[string][]int{} // dir -> variable -> anchors setting it
	for i, a := range as {
		if len(a.vars) == 0 {
			continue
		}
		if byDir[a.dir] == nil {
			byDir[a.dir] = map[string][]int{}
		}
		for _, v := range a.vars {
			byDir[a.dir][v] = append(byDir[a.dir][v], i)
		}
	}
	for _, vars := range byDir {
		for _, idx := range vars {
			files := map[string]bool{}
			for _, i := range idx {
				files[as[i].file] = true
			}
			if len(files) < 2 {
				continue
			}
			for _, i := range idx {
				as[i].alt = true
			}
		}
	}
}

// topKeys returns the top-level keys of a mapping document.
func topKeys(d *checker.Document) []string {
	if d.Node == nil || d.Node.Kind != yaml.MappingNode {
		return nil
	}
	out := make([]string, 0, len(d.Node.Content)/2)
	for k := 0; k+1 < len(d.Node.Content); k += 2 {
		out = append(out, d.Node.Content[k].Value)
	}
	return out
}

func installerOfGroup(group string) string {
	switch {
	case strings.HasPrefix(group, "kubeadm."):
		return checker.InstallerKubeadm
	case strings.HasPrefix(group, "kind."):
		return checker.InstallerKind
	case strings.HasPrefix(group, "cluster.x-k8s"):
		return checker.InstallerCAPI
	case strings.HasPrefix(group, "kops"):
		return checker.InstallerKops
	case strings.HasPrefix(group, "eksctl"):
		return checker.InstallerEKS
	case strings.HasPrefix(group, "core.gardener"):
		return checker.InstallerGardener
	case strings.HasPrefix(group, "kubekey"):
		return checker.InstallerKubeKey
	case strings.HasPrefix(group, "k0s"):
		return checker.InstallerK0s
	case strings.HasPrefix(group, "kubeone"):
		return checker.InstallerKubeOne
	case strings.HasPrefix(group, "apps.sealos"):
		return checker.InstallerSealos
	}
	return ""
}

// inventoryDir is the Ansible inventory directory of a kubespray or kubeasz file: the
// directory holding group_vars/ or host_vars/, else the file's own.
func inventoryDir(file string) string {
	s := "/" + file
	for _, k := range []string{"/group_vars/", "/host_vars/"} {
		if i := strings.Index(s, k); i >= 0 {
			return strings.TrimPrefix(s[:i], "/")
		}
	}
	return dirOf(file)
}

// initInString reports whether d is a kubeadm InitConfiguration written in a string of another
// document (cloud-init write_files, a custom resource's field): a kubeadm config like a file,
// so it names a cluster as one. Only the InitConfiguration: a ClusterConfiguration in a string
// is a kube-proxy installer, which anchors its cluster already, and the kubeadm-config
// ConfigMap's copy is a record of a cluster, not a definition.
func initInString(d *checker.Document) bool {
	return d.Kind == "InitConfiguration" && strings.HasPrefix(d.APIVersion, "kubeadm.k8s.io/") &&
		d.Parent.Kind != "ConfigMap"
}

// JoinOnly reports whether a kubeadm file joins an existing cluster: its only init-time
// document is a JoinConfiguration. kubeadm join ignores the ClusterConfiguration and
// KubeProxyConfiguration beside it, so the file anchors no cluster and configures no
// kube-proxy.
func JoinOnly(f *checker.File) bool {
	join := false
	for _, d := range f.Docs {
		if !strings.HasPrefix(d.APIVersion, "kubeadm.k8s.io/") {
			continue
		}
		switch d.Kind {
		case "InitConfiguration":
			return false
		case "JoinConfiguration":
			join = true
		}
	}
	return join
}

// group is the anchors of one cluster before its root is known.
type group struct {
	unit, dir string
	file      string // set for a one-file cluster
	anchors   []anchor
	identity  bool
}

// place turns anchors into clusters: identity anchors first (grouped by directory, split into
// one-file clusters where they are alternatives), each with the highest root in its tree that
// holds no other cluster's anchor; then deployed kube-proxies that no identity root covers.
func place(anchors []anchor, top string, blocked map[string]bool) []*checker.Cluster {
	var idGroups []*group
	byDir := map[string][]anchor{}
	var dirs []string
	for _, a := range anchors {
		if !a.identity {
			continue
		}
		k := a.unit + "\x00" + a.dir
		if byDir[k] == nil {
			dirs = append(dirs, k)
		}
		byDir[k] = append(byDir[k], a)
	}
	sort.Strings(dirs)
	for _, k := range dirs {
		as := byDir[k]
		idGroups = append(idGroups, split(as)...)
	}
	// Deployed kube-proxies: by directory, shallowest first; one under an identity group's
	// directory or an earlier deployed group's root joins it.
	var depGroups []*group
	depByDir := map[string]*group{}
	for _, a := range anchors {
		if a.identity {
			continue
		}
		k := a.unit + "\x00" + a.dir
		g := depByDir[k]
		if g == nil {
			g = &group{unit: a.unit, dir: a.dir}
			depByDir[k] = g
			depGroups = append(depGroups, g)
		}
		g.anchors = append(g.anchors, a)
	}
	sort.SliceStable(depGroups, func(i, j int) bool {
		di, dj := depth(depGroups[i].dir), depth(depGroups[j].dir)
		if di != dj {
			return di < dj
		}
		return depGroups[i].dir < depGroups[j].dir
	})
	var out []*checker.Cluster
	roots := map[string]*checker.Cluster{} // unit+"\x00"+root → cluster
	var placed []*group
	rootOf := map[*group]string{}
	others := func(g *group) []*group {
		var o []*group
		for _, h := range idGroups {
			if h != g {
				o = append(o, h)
			}
		}
		for _, h := range depGroups {
			if h != g {
				o = append(o, h)
			}
		}
		return o
	}
	for _, g := range idGroups {
		// Only other clusters' identity anchors bound a root: deployed kube-proxies below it
		// are this cluster's.
		var o []*group
		for _, h := range idGroups {
			if h != g {
				o = append(o, h)
			}
		}
		r := climb(g, o, top, blocked)
		rootOf[g] = r
		placed = append(placed, g)
	}
	for _, g := range depGroups {
		if covers(placed, rootOf, g) {
			continue
		}
		var o []*group
		for _, h := range others(g) {
			if h.unit != g.unit || h.identity || !isDirPrefix(g.dir, h.dir) {
				o = append(o, h) // deployed kube-proxies below this one join it
			}
		}
		rootOf[g] = climb(g, o, top, blocked)
		placed = append(placed, g)
	}
	for _, g := range placed {
		r := rootOf[g]
		c := &checker.Cluster{Root: r, Unit: g.unit, File: g.file}
		switch {
		case g.file != "":
			c.Root = dirOf(g.file)
			c.Name = g.file
			c.How = "one of several cluster definitions side by side in " + dirName(dirOf(g.file))
		case g.identity:
			c.Name = dirName(r)
			c.How = "identity anchor"
		default:
			c.Name = dirName(r)
			c.How = "deployed kube-proxy with no cluster definition above it"
		}
		if g.file == "" {
			k := g.unit + "\x00" + r
			if prev := roots[k]; prev != nil {
				prev.Anchors = append(prev.Anchors, anchorsOf(g)...)
				continue
			}
			roots[k] = c
		}
		c.Anchors = anchorsOf(g)
		out = append(out, c)
	}
	for _, c := range out {
		sort.SliceStable(c.Anchors, func(i, j int) bool { return c.Anchors[i].Pos.Less(c.Anchors[j].Pos) })
	}
	return out
}

// covers reports whether an already placed group's cluster holds g: g lies under its root in
// the same tree (a one-file cluster holds only its file).
func covers(placed []*group, rootOf map[*group]string, g *group) bool {
	for _, h := range placed {
		if h.unit != g.unit {
			continue
		}
		if h.file != "" {
			if g.file == h.file || (len(g.anchors) > 0 && g.anchors[0].file == h.file) {
				return true
			}
			continue
		}
		if isDirPrefix(rootOf[h], g.dir) {
			return true
		}
	}
	return false
}

// split groups the identity anchors of one directory into clusters: alternatives side by
// side (definitions of splitting installers in different files, or with different names)
// are one-file clusters; the rest is one cluster of the directory.
func split(as []anchor) []*group {
	byFile := map[string][]anchor{}
	var files []string
	names := map[string]bool{}
	for _, a := range as {
		if byFile[a.file] == nil {
			files = append(files, a.file)
		}
		byFile[a.file] = append(byFile[a.file], a)
		if a.name != "" {
			names[a.name] = true
		}
	}
	alts := 0
	for _, f := range files {
		for _, a := range byFile[f] {
			if a.alt {
				alts++
				break
			}
		}
	}
	base := &group{unit: as[0].unit, dir: as[0].dir, identity: true}
	if alts < 2 && len(names) < 2 {
		base.anchors = as
		return []*group{base}
	}
	var out []*group
	for _, f := range files {
		alt := len(names) >= 2
		for _, a := range byFile[f] {
			alt = alt || a.alt
		}
		if alt {
			out = append(out, &group{unit: base.unit, dir: base.dir, file: f, anchors: byFile[f], identity: true})
		} else {
			base.anchors = append(base.anchors, byFile[f]...)
		}
	}
	if len(base.anchors) > 0 {
		out = append(out, base)
	}
	return out
}

// climb returns the highest directory at or above g's that holds no other group's anchor and
// no declared cluster's file (blocked), without leaving g's self-contained tree; a one-file
// cluster stays in its directory.
func climb(g *group, others []*group, top string, blocked map[string]bool) string {
	if g.file != "" {
		return g.dir
	}
	r := g.dir
	for r != "" && r != top {
		up := dirOf(r)
		if g.unit != "" && !isDirPrefix(g.unit, up) {
			break
		}
		if blocked[up] || holdsOther(up, g, others) {
			break
		}
		r = up
	}
	return r
}

func holdsOther(dir string, g *group, others []*group) bool {
	for _, h := range others {
		if h.unit == g.unit && isDirPrefix(dir, h.dir) {
			return true
		}
	}
	return false
}

func anchorsOf(g *group) []checker.ClusterAnchor {
	out := make([]checker.ClusterAnchor, 0, len(g.anchors))
	for _, a := range g.anchors {
		out = append(out, checker.ClusterAnchor{What: a.what, Pos: a.pos})
	}
	return out
}

// renderings makes a cluster of each chart rendering that runs or configures kube-proxy: an
// alternative of its own, named after the chart and its values file. A chart that a declared
// cluster covers renders into that cluster.
func renderings(ws *checker.Workspace, before []*checker.Cluster) []*checker.Cluster {
	var out []*checker.Cluster
	seen := map[string]*checker.Cluster{}
	for _, in := range ws.Instances {
		file := checker.InstanceFile(in)
		rf := ws.RenderedFile(file)
		if rf == nil {
			continue
		}
		root, real, variant, ok := ws.RenderRoot(file)
		if !ok || declares(before, root) {
			continue
		}
		c := seen[root]
		if c == nil {
			how := "chart rendering with " + variant
			if h, ok := rf.Render.(interface{ ClusterHow() string }); ok {
				// Not a chart: a kind Cluster written by a heredoc, one of several in a file.
				how = h.ClusterHow()
			}
			c = &checker.Cluster{Root: real, Unit: root, How: how,
				Name: dirName(real) + " (" + variant + ")"}
			c.SetVirtual(root)
			seen[root] = c
			out = append(out, c)
		}
		c.Anchors = append(c.Anchors, checker.ClusterAnchor{What: in.Label, Pos: ws.MapPosition(instancePos(in))})
	}
	return out
}

// declares reports whether a declared cluster's globs match the virtual directory of a
// rendering (they match the chart's directory above it).
func declares(cs []*checker.Cluster, dir string) bool {
	for _, c := range cs {
		if !c.Declared {
			continue
		}
		for _, g := range c.Paths {
			if checker.GlobMatch(g, dir) {
				return true
			}
		}
	}
	return false
}

// uniqueNames makes cluster names unique by suffixing repeats with #2, #3, ...
func uniqueNames(cs []*checker.Cluster) {
	seen := map[string]int{}
	for _, c := range cs {
		seen[c.Name]++
		if n := seen[c.Name]; n > 1 {
			c.Name = fmt.Sprintf("%s#%d", c.Name, n)
		}
	}
}

func dirName(d string) string {
	if d == "" {
		return "."
	}
	return d
}

func depth(d string) int {
	if d == "" {
		return 0
	}
	return strings.Count(d, "/") + 1
}

func dirOf(file string) string {
	d := path.Dir(file)
	if d == "." || d == "/" {
		return ""
	}
	return d
}

func isDirPrefix(prefix, dir string) bool {
	if prefix == "" {
		return true
	}
	return strings.HasPrefix(dir, prefix) && (len(dir) == len(prefix) || dir[len(prefix)] == '/')
}
