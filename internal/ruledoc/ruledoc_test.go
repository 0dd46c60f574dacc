package ruledoc_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/ruledoc"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// docsDir is the checked-in generated documentation, relative to this package.
const docsDir = "../../docs/rules"

// TestDocsUpToDate fails when docs/rules does not match the registry: a page is missing,
// stale, or left over from a removed rule.
func TestDocsUpToDate(t *testing.T) {
	want := ruledoc.Files(policy.Merge(rules.All(), policy.Builtin()))
	entries, err := os.ReadDir(docsDir)
	if err != nil {
		t.Fatalf("read generated docs: %v; run make docs", err)
	}
	have := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		have[name] = true
		content, ok := want[name]
		if !ok {
			t.Errorf("docs/rules/%s is not generated from the rule registry; remove it (make docs removes stale rule pages)", name)
			continue
		}
		got, err := os.ReadFile(filepath.Join(docsDir, name))
		if err != nil {
			t.Errorf("read docs/rules/%s: %v", name, err)
			continue
		}
		if string(got) != content {
			t.Errorf("docs/rules/%s is stale; run make docs", name)
		}
	}
	var missing []string
	for name := range want {
		if !have[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	for _, name := range missing {
		t.Errorf("docs/rules/%s is missing; run make docs", name)
	}
}

func fakeRule() *checker.Rule {
	return &checker.Rule{
		ID:       "KP102",
		Name:     "mode-ipvs",
		Severity: checker.SeverityWarning,
		Kinds:    []string{"KubeProxyConfiguration", "DaemonSet"},
		Doc: checker.Doc{
			Title:        "Proxy mode | ipvs is deprecated",
			Why:          "The `ipvs` mode is deprecated.\n\nIt stops starting by default in 1.40.\n",
			Remediation:  "Set `mode: nftables`.",
			Before:       "mode: ipvs\n",
			After:        "mode: nftables # ``` not a fence\n",
			Since:        "v0.1.0",
			SeverityText: "warning; error at target >= 1.40",
		},
		Run: func(*checker.Pass) error { return nil },
	}
}

func TestMarkdown(t *testing.T) {
	got := ruledoc.Markdown(fakeRule())
	want := "# KP102: Proxy mode | ipvs is deprecated\n" +
		"\n" +
		"| | |\n" +
		"| --- | --- |\n" +
		"| ID | `KP102` |\n" +
		"| Name | `mode-ipvs` |\n" +
		"| Severity | warning; error at target >= 1.40 |\n" +
		"| Enabled by default | yes |\n" +
		"| Since | v0.1.0 |\n" +
		"| Looks at | `KubeProxyConfiguration`, `DaemonSet` |\n" +
		"| Documentation | <" + checker.DocsBaseURL + "KP102.md> |\n" +
		"\n" +
		"## Why\n" +
		"\n" +
		"The `ipvs` mode is deprecated.\n" +
		"\n" +
		"It stops starting by default in 1.40.\n" +
		"\n" +
		"## Remediation\n" +
		"\n" +
		"Set `mode: nftables`.\n" +
		"\n" +
		"## Example\n" +
		"\n" +
		"Before:\n" +
		"\n" +
		"```yaml\n" +
		"mode: ipvs\n" +
		"```\n" +
		"\n" +
		"After:\n" +
		"\n" +
		"````yaml\n" +
		"mode: nftables # ``` not a fence\n" +
		"````\n" +
		"\n" +
		"---\n" +
		"\n" +
		"[All rules](" + checker.DocsBaseURL + "README.md) · Enable or disable with `--enable KP102` / `--disable KP102`.\n"
	if got != want {
		t.Errorf("Markdown:\n%s\nwant:\n%s", got, want)
	}
}

func TestMarkdownMinimal(t *testing.T) {
	r := fakeRule()
	r.Doc.SeverityText, r.Doc.Before, r.Doc.After, r.Kinds, r.Disabled = "", "", "", nil, true
	got := ruledoc.Markdown(r)
	for _, s := range []string{"| Severity | warning |", "| Enabled by default | no |"} {
		if !strings.Contains(got, s) {
			t.Errorf("Markdown lacks %q:\n%s", s, got)
		}
	}
	for _, s := range []string{"Looks at", "## Example", "```"} {
		if strings.Contains(got, s) {
			t.Errorf("Markdown has %q though the doc has none:\n%s", s, got)
		}
	}
}

func TestText(t *testing.T) {
	got := ruledoc.Text(fakeRule())
	want := "KP102 (mode-ipvs): Proxy mode | ipvs is deprecated\n" +
		"\n" +
		"  Severity:           warning; error at target >= 1.40\n" +
		"  Enabled by default: yes\n" +
		"  Since:              v0.1.0\n" +
		"  Looks at:           KubeProxyConfiguration, DaemonSet\n" +
		"  Documentation:      " + checker.DocsBaseURL + "KP102.md\n" +
		"\n" +
		"Why:\n" +
		"  The `ipvs` mode is deprecated.\n" +
		"\n" +
		"  It stops starting by default in 1.40.\n" +
		"\n" +
		"Remediation:\n" +
		"  Set `mode: nftables`.\n" +
		"\n" +
		"Before:\n" +
		"    mode: ipvs\n" +
		"\n" +
		"After:\n" +
		"    mode: nftables # ``` not a fence\n"
	if got != want {
		t.Errorf("Text:\n%s\nwant:\n%s", got, want)
	}
}

func TestTable(t *testing.T) {
	r := fakeRule()
	got := ruledoc.Table([]*checker.Rule{r})
	want := "| ID | Name | Severity | Enabled by default | Title |\n" +
		"| --- | --- | --- | --- | --- |\n" +
		"| [KP102](" + checker.DocsBaseURL + "KP102.md) | `mode-ipvs` | warning | yes | Proxy mode \\| ipvs is deprecated |\n"
	if got != want {
		t.Errorf("Table:\n%s\nwant:\n%s", got, want)
	}
	if idx := ruledoc.Index([]*checker.Rule{r}); !strings.Contains(idx, "| [KP102](KP102.md) |") {
		t.Errorf("Index does not link pages relatively:\n%s", idx)
	}
}

func TestWriteDocs(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs", "rules")
	r := fakeRule()
	if err := ruledoc.WriteDocs(dir, []*checker.Rule{r}); err != nil {
		t.Fatal(err)
	}
	// A page of a removed rule goes; files that are not rule pages stay.
	for _, name := range []string{"KP999.md", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := ruledoc.WriteDocs(dir, []*checker.Rule{r}); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if got := strings.Join(names, " "); got != "KP102.md README.md notes.txt" {
		t.Errorf("files = %s", got)
	}
	page, err := os.ReadFile(filepath.Join(dir, "KP102.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(page), "<!-- Code generated") || !strings.Contains(string(page), ruledoc.Markdown(r)) {
		t.Errorf("page:\n%s", page)
	}
}
