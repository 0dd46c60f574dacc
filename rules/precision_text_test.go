package rules_test

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestPrecisionText runs every rule over realistic look-alikes in scripts, units, Dockerfiles,
// Makefiles and templates (pasted terminal output, a shell variable named ipvs, kube-proxy's
// own loopback healthz and metrics addresses, interface exclusion lists, a standalone LVS
// setup, placeholders): none may produce a finding.
func TestPrecisionText(t *testing.T) {
	const dir = "../fixtures/precision/text"
	for _, r := range rules.All() {
		_, fs := checkertest.Findings(t, r, dir)
		for _, f := range fs {
			t.Errorf("%s: %s: %s: %s", r.ID, f.Pos, f.Severity, f.Message)
		}
	}
}
