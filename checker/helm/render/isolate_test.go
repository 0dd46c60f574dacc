package render

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"

	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

func TestMain(m *testing.M) {
	if helm.IsChild(os.Args) {
		// The test binary is the renderer, as cmd/kube-proxy-lint-helm is.
		os.Exit(helm.ServeChild(os.Args, os.Stdin, os.Stdout, os.Stderr, Render))
	}
	os.Exit(m.Run())
}

// childCommand runs this test binary as the rendering child.
func childCommand() (*exec.Cmd, error) {
	return childCommandOf(helm.Protocol), nil
}

// childCommandOf runs this test binary as a rendering child asked for protocol.
func childCommandOf(protocol string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], helm.ChildArg, protocol)
	cmd.Env = append(os.Environ(), helm.ChildEnv+"=1")
	return cmd
}

func withChild(t *testing.T) {
	t.Helper()
	helm.Command = childCommand
	t.Cleanup(func() { helm.Command = nil })
}

func loopChart(body string) map[string][]byte {
	return map[string][]byte{
		"Chart.yaml":       []byte("apiVersion: v2\nname: loop\nversion: 0.1.0\n"),
		"values.yaml":      []byte("count: 1000000000\nsmall: 3\n"),
		"templates/x.yaml": []byte(body),
	}
}

// A chart that asks for a huge loop or string is refused before rendering, whether the
// count is written in the template or set in values.yaml.
func TestCountsRefused(t *testing.T) {
	for _, body := range []string{
		`{{ range until 100000000 }}x{{ end }}`,
		`{{ range until (int .Values.count) }}x{{ end }}`,
		`{{ repeat 1000000000 "x" }}`,
		`{{ range 200000 }}x{{ end }}`,
		`{{ with .Values }}{{ range untilStep 0 (int .count) 1 }}x{{ end }}{{ end }}`,
	} {
		_, err := Render(helm.Request{Files: loopChart(body)})
		var he *helm.Error
		if !errors.As(err, &he) || !strings.Contains(he.Msg, "not rendered") {
			t.Errorf("%s: err = %v, want a refusal", body, err)
		}
	}
	if _, err := Render(helm.Request{Files: loopChart(`{{ range until (int .Values.small) }}x{{ end }}`)}); err != nil {
		t.Errorf("a small count: %v", err)
	}
}

// Nested loops under the count limit multiply: the child is killed at the timeout (or dies
// at its memory limit) and the parent goes on.
func TestChildBoundsHostileChart(t *testing.T) {
	withChild(t)
	var p helm.Pool
	defer p.Close()
	start := time.Now()
	_, err := p.Render(helm.Request{Files: loopChart(`{{ range until 90000 }}{{ range until 90000 }}xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx{{ end }}{{ end }}`)}, 3*time.Second)
	if err == nil {
		t.Fatal("rendered a chart of 2.6e11 bytes")
	}
	if time.Since(start) > time.Minute {
		t.Errorf("took %v", time.Since(start))
	}
	// The pool still renders after losing a child.
	res, err := p.Render(helm.Request{Files: loopChart("a: {{ .Values.small }}\n")}, time.Minute)
	if err != nil || len(res.Outputs) != 1 || string(res.Outputs[0].Content) != "a: 3\n" {
		t.Fatalf("after the hostile chart: %v %+v", err, res)
	}
}

// A chart's failure comes back from the child as Helm's message.
func TestChildError(t *testing.T) {
	withChild(t)
	var p helm.Pool
	defer p.Close()
	_, err := p.Render(helm.Request{Files: loopChart(`{{ nosuchfunction .Values.small }}`)}, time.Minute)
	var he *helm.Error
	if !errors.As(err, &he) || !strings.Contains(he.Msg, "parse error") || !strings.Contains(he.Msg, "not defined") {
		t.Fatalf("err = %v", err)
	}
}

// The children of one run share one memory cap: as many render at once as fit in it, at
// least one.
func TestChildrenAtOnce(t *testing.T) {
	for _, c := range []struct {
		share   int64
		workers int
		want    int
	}{
		{2 << 30, 2, 1}, {1 << 30, 4, 1}, {4 << 30, 2, 2}, {8 << 30, 2, 2}, {8 << 30, 64, 4}, {0, 8, 1},
	} {
		if got := helm.ChildrenAtOnce(c.share, c.workers); got != c.want {
			t.Errorf("ChildrenAtOnce(%d, %d) = %d, want %d", c.share, c.workers, got, c.want)
		}
	}
}

// A run that stops (interrupt, budget) kills the child at once, not at the timeout.
func TestChildKilledWithContext(t *testing.T) {
	withChild(t)
	var p helm.Pool
	defer p.Close()
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := p.RenderContext(ctx, helm.Request{Files: loopChart(`{{ range until 90000 }}{{ range until 90000 }}x{{ end }}{{ end }}`)}, time.Hour)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want the rendering cancelled", err)
	}
	if res, err := p.Render(helm.Request{Files: loopChart("a: {{ .Values.small }}\n")}, time.Minute); err != nil || len(res.Outputs) != 1 {
		t.Fatalf("after a cancelled rendering: %v", err)
	}
}

// A renderer of another protocol (another release) refuses, and the parent says so instead
// of reading its answer.
func TestChildOtherProtocol(t *testing.T) {
	helm.Command = func() (*exec.Cmd, error) { return childCommandOf("0"), nil }
	t.Cleanup(func() { helm.Command = nil })
	var p helm.Pool
	defer p.Close()
	_, err := p.Render(helm.Request{Files: loopChart("a: {{ .Values.small }}\n")}, time.Minute)
	if err == nil || !strings.Contains(err.Error(), "is from another version of kube-proxy-lint") {
		t.Fatalf("err = %v", err)
	}
}
