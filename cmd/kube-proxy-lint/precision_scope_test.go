package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrecisionScopes runs the whole pipeline (Go and Rego rules, the quiet step) over the
// trees of fixtures/precision where a version or a piece of evidence must stay in its scope
// (issue 9, items 4 and 5): nothing may be reported but KP601's note at a replacement that
// nothing conflicts with, and each scope must be checked at its own version.
func TestPrecisionScopes(t *testing.T) {
	for _, tc := range []struct {
		dir string
		// targets maps a scope (below the fixture) to the version it must be checked at.
		targets map[string]string
		// notes are the KP601 infos expected, by file below the fixture.
		notes []string
	}{
		{dir: "target-clusters", targets: map[string]string{"clusters/legacy": "1.37", "clusters/current": "1.41"}},
		// The kube-proxy in deploy/ is the one cluster outside test data and examples:
		// its root is the linted directory.
		{dir: "target-test-data", targets: map[string]string{"fixtures/precision/target-test-data": "1.37", "test/e2e": "1.41", "examples": "1.42"}},
		{dir: "evidence-scopes", notes: []string{"manifests/installation.yaml"}},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("..", "..", "fixtures", "precision", tc.dir)
			r := runCLI(t, "", "--no-config", "--quiet", "--format", "json", dir)
			if r.code != exitOK {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			var rep struct {
				Targets []struct {
					Scope   *string
					Version string
					Source  string
				}
				Findings []struct {
					RuleID, Message, Severity string
					Pos                       struct{ File string }
				}
			}
			if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
				t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
			}
			prefix := "fixtures/precision/" + tc.dir + "/"
			var notes []string
			for _, f := range rep.Findings {
				if f.RuleID == "KP601" && f.Severity == "info" {
					notes = append(notes, strings.TrimPrefix(f.Pos.File, prefix))
					continue
				}
				t.Errorf("%s: unexpected %s %s: %s", f.Pos.File, f.RuleID, f.Severity, f.Message)
			}
			if strings.Join(notes, ",") != strings.Join(tc.notes, ",") {
				t.Errorf("KP601 notes at %v, want %v", notes, tc.notes)
			}
			got := map[string]string{}
			for _, tg := range rep.Targets {
				if tg.Scope == nil {
					t.Fatalf("target without a scope: %+v", tg)
				}
				got[strings.TrimPrefix(*tg.Scope, prefix)] += tg.Version
			}
			for scope, v := range tc.targets {
				if got[scope] != v {
					t.Errorf("scope %s checked at %q, want %s (targets %v)", scope, got[scope], v, got)
				}
			}
		})
	}
}
