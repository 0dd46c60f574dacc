package report

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Renamed returns a copy of r in which every file name (of findings, their notes and fixes,
// suppressed findings, problems, notes and the target's evidence) is rename(name), and whose
// Source still finds the files by their new names. The CLI uses it to show names relative to
// the current directory in the formats read in a terminal (text, github, checkstyle), as
// compilers do, while the machine formats keep names relative to the repository root.
func (r *Result) Renamed(rename func(string) string) *Result {
	out := *r
	back := map[string]string{}
	name := func(n string) string {
		if n == "" {
			return n
		}
		m := rename(n)
		back[m] = n
		return m
	}
	pos := func(p checker.Position) checker.Position {
		p.Filename = name(p.Filename)
		return p
	}
	// target renames the evidence of a target; its source names the file in its words:
	// "kubeadm kubernetesVersion at a.yaml:3:20".
	target := func(t checker.Target) checker.Target {
		if t.Pos != nil && t.Pos.Filename != "" {
			p := pos(*t.Pos)
			t.Source = strings.ReplaceAll(t.Source, t.Pos.Filename+":", p.Filename+":")
			t.Pos = &p
		}
		return t
	}
	findings := func(fs []checker.Finding) []checker.Finding {
		if fs == nil {
			return nil
		}
		out := make([]checker.Finding, len(fs))
		for i, f := range fs {
			f.Pos, f.End = pos(f.Pos), pos(f.End)
			if f.Target != nil {
				t := target(*f.Target)
				f.Target = &t
			}
			if f.Related != nil {
				rel := make([]checker.Related, len(f.Related))
				for j, x := range f.Related {
					x.Pos, x.End = pos(x.Pos), pos(x.End)
					rel[j] = x
				}
				f.Related = rel
			}
			if f.Fixes != nil {
				fixes := make([]checker.Fix, len(f.Fixes))
				for j, fx := range f.Fixes {
					edits := make([]checker.TextEdit, len(fx.Edits))
					for k, e := range fx.Edits {
						e.Pos, e.End = pos(e.Pos), pos(e.End)
						edits[k] = e
					}
					fx.Edits = edits
					fixes[j] = fx
				}
				f.Fixes = fixes
			}
			out[i] = f
		}
		return out
	}
	out.Findings = findings(r.Findings)
	out.Suppressed = findings(r.Suppressed)
	if r.Problems != nil {
		out.Problems = make([]checker.LoadProblem, len(r.Problems))
		for i, p := range r.Problems {
			p.Pos = pos(p.Pos)
			out.Problems[i] = p
		}
	}
	if r.Notes != nil {
		out.Notes = make([]checker.Note, len(r.Notes))
		for i, n := range r.Notes {
			if n.Pos != nil {
				p := pos(*n.Pos)
				n.Pos = &p
			}
			out.Notes[i] = n
		}
	}
	out.Target = target(r.Target)
	if r.Targets != nil {
		out.Targets = make([]checker.Target, len(r.Targets))
		for i, t := range r.Targets {
			out.Targets[i] = target(t)
		}
	}
	if src := r.Source; src != nil {
		out.Source = func(n string) []byte {
			if orig, ok := back[n]; ok {
				return src(orig)
			}
			return src(n)
		}
	}
	return &out
}
