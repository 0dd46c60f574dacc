package report

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

var (
	schemaOnce sync.Once
	schema     *jsonschema.Schema
	schemaErr  error
)

// sarifValidator compiles the official OASIS SARIF 2.1.0 schema (errata 01) kept in
// fixtures/report, with format assertions on: GitHub's upload turns "uri" and "uri-reference"
// format failures into warnings, so they must not happen either.
func sarifValidator(t testing.TB) *jsonschema.Schema {
	t.Helper()
	schemaOnce.Do(func() {
		text, err := os.ReadFile(filepath.Join(fixtureDir, "sarif-schema-2.1.0.json"))
		if err != nil {
			schemaErr = err
			return
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if schemaErr = c.AddResource(sarifSchema, doc); schemaErr != nil {
			return
		}
		schema, schemaErr = c.Compile(sarifSchema)
	})
	if schemaErr != nil {
		t.Fatalf("load SARIF schema: %v", schemaErr)
	}
	return schema
}

func validateSARIF(t testing.TB, out []byte) {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err != nil {
		t.Fatalf("SARIF output is not JSON: %v", err)
	}
	if err := sarifValidator(t).Validate(inst); err != nil {
		t.Errorf("SARIF output does not match the SARIF 2.1.0 schema: %v\n%s", err, out)
	}
}

// sarifVariants are Results that reach the corners of the SARIF formatter.
func sarifVariants(t *testing.T) map[string]*Result {
	full := testResult(t)

	empty := testResult(t)
	empty.Findings, empty.Problems = nil, nil

	bare := &Result{Target: checker.Target{Version: checker.DefaultTarget, Source: "default"}}

	odd := testResult(t)
	odd.SourceRoot = ""
	odd.Source = nil
	outside := checker.Position{Filename: "/etc/kubernetes/manifests/kube-proxy.yaml", Offset: 10, Line: 2, Column: 3}
	inside := checker.Position{Filename: "/home/ci/src/cluster config/a:b/c#d?.yaml", Line: 1, Column: 1}
	odd.SourceRoot = "/home/ci/src/cluster config"
	edit := checker.TextEdit{
		Pos:     checker.Position{Filename: "deploy/x.yaml", Offset: 4},
		End:     checker.Position{Filename: "deploy/x.yaml", Offset: 9},
		NewText: "nftables",
	}
	odd.Findings = append(odd.Findings,
		checker.Finding{RuleID: "KP900", RuleName: "suppression-invalid", Severity: checker.SeverityWarning,
			Message: "suppression names unknown rule KP999", Pos: outside, End: outside,
			Fixes: []checker.Fix{{Message: "same", Edits: []checker.TextEdit{edit}}, {Message: "same", Edits: []checker.TextEdit{edit}}}},
		checker.Finding{RuleID: "KP102", RuleName: "mode-ipvs", Severity: checker.SeverityError,
			Message: "mode ipvs", Pos: inside, End: checker.Position{Filename: "elsewhere.yaml", Line: 9, Column: 9},
			Related: []checker.Related{{Pos: checker.Position{Filename: "x.yaml"}}, {Message: "no place"}}},
		checker.Finding{Severity: checker.SeverityNone, Message: "no rule at all"},
		checker.Finding{RuleID: "KP201", RuleName: "flag-ignored-by-config", Severity: checker.SeverityWarning,
			Message: "above the root", Pos: checker.Position{Filename: "../outside.yaml", Line: 3, Column: 1}},
		checker.Finding{RuleID: "KP102", RuleName: "mode-ipvs", Severity: checker.SeverityError, Internal: true,
			Message: "rule KP102 panicked: runtime error", Pos: checker.Position{Filename: "deploy/x.yaml", Line: 1, Column: 1}},
	)
	return map[string]*Result{"full": full, "empty": empty, "bare": bare, "odd": odd}
}

func TestSARIFMatchesSchema(t *testing.T) {
	for name, r := range sarifVariants(t) {
		t.Run(name, func(t *testing.T) {
			validateSARIF(t, format(t, "sarif", Options{}, r))
		})
	}
}

// TestSARIFSchemaRejects makes sure the validator is really checking: broken logs must fail.
func TestSARIFSchemaRejects(t *testing.T) {
	good := string(format(t, "sarif", Options{}, testResult(t)))
	for _, tc := range []struct{ name, old, new string }{
		{"level", `"level": "error"`, `"level": "fatal"`},
		{"startLine", `"startLine": 12`, `"startLine": 0`},
		{"uri format", `"uri": "clusters/z%C3%BCrich/kube-proxy.yaml"`, `"uri": "clusters/z%ZZrich/kube-proxy.yaml"`},
		{"version", `"version": "2.1.0"`, `"version": "2.2"`},
	} {
		bad := strings.Replace(good, tc.old, tc.new, 1)
		if bad == good {
			t.Fatalf("%s: %q not in output", tc.name, tc.old)
		}
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(bad))
		if err != nil {
			t.Fatal(err)
		}
		if sarifValidator(t).Validate(inst) == nil {
			t.Errorf("%s: the schema accepted a broken log", tc.name)
		}
	}
}

// TestSARIFConventions checks what the schema cannot: GitHub's expectations and ours.
func TestSARIFConventions(t *testing.T) {
	for name, r := range sarifVariants(t) {
		t.Run(name, func(t *testing.T) {
			var log map[string]any
			if err := json.Unmarshal(format(t, "sarif", Options{}, r), &log); err != nil {
				t.Fatal(err)
			}
			walkJSON(t, "", log)
			run := log["runs"].([]any)[0].(map[string]any)
			if run["columnKind"] != "unicodeCodePoints" {
				t.Errorf("columnKind = %v", run["columnKind"])
			}
			if _, ok := run["results"].([]any); !ok {
				t.Errorf("run.results missing: SARIF needs it, even empty, for a real scan")
			}
			driver := run["tool"].(map[string]any)["driver"].(map[string]any)
			rules, _ := driver["rules"].([]any)
			for i, res := range run["results"].([]any) {
				res := res.(map[string]any)
				if id, ok := res["ruleId"]; ok {
					idx, ok := res["ruleIndex"].(float64)
					if !ok || int(idx) >= len(rules) || rules[int(idx)].(map[string]any)["id"] != id {
						t.Errorf("result %d: ruleIndex %v does not point at rule %v", i, res["ruleIndex"], id)
					}
				}
				fp := res["partialFingerprints"].(map[string]any)
				if fp[FingerprintKey] == nil {
					t.Errorf("result %d: no %s", i, FingerprintKey)
				}
			}
			for _, rule := range rules {
				props := rule.(map[string]any)["properties"].(map[string]any)
				if tags := props["tags"].([]any); len(tags) > maxTags {
					t.Errorf("rule %v: %d tags, GitHub takes %d", rule.(map[string]any)["id"], len(tags), maxTags)
				}
			}
		})
	}
}

// walkJSON rejects what the formatter promises never to write: empty arrays and objects (but
// run.results), negative numbers such as "index": -1, empty strings, and URIs with backslashes
// or, when relative to a base, a leading slash.
func walkJSON(t *testing.T, path string, v any) {
	t.Helper()
	switch v := v.(type) {
	case map[string]any:
		if len(v) == 0 {
			t.Errorf("%s: empty object", path)
		}
		if uri, ok := v["uri"].(string); ok {
			if strings.Contains(uri, `\`) {
				t.Errorf("%s: backslash in uri %q", path, uri)
			}
			if _, based := v["uriBaseId"]; based && strings.HasPrefix(uri, "/") {
				t.Errorf("%s: uri %q relative to a base starts with /", path, uri)
			}
		}
		for k, e := range v {
			walkJSON(t, path+"."+k, e)
		}
	case []any:
		if len(v) == 0 && !strings.HasSuffix(path, ".results") {
			t.Errorf("%s: empty array", path)
		}
		for _, e := range v {
			walkJSON(t, path+"[]", e)
		}
	case float64:
		if v < 0 {
			t.Errorf("%s: negative number %v", path, v)
		}
	case string:
		if v == "" {
			t.Errorf("%s: empty string", path)
		}
	}
}

func TestSARIFDetails(t *testing.T) {
	r := sarifVariants(t)["odd"]
	var log sarifLog
	if err := json.Unmarshal(format(t, "sarif", Options{}, r), &log); err != nil {
		t.Fatal(err)
	}
	run := log.Runs[0]
	results := map[string]sarifResult{}
	for _, res := range run.Results.Items {
		// The message is the finding's, then the links to its related locations.
		msg, _, _ := strings.Cut(res.Message.Text, "; evidence: ")
		results[msg] = res
	}

	res := results["suppression names unknown rule KP999"]
	if res.RuleID != "KP900" || res.RuleIndex == nil || run.Tool.Driver.Rules[*res.RuleIndex].ID != "KP900" {
		t.Errorf("unlisted rule KP900 has no descriptor: %+v", res)
	}
	if got := res.Locations[0].PhysicalLocation.ArtifactLocation; got.URI != "file:///etc/kubernetes/manifests/kube-proxy.yaml" || got.URIBaseID != "" {
		t.Errorf("absolute path outside the root: %+v", got)
	}
	if len(res.Fixes) != 1 {
		t.Errorf("duplicate fixes kept: %d", len(res.Fixes))
	} else if reg := res.Fixes[0].ArtifactChanges[0].Replacements[0].DeletedRegion; reg.ByteOffset == nil || *reg.ByteOffset != 4 || *reg.ByteLength != 5 {
		t.Errorf("edit without lines and without source: region %+v", reg)
	}

	res = results["mode ipvs"]
	if got := res.Locations[0].PhysicalLocation.ArtifactLocation.URI; got != "a%3Ab/c%23d%3F.yaml" {
		t.Errorf("escaped uri = %q", got)
	}
	if reg := res.Locations[0].PhysicalLocation.Region; reg.EndLine != 1 || reg.EndColumn != 1 {
		t.Errorf("end in another file not clamped to start: %+v", reg)
	}
	if _, ok := res.PartialFingerprints[LineHashKey]; ok {
		t.Errorf("line hash without source")
	}

	res = results["above the root"]
	if got := res.Locations[0].PhysicalLocation.ArtifactLocation; got.URI != "file:///home/ci/src/outside.yaml" || got.URIBaseID != "" {
		t.Errorf("relative path above the root: %+v", got)
	}

	if _, ok := results["rule KP102 panicked: runtime error"]; ok {
		t.Errorf("an internal finding became a result")
	}
	var found bool
	for _, n := range run.Invocations[0].ToolExecutionNotifications {
		if n.Message.Text == "rule KP102 panicked: runtime error" {
			found = true
			if n.Level != "error" || n.AssociatedRule == nil || n.AssociatedRule.ID != "KP102" ||
				n.AssociatedRule.Index == nil || run.Tool.Driver.Rules[*n.AssociatedRule.Index].ID != "KP102" {
				t.Errorf("internal finding notification: %+v", n)
			}
		}
	}
	if !found {
		t.Errorf("internal finding not reported as a notification")
	}
}

func TestEscapeURIPath(t *testing.T) {
	for in, want := range map[string]string{
		"deploy/kube-proxy.yaml":      "deploy/kube-proxy.yaml",
		"clusters/zürich/a b.yaml":    "clusters/z%C3%BCrich/a%20b.yaml",
		"a:b/c%d#e?f[g].yaml":         "a%3Ab/c%25d%23e%3Ff%5Bg%5D.yaml",
		"~user/x_y-z.(1)+@2;=$&!*'.y": "~user/x_y-z.(1)+@2;=$&!*'.y",
	} {
		if got := escapeURIPath(in, false); got != want {
			t.Errorf("escapeURIPath(%q) = %q, want %q", in, got, want)
		}
	}
	if got := fileURI(`/C:/work/repo`, true); got != "file:///C:/work/repo/" {
		t.Errorf("fileURI = %q", got)
	}
}

// TestSARIFRelatedLinks: GitHub code scanning shows related locations only when the result
// message links them by id, so every related location is linked from the message, with
// literal brackets escaped.
func TestSARIFRelatedLinks(t *testing.T) {
	f := checker.Finding{
		RuleID: "KP201", Message: "kube-proxy ignores --proxy-mode=iptables; nodePortAddresses: [primary]",
		Pos: checker.Position{Filename: "ds.yaml", Line: 3, Column: 5},
		Related: []checker.Related{
			{Pos: checker.Position{Filename: "cm.yaml", Line: 9, Column: 5}, Message: "the config file sets mode ipvs"},
			{Pos: checker.Position{Filename: "ds.yaml", Line: 20, Column: 9}, Message: "volume [kube-proxy] is ConfigMap kube-proxy"},
		},
	}
	got := resultMessage(&f)
	want := `kube-proxy ignores --proxy-mode=iptables; nodePortAddresses: \[primary\]; evidence: [the config file sets mode ipvs](1); [volume \[kube-proxy\] is ConfigMap kube-proxy](2)`
	if got != want {
		t.Errorf("message:\n%s\nwant\n%s", got, want)
	}
	r := &Result{Findings: []checker.Finding{f}}
	var log sarifLog
	if err := json.Unmarshal(format(t, "sarif", Options{}, r), &log); err != nil {
		t.Fatal(err)
	}
	res := log.Runs[0].Results.Items[0]
	if res.Message.Text != want || len(res.RelatedLocations) != 2 || res.RelatedLocations[1].ID != 2 {
		t.Errorf("result: %+v", res)
	}
	if g := resultMessage(&checker.Finding{Message: `a \[x]`}); g != `a \\\[x\]` {
		t.Errorf("backslash before a bracket: %q", g)
	}
}
