package report

import (
	"bytes"
	"strconv"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/readiness"
)

// bigReadiness is a report of n scopes with many findings each, and markup in file names.
func bigReadiness(n int) *readiness.Report {
	rd := &readiness.Report{Versions: []string{"1.34", "1.40", "1.43"}}
	for i := range n {
		s := readiness.Scope{Dir: "clusters/c" + strconv.Itoa(i) + "/<b>", Status: readiness.StatusBreaks, BreaksAt: "1.40",
			Target: readiness.Target{Version: "1.34", Source: "kube-proxy image tag"}, Headline: "kube-proxy exits", NextStep: "pin iptables now",
			Timeline: []readiness.Cell{{Version: "1.34", State: "runs"}, {Version: "1.40", State: "exits", Blockers: 1}}}
		g := readiness.Group{Category: "scripts", Title: "Scripts"}
		for j := range 40 {
			g.Advisories = append(g.Advisories, readiness.Item{Rule: "KP401", Severity: "warning", Message: strings.Repeat("chain KUBE-SERVICES used ", 8),
				At: readiness.Location{File: "clusters/c" + strconv.Itoa(i) + "/script-" + strconv.Itoa(j) + ".sh", Line: j + 1, Column: 1}})
		}
		s.Groups = []readiness.Group{g}
		s.Advisories = 40
		rd.Scopes = append(rd.Scopes, s)
	}
	rd.Totals.Scopes = n
	return rd
}

// TestReadinessMarkdownFitsGitHub: however large the repository, the markdown report fits a
// GitHub comment and says what it left out.
func TestReadinessMarkdownFitsGitHub(t *testing.T) {
	for _, n := range []int{1, 30, 500} {
		var b bytes.Buffer
		f, _ := New("report-markdown", Options{LinkBase: "https://github.com/o/r/blob/abc/"})
		if err := f.Format(&b, &Result{Readiness: bigReadiness(n)}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if len([]rune(out)) > 65536 {
			t.Errorf("%d scopes: %d characters, over GitHub's 65,536", n, len([]rune(out)))
		}
		if n == 500 && !strings.Contains(out, "more scopes are not shown") {
			t.Errorf("%d scopes: no note about the scopes left out", n)
		}
		if n == 1 && (strings.Contains(out, "/<b>") || !strings.Contains(out, `/\<b\>`)) {
			t.Errorf("markup in a scope name is not escaped")
		}
	}
}

// TestReadinessFormatsNeedModel: without a model the report-* formats fail instead of
// writing an empty report.
func TestReadinessFormatsNeedModel(t *testing.T) {
	for _, name := range []string{"report-markdown", "report-html", "report-json"} {
		f, err := New(name, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Format(&bytes.Buffer{}, &Result{}); err == nil {
			t.Errorf("%s formatted a result without a readiness model", name)
		}
	}
}
