package checker

import (
	"path"
	"sort"
	"strings"
)

// Targets per cluster (RULES.md "Target version per cluster"). Every file is checked at the
// version of its own cluster, the version the cluster runs or is being upgraded to:
//
//  1. --target-version when given;
//  2. the cluster's declared version (clusters: in the configuration);
//  3. the highest version that a cluster definition inside the cluster names (kubeadm
//     kubernetesVersion, kind node image, kops, Talos, EKS, ... versions), else the highest
//     version of a component inside it (kube-proxy or control-plane image tags); a chart's
//     appVersion counts only for that chart's own renderings;
//  4. else the configuration file's target-version (Workspace.TargetFallback);
//  5. else DefaultTarget.
//
// A version found in one cluster never moves another cluster's or a shared file's target:
// shared files are checked at the fallback.

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
	// In is the file the version was found in before positions were mapped out of rendered
	// files (a chart rendering's virtual file); "" means Pos.Filename.
	In string `json:"-"`
	// Chart is set on a chart's appVersion: the chart's directory, whose renderings alone it
	// counts for.
	Chart string `json:"-"`
}

// Target returns the source as a target.
func (s *VersionSource) Target() Target {
	pos := s.Pos
	return Target{Version: s.Version, Source: s.What + " at " + pos.String(), Pos: &pos}
}

// targetIndex answers TargetOf; built once by IndexTargets, read-only afterwards, so rules
// running in parallel can share it.
type targetIndex struct {
	byCluster map[*Cluster]Target
	shared    Target
}

// IndexTargets resolves the target of every cluster and of the shared files, and sets Target,
// the repository's target, unless TargetFixed: the highest target of a cluster outside
// self-contained trees, else DefaultTarget. The loader calls it once the clusters are known.
func (ws *Workspace) IndexTargets() {
	fallback := Target{Version: DefaultTarget, Source: "default"}
	if ws.TargetFallback != nil {
		fallback = *ws.TargetFallback
	}
	x := &targetIndex{byCluster: map[*Cluster]Target{}, shared: fallback}
	ws.targets = x
	if ws.TargetFixed {
		return
	}
	type best struct{ cluster, component *VersionSource }
	found := map[*Cluster]*best{}
	consider := func(c *Cluster, s *VersionSource) {
		b := found[c]
		if b == nil {
			b = &best{}
			found[c] = b
		}
		slot := &b.component
		if s.Cluster {
			slot = &b.cluster
		}
		if *slot == nil || (*slot).Version.Less(s.Version) {
			*slot = s
		}
	}
	for i := range ws.VersionSources {
		s := &ws.VersionSources[i]
		if s.Chart != "" {
			for _, c := range ws.Clusters {
				if c.Virtual() != "" && c.Root == s.Chart {
					consider(c, s)
				}
			}
			continue
		}
		in := s.In
		if in == "" {
			in = s.Pos.Filename
		}
		if c := ws.ClusterOf(in); c != nil {
			consider(c, s)
		}
	}
	// A declared cluster none of whose files this run reads (a partial run) names no version
	// for the run's summary.
	populated := map[*Cluster]bool{}
	for _, f := range ws.Files {
		if c := ws.ClusterOf(f.Path); c != nil {
			populated[c] = true
		}
	}
	var top *Target
	for _, c := range ws.Clusters {
		t := fallback
		switch b := found[c]; {
		case c.Version != nil:
			t = Target{Version: *c.Version, Source: "declared version of cluster " + c.Name}
			if c.VersionPos != nil {
				pos := *c.VersionPos
				t.Source += " at " + pos.String()
				t.Pos = &pos
			}
		case b != nil && b.cluster != nil:
			t = b.cluster.Target()
		case b != nil && b.component != nil:
			t = b.component.Target()
		}
		t.Scope = c.Name
		x.byCluster[c] = t
		if c.Unit == "" && c.Virtual() == "" && (populated[c] || !c.Declared) && (top == nil || top.Version.Less(t.Version)) {
			tc := t
			top = &tc
		}
	}
	if top != nil {
		ws.Target = *top
		ws.Target.Scope = ""
	} else {
		ws.Target = x.shared
	}
}

// TargetOf returns the target of a file (a slash-separated path relative to the root, as in
// Position.Filename): the version its findings are checked at and where it came from, with
// Scope set to the name of the file's cluster ("" for a shared file).
func (ws *Workspace) TargetOf(file string) Target {
	c := ws.ClusterOf(file)
	return ws.ClusterTarget(c)
}

// ClusterTarget returns the target of a cluster; nil means the shared files'.
func (ws *Workspace) ClusterTarget(c *Cluster) Target {
	var t Target
	switch {
	case ws.TargetFixed || ws.targets == nil:
		if ws.Target.Version == (Version{}) {
			t = Target{Version: DefaultTarget, Source: "default"}
		} else {
			t = ws.Target
		}
	case c == nil:
		t = ws.targets.shared
	default:
		var ok bool
		if t, ok = ws.targets.byCluster[c]; !ok {
			t = ws.targets.shared
		}
	}
	t.Scope = ""
	if c != nil {
		t.Scope = c.Name
	}
	return t
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

// ScopeTargets lists the targets the files are checked at: one entry per cluster, then one
// for the shared files when there are any, sorted by cluster name ("" for the shared files
// first).
func (ws *Workspace) ScopeTargets() []Target {
	var out []Target
	shared := false
	for _, f := range ws.Files {
		if f.Parent == nil && f.Path != "-" && ws.ClusterOf(f.Path) == nil {
			shared = true
			break
		}
	}
	if shared || len(ws.Clusters) == 0 {
		out = append(out, ws.ClusterTarget(nil))
	}
	for _, c := range ws.Clusters {
		out = append(out, ws.ClusterTarget(c))
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
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

// alternativeDirs hold alternatives, each its own tree: kustomize overlays (overlays/NAME)
// and Ansible roles (roles/NAME). Evidence in one overlay never reaches another, nor the base.
var alternativeDirs = map[string]bool{"roles": true, "overlays": true}

// inventoryDirs are the directories of an Ansible inventory beside its hosts file.
var inventoryDirs = map[string]bool{"group_vars": true, "host_vars": true}

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
		if sampleDirs[p] || (alternativeDirs[p] && i+1 < len(parts)) {
			end := min(i+2, len(parts))
			if end > i+1 && inventoryDirs[parts[i+1]] {
				// An Ansible inventory named like a sample (kubespray's inventory/sample):
				// its group_vars and host_vars are the inventory's, not trees of their own.
				end = i + 1
			}
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
