package rules_test

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/checkertest"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// TestPrecisionTemplates runs every Go rule over templated look-alikes of real charts, roles
// and scripts (fixtures/precision/templates): placeholders in flags and fields, Kubernetes
// $(VAR) expansions, shell variables in unquoted heredocs, ranges over extra args and
// whole-body placeholders. A placeholder is unknown, never invalid and never unset, so none
// may produce a finding.
func TestPrecisionTemplates(t *testing.T) {
	const dir = "../fixtures/precision/templates"
	for _, r := range rules.All() {
		_, fs := checkertest.Findings(t, r, dir)
		for _, f := range fs {
			t.Errorf("%s: %s: %s: %s", r.ID, f.Pos, f.Severity, f.Message)
		}
	}
}
