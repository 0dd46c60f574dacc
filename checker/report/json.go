package report

import (
	"io"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// JSONVersion is the version of the JSON envelope. It changes only when a field is removed or
// changes meaning; new fields may appear within a version.
const JSONVersion = 1

// jsonFormatter writes the "json" format described in the package documentation.
type jsonFormatter struct{}

type jsonEnvelope struct {
	Version int      `json:"version"`
	Tool    jsonTool `json:"tool"`
	// Target is the repository's target; Targets the target of each scope, and each finding
	// carries its own.
	Target   jsonTarget             `json:"target"`
	Targets  []jsonTarget           `json:"targets,omitempty"`
	Rules    []jsonRule             `json:"rules"`
	Findings jsonArray[jsonFinding] `json:"findings"`
	Problems []jsonProblem          `json:"problems"`
	// Suppressed and Notes are omitted when empty, so runs without suppressions or a
	// baseline print the same envelope as before they existed.
	Suppressed []jsonFinding  `json:"suppressed,omitempty"`
	Notes      []checker.Note `json:"notes,omitempty"`
	// Baselined counts the findings the baseline hid; omitted when none.
	Baselined int `json:"baselined,omitempty"`
}

type jsonTool struct {
	Name    string `json:"name"`
	Version string `json:"version,omitempty"`
}

type jsonTarget struct {
	// Scope is the cluster's name ("" for the shared files); absent in the envelope's
	// target.
	Scope   *string           `json:"scope,omitempty"`
	Version string            `json:"version"`
	Source  string            `json:"source,omitempty"`
	Pos     *checker.Position `json:"pos,omitempty"`
}

func jsonTargetOf(t checker.Target, scoped bool) jsonTarget {
	j := jsonTarget{Version: t.Version.String(), Source: t.Source, Pos: t.Pos}
	if scoped {
		s := t.Scope
		j.Scope = &s
	}
	return j
}

type jsonRule struct {
	ID       string           `json:"id"`
	Name     string           `json:"name"`
	Severity checker.Severity `json:"severity"`
	Title    string           `json:"title,omitempty"`
	URL      string           `json:"url,omitempty"`
}

type jsonFinding struct {
	checker.Finding
	// Cluster names the finding's cluster (checker.Cluster.Name), "" for a shared file.
	Cluster string `json:"cluster"`
	// Target is the version the finding was checked at: its cluster's.
	Target      *jsonTarget `json:"target,omitempty"`
	Fingerprint string      `json:"fingerprint"`
}

func jsonFindingOf(f *checker.Finding) jsonFinding {
	j := jsonFinding{Finding: *f, Fingerprint: f.Fingerprint(), Cluster: f.Cluster}
	if f.Target != nil {
		t := jsonTargetOf(*f.Target, true)
		j.Target = &t
	}
	return j
}

type jsonProblem struct {
	Pos      checker.Position `json:"pos"`
	Message  string           `json:"message"`
	Manifest bool             `json:"manifest"`
}

// Format writes the envelope.
func (jsonFormatter) Format(w io.Writer, r *Result) error {
	env := jsonEnvelope{
		Version:  JSONVersion,
		Tool:     jsonTool{Name: ToolName, Version: r.ToolVersion},
		Target:   jsonTargetOf(r.Target, false),
		Rules:    make([]jsonRule, 0, len(r.Rules)),
		Findings: jsonArray[jsonFinding]{Items: make([]jsonFinding, 0, len(r.Findings))},
		Problems: make([]jsonProblem, 0, len(r.Problems)),
	}
	for _, rule := range r.Rules {
		if rule == nil {
			continue
		}
		env.Rules = append(env.Rules, jsonRule{
			ID: rule.ID, Name: rule.Name, Severity: rule.Severity, Title: rule.Doc.Title, URL: rule.URL(),
		})
	}
	for _, t := range r.Targets {
		env.Targets = append(env.Targets, jsonTargetOf(t, true))
	}
	for i := range r.Findings {
		env.Findings.Items = append(env.Findings.Items, jsonFindingOf(&r.Findings[i]))
	}
	for _, p := range r.Problems {
		env.Problems = append(env.Problems, jsonProblem{Pos: p.Pos, Message: p.Message, Manifest: p.Manifest})
	}
	for i := range r.Suppressed {
		env.Suppressed = append(env.Suppressed, jsonFindingOf(&r.Suppressed[i]))
	}
	env.Notes = r.Notes
	env.Baselined = r.Baselined
	return writeJSON(w, env)
}
