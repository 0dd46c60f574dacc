package report

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// codeclimateFormatter writes the Code Climate issue format as GitLab reads it for its Code
// Quality report (artifacts:reports:codequality): a JSON array of issues. GitLab needs
// description, check_name, fingerprint, severity and location.path with a begin line; it
// compares the fingerprints of the base and the merge request to show new and fixed issues.
type codeclimateFormatter struct{}

type ccIssue struct {
	Type        string      `json:"type"`
	CheckName   string      `json:"check_name"`
	Description string      `json:"description"`
	Categories  []string    `json:"categories"`
	Severity    string      `json:"severity"`
	Fingerprint string      `json:"fingerprint"`
	Location    ccLocation  `json:"location"`
	Content     *ccContent  `json:"content,omitempty"`
	Other       []ccRelated `json:"other_locations,omitempty"`
}

type ccLocation struct {
	Path      string       `json:"path"`
	Positions *ccPositions `json:"positions,omitempty"`
	Lines     *ccLines     `json:"lines,omitempty"`
}

type ccPositions struct {
	Begin ccPosition `json:"begin"`
	End   ccPosition `json:"end"`
}

type ccPosition struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

type ccLines struct {
	Begin int `json:"begin"`
	End   int `json:"end"`
}

type ccContent struct {
	Body string `json:"body"`
}

// ccRelated is a Code Climate other location: the evidence in other files.
type ccRelated = ccLocation

// Format writes one issue per finding. Findings of broken rules are left out: they are faults
// of the tool, not of the code (the exit code reports them). The fingerprint is the finding's
// position-independent one, made unique when two findings share it, so that GitLab neither
// merges nor flaps them.
func (codeclimateFormatter) Format(w io.Writer, r *Result) error {
	rules := newRuleTable(r)
	issues := []ccIssue{}
	seen := map[string]int{}
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Internal {
			continue
		}
		fp := f.Fingerprint()
		if n := seen[fp]; n > 0 {
			sum := sha256.Sum256([]byte(fp + "#" + strconv.Itoa(n)))
			seen[fp]++
			fp = hex.EncodeToString(sum[:16])
		} else {
			seen[fp] = 1
		}
		is := ccIssue{
			Type: "issue", CheckName: f.RuleID, Description: f.Message + " (" + f.RuleID + " " + f.RuleName + ")",
			Categories: []string{"Bug Risk"}, Severity: codeclimateSeverity(f.Severity), Fingerprint: fp,
			Location: ccLocationOf(f.Pos, f.End),
		}
		if j, ok := rules.index[f.RuleID]; ok {
			if u := rules.rules[j].URL(); u != "" {
				is.Content = &ccContent{Body: rules.rules[j].Doc.Title + "\n\n" + u}
			}
		}
		for _, rel := range f.Related {
			if rel.Pos.Filename != "" {
				is.Other = append(is.Other, ccLocationOf(rel.Pos, rel.End))
			}
		}
		issues = append(issues, is)
	}
	return writeJSON(w, jsonArray[ccIssue]{Items: issues})
}

// ccLocationOf is a span: positions with columns when it has a line, else line 1 of the file
// (GitLab needs a line).
func ccLocationOf(pos, end checker.Position) ccLocation {
	if !pos.IsValid() {
		return ccLocation{Path: pos.Filename, Lines: &ccLines{Begin: 1, End: 1}}
	}
	e := span(pos, end)
	return ccLocation{Path: pos.Filename, Positions: &ccPositions{
		Begin: ccPosition{Line: pos.Line, Column: max(pos.Column, 1)},
		End:   ccPosition{Line: e.Line, Column: max(e.Column, 1)},
	}}
}

// codeclimateSeverity maps to GitLab's scale: info, minor, major, critical, blocker. An error
// means kube-proxy fails or misroutes at the target: critical.
func codeclimateSeverity(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return "critical"
	case checker.SeverityWarning:
		return "major"
	default:
		return "info"
	}
}
