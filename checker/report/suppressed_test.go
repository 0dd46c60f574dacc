package report

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// suppressedResult is testResult with one inline-suppressed finding, one excluded by config and
// a stale baseline note.
func suppressedResult(t *testing.T) *Result {
	r := testResult(t)
	f := r.Findings[0]
	at := checker.Position{Filename: f.Pos.Filename, Line: f.Pos.Line - 1, Column: 3}
	cfg := checker.Position{Filename: ".kube-proxy-lint.yaml", Line: 7, Column: 5}
	in, ex := f, f
	in.Message = "suppressed in source"
	in.Suppressions = []checker.Suppression{{Kind: checker.SuppressionInSource, Justification: "until the 1.40 upgrade", Pos: &at}}
	ex.Message = "excluded by config"
	ex.Suppressions = []checker.Suppression{{Kind: checker.SuppressionExternal, Justification: "legacy cluster", Pos: &cfg}}
	r.Suppressed = []checker.Finding{in, ex}
	r.Notes = []checker.Note{{Pos: &checker.Position{Filename: "gone.yaml"}, RuleID: f.RuleID, Message: "stale baseline entry"}}
	return r
}

func TestSuppressedJSON(t *testing.T) {
	var env struct {
		Findings   []json.RawMessage
		Suppressed []struct {
			Message      string
			Fingerprint  string
			Suppressions []checker.Suppression
		}
		Notes []checker.Note
	}
	out := format(t, "json", Options{}, suppressedResult(t))
	if err := json.Unmarshal(out, &env); err != nil {
		t.Fatal(err)
	}
	if len(env.Suppressed) != 2 || env.Suppressed[0].Fingerprint == "" ||
		env.Suppressed[0].Suppressions[0].Kind != "inSource" || env.Suppressed[1].Suppressions[0].Justification != "legacy cluster" {
		t.Errorf("suppressed = %+v", env.Suppressed)
	}
	if len(env.Notes) != 1 || env.Notes[0].Message != "stale baseline entry" {
		t.Errorf("notes = %+v", env.Notes)
	}
	if strings.Contains(string(format(t, "json", Options{}, testResult(t))), `"suppressed"`) {
		t.Error("a run without suppressions has a suppressed field")
	}
}

func TestSuppressedSARIF(t *testing.T) {
	r := suppressedResult(t)
	out := format(t, "sarif", Options{}, r)
	validateSARIF(t, out)
	var log struct {
		Runs []struct {
			Results []struct {
				Message      struct{ Text string }
				Suppressions []struct {
					Kind, Justification string
					Location            *struct{}
				}
			}
			Invocations []struct {
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
		}
	}
	if err := json.Unmarshal(out, &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	if n := len(run.Results); n != len(r.Findings)+2 {
		t.Fatalf("results = %d, want %d", n, len(r.Findings)+2)
	}
	var kinds []string
	for _, res := range run.Results {
		for _, s := range res.Suppressions {
			kinds = append(kinds, strings.Split(res.Message.Text, "; evidence: ")[0]+"/"+s.Kind+"/"+s.Justification)
			if s.Location == nil {
				t.Errorf("suppression of %q has no location", res.Message.Text)
			}
		}
	}
	want := "suppressed in source/inSource/until the 1.40 upgrade,excluded by config/external/legacy cluster"
	if strings.Join(kinds, ",") != want {
		t.Errorf("suppressions = %q, want %q", kinds, want)
	}
	found := false
	for _, n := range run.Invocations[0].ToolExecutionNotifications {
		found = found || (n.Level == "note" && n.Message.Text == "stale baseline entry")
	}
	if !found {
		t.Errorf("no note for the stale baseline entry: %+v", run.Invocations)
	}
}

func TestSuppressedNotInText(t *testing.T) {
	out := string(format(t, "text", Options{}, suppressedResult(t)))
	if strings.Contains(out, "suppressed in source") || strings.Contains(out, "excluded by config") {
		t.Errorf("text output shows suppressed findings:\n%s", out)
	}
}

// TestHiddenCounts: the text summary says what suppressions, exclusions, the quiet where
// kube-proxy is replaced and the baseline hid, and JSON counts the baseline's; a run that hid
// nothing keeps its summary.
func TestHiddenCounts(t *testing.T) {
	r := suppressedResult(t)
	r.Baselined = 5
	if got := HiddenCounts(r); got != ", 1 suppressed, 1 excluded, 5 in the baseline" {
		t.Errorf("HiddenCounts = %q", got)
	}
	if out := string(format(t, "text", Options{}, r)); !strings.Contains(out, "), 1 suppressed, 1 excluded, 5 in the baseline · targets by cluster:") {
		t.Errorf("text summary:\n%s", out)
	}
	if out := string(format(t, "json", Options{}, r)); !strings.Contains(out, `"baselined": 5`) {
		t.Errorf("JSON lacks the baseline count:\n%s", out)
	}
	if got := HiddenCounts(testResult(t)); got != "" {
		t.Errorf("nothing hidden: HiddenCounts = %q", got)
	}
	// A kube-proxy rule's finding quiet where kube-proxy is replaced is not a configuration's
	// exclusion (no configuration was read).
	q := r.Suppressed[1]
	q.Suppressions = []checker.Suppression{{Kind: checker.SuppressionExternal, Justification: checker.ReplacedJustification + "Cilium replaces it (KP601)"}}
	r.Suppressed = append(r.Suppressed, q)
	if got := HiddenCounts(r); got != ", 1 suppressed, 1 excluded, 1 quiet where kube-proxy is replaced, 5 in the baseline" {
		t.Errorf("with a quiet finding: HiddenCounts = %q", got)
	}
}
