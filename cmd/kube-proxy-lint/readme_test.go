package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/internal/ruledoc"
)

// TestReadmeQuickStart runs the README's quick-start command and checks that the README shows
// its real outcome: the exit code and the summary line.
func TestReadmeQuickStart(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	// The command runs from the repository root; file names are relative to it.
	t.Chdir("../..")
	var out, errb bytes.Buffer
	code := run([]string{"--color", "never", "fixtures/repos/kubeadm-ipvs"}, nil, &out, &errb)
	if code != 1 {
		t.Errorf("quick start exited %d, README says 1; stderr: %s", code, errb.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	summary := lines[len(lines)-1]
	if !strings.Contains(string(readme), summary) {
		t.Errorf("README does not show the quick start's summary line:\n%s", summary)
	}
	out.Reset()
	if code := run([]string{"--color", "never", "fixtures/repos/nftables-ready"}, nil, &out, &errb); code != 0 || out.Len() != 0 {
		t.Errorf("nftables-ready: exit %d, output %q; README says clean", code, out.String())
	}
}

// TestReadmeFixTable checks that the README's "Fixing" section shows the safe/unsafe table of
// every documented fix as the rule registry has it.
func TestReadmeFixTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	all, err := withPolicies(registry(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := ruledoc.FixTable(all)
	_, section, ok := strings.Cut(string(readme), "\n## Fixing\n")
	if !ok {
		t.Fatal(`README has no "## Fixing" section`)
	}
	if !strings.Contains(section, want) {
		t.Errorf("README's Fixing section lacks the fix table; it should read:\n%s", want)
	}
}

// TestReadmeTestCommands: CI (.ci/run) runs exactly the test commands the README gives, so the
// README's promise of "what CI runs" stays true.
func TestReadmeTestCommands(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(readme), "Run the tests (CI runs both):\n\n```sh\n")
	if !ok {
		t.Fatal("README has no test command block")
	}
	block, _, _ = strings.Cut(block, "```")
	var readmeCmds []string
	for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
		cmd, _, _ := strings.Cut(l, "#")
		readmeCmds = append(readmeCmds, strings.TrimSpace(cmd))
	}
	var ciCmds []string
	for _, l := range strings.Split(string(ci), "\n") {
		if strings.HasPrefix(l, "make test") {
			ciCmds = append(ciCmds, strings.TrimSpace(l))
		}
	}
	if strings.Join(readmeCmds, "\n") != strings.Join(ciCmds, "\n") {
		t.Errorf("README test commands %q, .ci/run runs %q", readmeCmds, ciCmds)
	}
}

// TestOnlyTheCLIIsACommand: pre-commit's golang hook runs `go install ./...`, so the CLI must
// be the only main package without the kpltools build tag; generators and CI helpers carry
// `//go:build kpltools` (issue 12 item 15).
func TestOnlyTheCLIIsACommand(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	cmd := exec.Command(gobin, "list", "-f", "{{if eq .Name \"main\"}}{{.ImportPath}}{{end}}", "./...")
	cmd.Dir = "../.."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != "github.com/kube-proxy-lint/kube-proxy-lint/cmd/kube-proxy-lint" {
		t.Errorf("main packages that go install ./... builds:\n%s\nwant the CLI only; give the others //go:build kpltools", got)
	}
}
