package cluster

import (
	"path"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// View is the cluster model as `kube-proxy-lint clusters` shows it (docs/clusters.schema.json):
// each cluster with its root, how it was found, its files, target, kube-proxies and
// replacements, then the shared files. Every path is a real file relative to the repository
// root: a chart rendering is named after its chart and values file and lists the real files
// it renders from, never its virtual paths.
type View struct {
	Clusters []Summary  `json:"clusters"`
	Shared   SharedView `json:"shared"`
}

// Summary is one cluster.
type Summary struct {
	Name string `json:"name"`
	// Root is the cluster's directory, "." for the repository root.
	Root string `json:"root"`
	// How says how the cluster was found.
	How string `json:"how"`
	// Declared is where a declared cluster is written; Paths are its globs relative to the
	// repository root.
	Declared *Location   `json:"declared,omitempty"`
	Paths    []string    `json:"paths,omitempty"`
	Anchors  []AnchorOut `json:"anchors"`
	// Rendering names the values file of a chart rendering ("values-prod.yaml").
	Rendering string         `json:"rendering,omitempty"`
	Target    TargetView     `json:"target"`
	KubeProxy []KubeProxyOut `json:"kubeProxies"`
	// Replaced is true when something else does kube-proxy's job in the cluster and no
	// kube-proxy runs there; Replacements are the signs found in the cluster.
	Replaced     bool             `json:"replaced"`
	Replacements []ReplacementOut `json:"replacements"`
	Files        []string         `json:"files"`
}

// Location is a position in a real file.
type Location struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

// String is "file:line:col".
func (l Location) String() string {
	return checker.Position{Filename: l.File, Line: l.Line, Column: l.Column}.String()
}

// AnchorOut is a piece of evidence that makes the cluster.
type AnchorOut struct {
	What string   `json:"what"`
	At   Location `json:"at"`
}

// TargetView is a target version and where it comes from.
type TargetView struct {
	Version string    `json:"version"`
	Source  string    `json:"source"`
	At      *Location `json:"at,omitempty"`
}

// KubeProxyOut is one kube-proxy of the cluster and its effective mode at the cluster's target.
type KubeProxyOut struct {
	Label string    `json:"label"`
	At    *Location `json:"at,omitempty"`
	// Mode is the effective mode, "" when unknown; Origin says where it comes from (config,
	// flag, installer, default, unknown) and ModeAt where it is written.
	Mode      string    `json:"mode"`
	Origin    string    `json:"origin"`
	ModeAt    *Location `json:"modeAt,omitempty"`
	Installer string    `json:"installer,omitempty"`
	Disabled  bool      `json:"disabled,omitempty"`
}

// ReplacementOut is a sign that something else does kube-proxy's job.
type ReplacementOut struct {
	By      string   `json:"by"`
	Message string   `json:"message"`
	At      Location `json:"at"`
	// Conflicting is true when a kube-proxy remains in the cluster beside it.
	Conflicting bool `json:"conflicting"`
}

// configFileName is the tool's configuration file (internal/config.FileName, which this
// package cannot import).
const configFileName = ".kube-proxy-lint.yaml"

// SharedView is the files in no cluster: judged on their own, at Target.
type SharedView struct {
	Target TargetView `json:"target"`
	Files  []string   `json:"files"`
}

// BuildView describes the cluster model of ws.
func BuildView(ws *checker.Workspace) *View {
	v := &View{Clusters: []Summary{}}
	loc := func(p checker.Position) *Location {
		if !p.IsValid() {
			return nil
		}
		p = ws.MapPosition(p)
		return &Location{File: p.Filename, Line: p.Line, Column: p.Column}
	}
	target := func(c *checker.Cluster) TargetView {
		t := ws.ClusterTarget(c)
		out := TargetView{Version: t.Version.String(), Source: t.Source}
		if t.Pos != nil {
			out.At = loc(*t.Pos)
		}
		return out
	}
	// The real files of each cluster; a rendering's are the templates it renders and its
	// values files.
	files := map[*checker.Cluster][]string{}
	inRendering := map[string]bool{}
	var shared []string
	real := map[string]bool{}
	for _, f := range ws.Files {
		if f.Parent != nil || f.Path == "-" {
			continue
		}
		real[f.Path] = true
		if c := ws.ClusterOf(f.Path); c != nil {
			files[c] = append(files[c], f.Path)
		} else if path.Base(f.Path) != configFileName {
			// The tool's own configuration is read by the run, not part of any cluster.
			shared = append(shared, f.Path)
		}
	}
	for _, rf := range ws.Rendered {
		c := ws.ClusterOf(rf.Path)
		root, dir, variant, ok := ws.RenderRoot(rf.Path)
		if c == nil || !ok || c.Virtual() == "" {
			continue
		}
		rel := strings.TrimPrefix(rf.Path, root+"/")
		for _, f := range []string{path.Join(dir, rel), path.Join(dir, "values.yaml"), path.Join(dir, variant)} {
			if real[f] {
				files[c] = append(files[c], f)
				inRendering[f] = true
			}
		}
	}
	rep := ws.Replaced()
	instances := map[*checker.Cluster][]*checker.Instance{}
	for _, in := range ws.Instances {
		if c := ws.InstanceCluster(in); c != nil {
			instances[c] = append(instances[c], in)
		}
	}
	for _, c := range ws.Clusters {
		cv := Summary{Name: c.Name, Root: dirName(c.Root), How: c.How, Anchors: []AnchorOut{},
			KubeProxy: []KubeProxyOut{}, Replacements: []ReplacementOut{}, Files: uniqueSorted(files[c])}
		if c.Declared {
			cv.Paths = c.Paths
			if c.DeclaredPos != nil {
				p := *c.DeclaredPos
				cv.Declared = &Location{File: p.Filename, Line: p.Line, Column: p.Column}
			}
		}
		if c.Virtual() != "" {
			_, _, cv.Rendering, _ = ws.RenderRoot(c.Virtual() + "/_")
		}
		// An installer's document is both an identity anchor and a kube-proxy instance: one
		// anchor per position.
		seen := map[Location]bool{}
		for _, a := range c.Anchors {
			if l := loc(a.Pos); l != nil && !seen[*l] {
				seen[*l] = true
				cv.Anchors = append(cv.Anchors, AnchorOut{What: a.What, At: *l})
			}
		}
		cv.Target = target(c)
		t := ws.ClusterTarget(c).Version
		for _, in := range instances[c] {
			m := in.Mode(t)
			k := KubeProxyOut{Label: in.Label, At: loc(instancePos(in)), Mode: m.Value, Origin: m.Origin.String(), Disabled: in.IsDisabled()}
			if m.Origin == checker.OriginUnknown {
				k.Mode = ""
			}
			if in.Installer != nil {
				k.Installer = in.Installer.Name
			}
			if p, e, ok := m.Where(); ok {
				// In a rendering, where the mode is written: the values file's value when
				// the template copies it.
				if ms, ok := ws.MapSpan(p, e, "mode"); ok && ms.Pos.IsValid() {
					p = ms.Pos
				}
				k.ModeAt = loc(p)
			}
			cv.KubeProxy = append(cv.KubeProxy, k)
		}
		sort.SliceStable(cv.KubeProxy, func(i, j int) bool {
			a, b := cv.KubeProxy[i], cv.KubeProxy[j]
			if (a.At == nil) != (b.At == nil) {
				return a.At != nil
			}
			if a.At != nil && *a.At != *b.At {
				pa := checker.Position{Filename: a.At.File, Line: a.At.Line, Column: a.At.Column}
				return pa.Less(checker.Position{Filename: b.At.File, Line: b.At.Line, Column: b.At.Column})
			}
			return a.Label < b.Label
		})
		for i := range rep.All {
			if rep.Clusters[i] != c {
				continue
			}
			r := &rep.All[i]
			l := loc(r.Pos)
			if l == nil {
				continue
			}
			cv.Replacements = append(cv.Replacements, ReplacementOut{By: r.By, Message: r.Message, At: *l, Conflicting: rep.Conflicting[i]})
		}
		_, cv.Replaced = rep.QuietIn(c)
		v.Clusters = append(v.Clusters, cv)
	}
	var sh []string
	for _, f := range shared {
		if !inRendering[f] {
			sh = append(sh, f)
		}
	}
	v.Shared = SharedView{Target: target(nil), Files: uniqueSorted(sh)}
	return v
}

// instancePos is where an instance is written: its workload's kind, its command line, its
// installer setting, else its configuration.
func instancePos(in *checker.Instance) checker.Position {
	switch {
	case in.Workload != nil:
		p, _ := in.Workload.KindPos()
		return p
	case in.Program.IsValid():
		return in.Program
	case in.Installer != nil && in.Installer.Anchor.IsValid():
		return in.Installer.Anchor
	case in.Config != nil:
		p, _ := in.Config.KindPos()
		return p
	}
	return checker.Position{}
}

func uniqueSorted(s []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, x := range s {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	sort.Strings(out)
	return out
}
