package checker

import (
	"path"
	"sort"
	"strings"
)

// Targets per scope (RULES.md §1, "Target version per scope"). Every file is checked at the
// version of its own cluster, the version the cluster runs or is being upgraded to:
//
//  1. --target-version (or the config file) when given;
//  2. for a file that defines a cluster itself (a kubeadm, kind, kops, eksctl, ... config),
//     the highest version it names;
//  3. else the nearest enclosing directory, walking up from the file's own to the repository
//     root, whose subtree holds a cluster definition: the highest version named in that
//     subtree, image tags included. So clusters/old and clusters/new each keep their own,
//     and a one-cluster layout of sibling directories (kube-system/ with a kube-proxy image
//     still at v1.37, kubeadm/ at v1.40) shares the version it is being upgraded to;
//  4. else, in a tree without any cluster definition, the highest image tag (or chart
//     appVersion) of the nearest directory that names one;
//  5. else DefaultTarget.
//
// A version named inside a self-contained tree (UnitOf: test data, examples, an Ansible role)
// only counts for files of that tree, so a golden file in pkg/x/testdata never sets the
// version of the manifests elsewhere.

// VersionSource is a place where the repository names the Kubernetes version of a cluster.
type VersionSource struct {
	Version Version
	// What names the source for people: "kubeadm kubernetesVersion", "kube-proxy image tag".
	What string
	// Pos is where the version is written, in the real file.
	Pos Position
	// Cluster is true when the source defines a whole cluster (an installer or cluster
	// configuration), false for the version of one component (an image tag, a chart).
	Cluster bool
}

// Target returns the source as a target.
func (s *VersionSource) Target() Target {
	pos := s.Pos
	return Target{Version: s.Version, Source: s.What + " at " + pos.String(), Pos: &pos}
}

// targetIndex answers TargetOf; built once by IndexTargets, read-only afterwards, so rules
// running in parallel can share it.
type targetIndex struct {
	// byFile and byDir list indices into VersionSources: the sources of each file, and of
	// each directory's whole subtree ("" is the repository root).
	byFile map[string][]int
	byDir  map[string][]int
	units  []string // UnitOf of each source's file
	// dirs caches the target of each directory holding a loaded file.
	dirs map[string]Target
}

// IndexTargets indexes VersionSources and sets Target, the repository's target, unless
// TargetFixed: the highest version named outside self-contained trees, else DefaultTarget.
// The loader calls it once every file and scope is known.
func (ws *Workspace) IndexTargets() {
	x := &targetIndex{byFile: map[string][]int{}, byDir: map[string][]int{}, dirs: map[string]Target{}}
	for i := range ws.VersionSources {
		f := ws.VersionSources[i].Pos.Filename
		x.byFile[f] = append(x.byFile[f], i)
		x.units = append(x.units, UnitOf(f))
		for d := dirOf(f); ; d = parentDir(d) {
			x.byDir[d] = append(x.byDir[d], i)
			if d == "" {
				break
			}
		}
	}
	ws.targets = x
	// Directories share their ancestors' levels: resolve each level once per tree.
	levels := map[[2]string]level{}
	if !ws.TargetFixed {
		ws.Target = ws.dirTarget("", levels)
	}
	for _, f := range ws.Files {
		if f.Parent != nil {
			continue
		}
		if d := dirOf(f.Path); ws.targets.dirs[d].Source == "" {
			ws.targets.dirs[d] = ws.dirTarget(d, levels)
		}
	}
}

// level is what one directory level offers to the files of a tree: its best version and
// whether a cluster definition is among its sources.
type level struct {
	t           Target
	ok, cluster bool
}

// TargetOf returns the target of a file (a slash-separated path relative to the root, as in
// Position.Filename): the version its findings are checked at and where it came from, with
// Scope set to the file's scope.
func (ws *Workspace) TargetOf(file string) Target {
	t := ws.targetOf(path.Clean(file))
	t.Scope = ws.ScopeOf(file)
	return t
}

func (ws *Workspace) targetOf(file string) Target {
	if ws.TargetFixed || ws.targets == nil {
		if ws.Target.Version == (Version{}) {
			return Target{Version: DefaultTarget, Source: "default"}
		}
		return ws.Target
	}
	if own := ws.targets.byFile[file]; ws.anyCluster(own) {
		t, _ := ws.best(own, "", true)
		return t
	}
	d := dirOf(file)
	if t, ok := ws.targets.dirs[d]; ok {
		return t
	}
	return ws.dirTarget(d, nil)
}

// dirTarget resolves the target of the files of directory dir that name no version
// themselves: the nearest directory at or above dir whose subtree holds a cluster definition
// that counts for dir, else the nearest one with an image tag. levels, when not nil, caches
// the levels already resolved (IndexTargets only: afterwards rules read the workspace in
// parallel).
func (ws *Workspace) dirTarget(dir string, levels map[[2]string]level) Target {
	unit := unitOfDir(dir)
	var fallback *Target
	for d := dir; ; d = parentDir(d) {
		l, cached := levels[[2]string{d, unit}]
		if !cached {
			l.t, l.ok = ws.best(ws.targets.byDir[d], unit, false)
			l.cluster = l.ok && ws.anyClusterIn(ws.targets.byDir[d], unit)
			if levels != nil {
				levels[[2]string{d, unit}] = l
			}
		}
		if l.cluster {
			return l.t
		}
		if l.ok && fallback == nil {
			t := l.t
			fallback = &t
		}
		if d == "" {
			break
		}
	}
	if fallback != nil {
		return *fallback
	}
	return Target{Version: DefaultTarget, Source: "default"}
}

// anyCluster reports whether one of sources defines a cluster.
func (ws *Workspace) anyCluster(sources []int) bool {
	for _, i := range sources {
		if ws.VersionSources[i].Cluster {
			return true
		}
	}
	return false
}

// anyClusterIn reports whether one of sources that counts for unit defines a cluster.
func (ws *Workspace) anyClusterIn(sources []int, unit string) bool {
	for _, i := range sources {
		if u := ws.targets.units[i]; (u == "" || u == unit) && ws.VersionSources[i].Cluster {
			return true
		}
	}
	return false
}

// best returns the highest version among sources; on ties a cluster definition over an image
// tag, then the first in file order. With own false, a source inside a self-contained tree
// counts only when the tree is unit.
func (ws *Workspace) best(sources []int, unit string, own bool) (Target, bool) {
	var b *VersionSource
	for _, i := range sources {
		if u := ws.targets.units[i]; !own && u != "" && u != unit {
			continue
		}
		s := &ws.VersionSources[i]
		if b == nil || b.Version.Less(s.Version) || (b.Version == s.Version && s.Cluster && !b.Cluster) {
			b = s
		}
	}
	if b == nil {
		return Target{}, false
	}
	return b.Target(), true
}

// InstanceTarget returns the target of a kube-proxy instance: that of the file that anchors it
// (its workload, else its command line or installer file, else its configuration), the file
// whose scope it belongs to (ScopeOfInstance).
func (ws *Workspace) InstanceTarget(in *Instance) Target {
	if f := instanceFile(in); f != "" {
		return ws.TargetOf(f)
	}
	return ws.TargetOf("")
}

func instanceFile(in *Instance) string {
	switch {
	case in.Workload != nil:
		return in.Workload.File.Outer().Path
	case in.Source != nil:
		return in.Source.Path
	case in.Config != nil:
		return in.Config.File.Outer().Path
	}
	return ""
}

// ScopeTargets lists the targets the files are checked at: one entry per scope and target,
// sorted by scope and version. A scope has several when files in it name versions of their
// own (a directory of kops cluster specs, one per cluster).
func (ws *Workspace) ScopeTargets() []Target {
	type key struct {
		scope, source string
		v             Version
	}
	seen := map[key]bool{}
	var out []Target
	add := func(t Target) {
		k := key{t.Scope, t.Source, t.Version}
		if !seen[k] {
			seen[k] = true
			out = append(out, t)
		}
	}
	for _, f := range ws.Files {
		if f.Parent == nil && f.Path != "-" {
			add(ws.TargetOf(f.Path))
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Scope != b.Scope {
			return a.Scope < b.Scope
		}
		if a.Version != b.Version {
			return a.Version.Less(b.Version)
		}
		return a.Source < b.Source
	})
	return out
}

// sampleDirs name directories whose content is test data, an example or a demo rather than
// a cluster of the repository's owner.
var sampleDirs = map[string]bool{
	"test": true, "tests": true, "testing": true, "testdata": true, "test-data": true, "test_data": true, "e2e": true,
	"golden": true, "goldens": true, "fixture": true, "fixtures": true,
	"example": true, "examples": true, "sample": true, "samples": true, "demo": true, "demos": true,
	// Developer tooling and local environments: hack/ (the Kubernetes convention), dev-setup/.
	"hack": true, "dev-setup": true,
}

// UnitOf returns the self-contained tree that a file belongs to, "" for none. Such a tree
// describes clusters of its own, unrelated to the rest of the repository: test data, an
// example or developer tooling (below the innermost directory named in sampleDirs, together
// with the next directory level, so that tests/docker and tests/e2e are two trees), or an
// Ansible role (roles/NAME). Version sources, kube-proxy replacements, Services and kubeadm
// configs count only within their own tree; files outside every tree share what lies outside
// every tree.
func UnitOf(file string) string {
	return unitOfDir(dirOf(path.Clean(file)))
}

func unitOfDir(dir string) string {
	if dir == "" {
		return ""
	}
	parts := strings.Split(dir, "/")
	for i := len(parts) - 1; i >= 0; i-- {
		p := strings.ToLower(parts[i])
		if sampleDirs[p] || (p == "roles" && i+1 < len(parts)) {
			end := min(i+2, len(parts))
			return strings.Join(parts[:end], "/")
		}
	}
	return ""
}

// dirOf returns the directory of a slash-separated path, "" for the root.
func dirOf(file string) string {
	d := path.Dir(file)
	if d == "." || d == "/" {
		return ""
	}
	return d
}

// parentDir returns the parent of a directory, "" above the top level.
func parentDir(d string) string {
	return dirOf(d)
}
