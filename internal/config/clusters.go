package config

import (
	"path"
	"path/filepath"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/cluster"
)

// maxClusterName bounds a declared cluster's name: it heads output sections and findings.
const maxClusterName = 200

// clusters parses the clusters key: a list of entries with a unique name, a list of path
// globs and an optional version. Errors point at the entry, the key or the value, and never
// quote the file's content.
func (p *parser) clusters(v *yaml.Node) []Cluster {
	if v.Kind != yaml.SequenceNode {
		p.fail(v, "clusters must be a list of clusters (name, paths, version), not %s", kindName(v))
		return nil
	}
	var out []Cluster
	names := map[string]checker.Position{}
	for _, item := range v.Content {
		if item.Kind != yaml.MappingNode {
			p.fail(item, "a cluster must be a mapping with name, paths and version, not %s", kindName(item))
			continue
		}
		c := Cluster{Pos: p.pos(item)}
		hasName, hasPaths := false, false
		p.mapping(item, clusterKeys, func(key string, _, cv *yaml.Node) {
			switch key {
			case "name":
				hasName = true
				c.Name = p.str(cv)
				if cv.Kind != yaml.ScalarNode || cv.Tag == "!!null" {
					return
				}
				switch {
				case strings.TrimSpace(c.Name) == "":
					p.fail(cv, "a cluster name must not be empty")
				case len(c.Name) > maxClusterName:
					p.fail(cv, "a cluster name must be at most %d bytes", maxClusterName)
				case strings.IndexFunc(c.Name, func(r rune) bool { return unicode.IsControl(r) || r == unicode.ReplacementChar }) >= 0:
					p.fail(cv, "a cluster name must not hold control characters")
				default:
					if prev, dup := names[c.Name]; dup {
						p.fail(cv, "duplicate cluster name (first declared at %s)", prev)
					} else {
						names[c.Name] = p.pos(cv)
					}
				}
			case "paths":
				hasPaths = true
				c.Paths = p.strList(cv)
				for i, g := range c.Paths {
					n := cv
					if cv.Kind == yaml.SequenceNode {
						n = cv.Content[i]
					}
					c.PathPos = append(c.PathPos, p.pos(n))
					if g == "" {
						p.fail(n, "empty path glob")
						continue
					}
					if !localPath(strings.TrimPrefix(g, "/")) && strings.TrimPrefix(g, "/") != "" {
						p.fail(n, "a cluster path must be a relative glob inside the repository")
						continue
					}
					p.checkGlob(n, g)
				}
				if len(c.Paths) == 0 && cv.Kind == yaml.SequenceNode {
					p.fail(cv, "a cluster needs at least one path glob")
				}
			case "version":
				c.Version = p.str(cv)
				c.VersionPos = p.pos(cv)
				if cv.Kind == yaml.ScalarNode && cv.Tag != "!!null" {
					if _, err := checker.ParseVersion(c.Version); err != nil {
						p.fail(cv, "invalid cluster version (want a Kubernetes version such as 1.34 or v1.34.2)")
					}
				}
			}
		})
		if !hasName {
			p.fail(item, "a cluster needs a name")
		}
		if !hasPaths {
			p.fail(item, "a cluster needs paths: the globs of its files")
		}
		out = append(out, c)
	}
	return out
}

// DeclaredClusters returns the clusters of the file for the loader, with their globs made
// relative to root (the directory the loader's names are relative to). A cluster glob is
// anchored at the configuration file's directory (a leading "/" changes nothing): "*", "?"
// and "[...]" match within one path element, "**" any number of elements, and a glob that
// names a directory covers every file below it.
func (c *Config) DeclaredClusters(root string) []cluster.Declared {
	if c == nil || len(c.Clusters) == 0 {
		return nil
	}
	prefix, down := c.prefix(root), c.below(root)
	out := make([]cluster.Declared, 0, len(c.Clusters))
	for _, e := range c.Clusters {
		d := cluster.Declared{Name: e.Name, Pos: e.Pos, PathPos: e.PathPos}
		for _, g := range e.Paths {
			if down != "" {
				d.Paths = append(d.Paths, globBelow(g, down))
			} else {
				d.Paths = append(d.Paths, clusterGlob(prefix, g))
			}
		}
		if e.Version != "" {
			if v, err := checker.ParseVersion(e.Version); err == nil {
				pos := e.VersionPos
				d.Version, d.VersionPos = &v, &pos
			}
		}
		out = append(out, d)
	}
	return out
}

// clusterGlob rebases a cluster glob, written relative to the directory prefix, to the root.
func clusterGlob(prefix, g string) string {
	g = strings.TrimPrefix(strings.TrimPrefix(g, "/"), "./")
	g = strings.TrimSuffix(g, "/")
	if g == "" || g == "." {
		g = "**"
	}
	if prefix == "" {
		return g
	}
	return prefix + "/" + g
}

// below returns where root lies below the file's directory (slash-separated), "" when it
// does not (no repository above the linted path and a file further up named by --config).
func (c *Config) below(root string) string {
	if c.Path == "" || root == "" {
		return ""
	}
	return relBelow(filepath.Dir(c.Path), root)
}

// neverMatches is a glob no path matches (no file name holds a NUL byte).
const neverMatches = "\x00"

// globBelow rebases cluster glob g, relative to a directory, to its subdirectory down: the
// part of g that names down is consumed ("clusters/a/**" below clusters/a is "**"; a glob
// naming down or a directory above it is "**"); a glob that names no path under down never
// matches.
func globBelow(g, down string) string {
	gs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(g, "/"), "./"), "/"), "/")
	ds := strings.Split(down, "/")
	for i, d := range ds {
		if i == len(gs) || gs[i] == "**" {
			return "**"
		}
		if ok, err := path.Match(gs[i], d); err != nil || !ok {
			return neverMatches
		}
	}
	if len(gs) == len(ds) {
		return "**"
	}
	return strings.Join(gs[len(ds):], "/")
}
