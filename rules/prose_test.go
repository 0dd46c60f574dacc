package rules

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestProseFiles: every Go rule takes its Why and Remediation from the Markdown file beside
// it, named like its Go file, and every such file belongs to a rule.
func TestProseFiles(t *testing.T) {
	goRules := map[string]bool{}
	files, err := filepath.Glob("kp[0-9][0-9][0-9]_*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(src), "= &checker.Rule{") {
			continue // a part of a rule (kp501_jsonnet.go)
		}
		md := strings.TrimSuffix(f, ".go") + ".md"
		goRules[md] = true
		if !strings.Contains(string(src), `withProse("`+md+`", checker.Doc{`) {
			t.Errorf("%s does not take its prose from %s", f, md)
		}
		if strings.Contains(string(src), "\t\tWhy:") || strings.Contains(string(src), "\t\tRemediation:") {
			t.Errorf("%s still writes Why or Remediation in Go", f)
		}
	}
	embedded, err := fs.Glob(proseFiles, "*.md")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(embedded)
	for _, md := range embedded {
		if !goRules[md] {
			t.Errorf("%s belongs to no rule file", md)
		}
		if _, _, err := readProse(md); err != nil {
			t.Error(err)
		}
	}
	if len(embedded) != len(goRules) {
		t.Errorf("%d prose files for %d rules", len(embedded), len(goRules))
	}
	for _, r := range All() {
		if r.Doc.Why == "" || r.Doc.Remediation == "" {
			t.Errorf("%s has no prose", r.ID)
		}
	}
}

func TestParseProse(t *testing.T) {
	why, rem, err := parseProse("<!-- c -->\n\n## Why\n\nBecause `x`.\n\n### Detail\n\nmore\n\n## Remediation\n\nDo `y`.\n")
	if err != nil || why != "Because `x`.\n\n### Detail\n\nmore" || rem != "Do `y`." {
		t.Errorf("parseProse = %q, %q, %v", why, rem, err)
	}
	for _, bad := range []string{
		"", "## Remediation\n\nx\n\n## Why\n\ny\n", "## Why\n\nx\n", "## Why\n\n\n## Remediation\n\ny\n",
		"## Why\n\nx\n\n## Other\n\nz\n\n## Remediation\n\ny\n", "<!-- open\n## Why\n\nx\n\n## Remediation\n\ny\n",
	} {
		if _, _, err := parseProse(bad); err == nil {
			t.Errorf("parseProse(%q) accepted", bad)
		}
	}
}
