package main

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
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

// TestOnlyTheCLIIsACommand: pre-commit's golang hook runs `go install ./...`, so the CLI and
// its Helm renderer (which must be installed beside it) must be the only main packages
// without the kpltools build tag; generators and CI helpers carry `//go:build kpltools`
// (issue 12 item 15).
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
	if got := strings.TrimSpace(string(out)); got != "github.com/kube-proxy-lint/kube-proxy-lint/cmd/kube-proxy-lint\ngithub.com/kube-proxy-lint/kube-proxy-lint/cmd/kube-proxy-lint-helm" {
		t.Errorf("main packages that go install ./... builds:\n%s\nwant the CLI and its renderer only; give the others //go:build kpltools", got)
	}
}

// TestActionOwnVersion: action.yml names the release it belongs to in two expressions and its
// version input's description, and the README's release examples name the same version
// (CONTRIBUTING.md's release steps update them together).
func TestActionOwnVersion(t *testing.T) {
	action, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	uses := regexp.MustCompile(`inputs\.version \|\| '(v[0-9][^']*)'`).FindAllStringSubmatch(string(action), -1)
	if len(uses) != 2 {
		t.Fatalf("action.yml names its own version %d times, want 2 (the download and the source build)", len(uses))
	}
	v := uses[0][1]
	if uses[1][1] != v {
		t.Errorf("action.yml names two own versions: %s and %s", v, uses[1][1])
	}
	if !strings.Contains(string(action), "the release this action belongs to ("+v+",") {
		t.Errorf("the version input's description does not name %s", v)
	}
	for _, want := range []string{"v=" + strings.TrimPrefix(v, "v") + "\n", "cmd/...@" + v + "\n",
		"ghcr.io/kube-proxy-lint/kube-proxy-lint:" + strings.TrimPrefix(v, "v") + " ", "rev: " + v + " "} {
		if !strings.Contains(string(readme), want) {
			t.Errorf("README's release examples lack %q", want)
		}
	}
}

// TestReadmeInstall: the README's install commands exist (make install, make build,
// make build-release) and build both executables, the release build uses GoReleaser's flags, and the release workflow
// builds with .go-version's Go, which govulncheck checks.
func TestReadmeInstall(t *testing.T) {
	read := func(name string) string {
		t.Helper()
		b, err := os.ReadFile("../../" + name)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	readme, makefile, goreleaser, release := read("README.md"), read("Makefile"), read(".goreleaser.yaml"), read(".github/workflows/release.yml")
	_, install, _ := strings.Cut(readme, "\n## Install\n")
	install, _, _ = strings.Cut(install, "\n## ")
	for _, cmd := range []string{"make install", "go install ./cmd/...", "make build", "make build-release"} {
		if !strings.Contains(install, cmd) {
			t.Errorf("README's Install section lacks %q", cmd)
		}
	}
	target := func(name string) string {
		_, body, ok := strings.Cut(makefile, "\n"+name+":\n")
		if !ok {
			t.Fatalf("Makefile has no %s target", name)
		}
		body, _, _ = strings.Cut(body, "\n\n")
		return body
	}
	if body := target("install"); !strings.Contains(body, "install") || strings.Contains(body, "-trimpath") {
		t.Errorf("make install is not the fast install: %q", body)
	}
	if body := target("build"); strings.Contains(body, "-trimpath") {
		t.Errorf("make build is not the fast build: %q", body)
	}
	// Every build builds the CLI and its Helm renderer, which the CLI finds beside itself.
	for _, name := range []string{"install", "build", "build-release"} {
		if body := target(name); !strings.Contains(body, "./cmd/kube-proxy-lint-helm") || !regexp.MustCompile(`\./cmd/kube-proxy-lint( |\n|$)`).MatchString(body) {
			t.Errorf("make %s does not build both executables: %q", name, body)
		}
	}
	for _, main := range []string{"main: ./cmd/kube-proxy-lint\n", "main: ./cmd/kube-proxy-lint-helm\n", "ids: [kube-proxy-lint, kube-proxy-lint-helm]"} {
		if !strings.Contains(goreleaser, main) {
			t.Errorf(".goreleaser.yaml lacks %q", main)
		}
	}
	rel := target("build-release")
	for _, flag := range []string{"-trimpath", "CGO_ENABLED=0", "-s -w"} {
		if !strings.Contains(rel, flag) || !strings.Contains(goreleaser, flag) {
			t.Errorf("make build-release and .goreleaser.yaml disagree on %s", flag)
		}
	}
	goVersion := strings.TrimSpace(read(".go-version"))
	if !regexp.MustCompile(`^1\.[0-9]+\.[0-9]+$`).MatchString(goVersion) {
		t.Errorf(".go-version = %q, want a Go release such as 1.26.10", goVersion)
	}
	for _, want := range []string{"go-version-file: .go-version", "bash scripts/govulncheck.sh"} {
		if !strings.Contains(release, want) {
			t.Errorf("the release workflow lacks %q", want)
		}
	}
	if !strings.Contains(read("scripts/govulncheck.sh"), ".go-version") {
		t.Error("scripts/govulncheck.sh does not check the release's Go")
	}
}

// TestCLIDoesNotLinkHelm: Helm's packages (its engine, the JSON Schema compiler and client-go's
// scheme it brings) cost a third of a one-file run's start-up, so the CLI leaves them to its
// renderer executable, cmd/kube-proxy-lint-helm (checker/helm).
func TestCLIDoesNotLinkHelm(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	for _, c := range []struct {
		pkg  string
		want bool
	}{
		{"./cmd/kube-proxy-lint", false},
		{"./cmd/kube-proxy-lint-helm", true},
	} {
		cmd := exec.Command(gobin, "list", "-deps", c.pkg)
		cmd.Dir = "../.."
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		var helm []string
		for _, p := range strings.Fields(string(out)) {
			if strings.HasPrefix(p, "helm.sh/") || strings.HasSuffix(p, "/checker/helm/render") {
				helm = append(helm, p)
			}
		}
		if (len(helm) > 0) != c.want {
			t.Errorf("%s links %d Helm packages %v, want any: %v", c.pkg, len(helm), helm, c.want)
		}
	}
}
