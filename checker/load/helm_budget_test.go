package load

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/budget"
)

const chartYAML = "apiVersion: v2\nname: c\nversion: 0.1.0\n"

// padChart is a chart whose one template renders about size bytes, with n values-*.yaml.
func padChart(size, n int) map[string]string {
	files := map[string]string{
		"c/Chart.yaml":        chartYAML,
		"c/values.yaml":       "x: a\n",
		"c/templates/cm.yaml": fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.x }}\ndata:\n  pad: %q\n", strings.Repeat("p", size)),
	}
	for i := range n {
		files[fmt.Sprintf("c/values-%d.yaml", i)] = fmt.Sprintf("x: v%d\n", i)
	}
	return files
}

func problems(ws *checker.Workspace) string {
	var out []string
	for _, p := range ws.Problems {
		out = append(out, p.Pos.String()+": "+p.Message)
	}
	return strings.Join(out, "\n")
}

// Item 4 of issue 22: the parent held every rendered variant (three values files under the
// per-chart cap held 3.8 GB). The run holds at most MaxRendered bytes of rendered output:
// beyond, a variant is not rendered (a notice without a run budget; with one, the run stops
// and the error names the chart and values file).
func TestHelmRenderedOutputCap(t *testing.T) {
	dir := writeTree(t, padChart(1000, 3))
	ws := loadDir(t, dir, Options{Workers: 1, Helm: HelmOptions{MaxRendered: 2500}})
	if len(ws.Rendered) != 2 {
		t.Errorf("rendered %d variants, want 2 within 2500 bytes", len(ws.Rendered))
	}
	all := problems(ws)
	if n := strings.Count(all, "Helm rendering built more than the 2 KiB of output one run may hold"); n != 2 {
		t.Errorf("%d notices about the cap, want 2:\n%s", n, all)
	}
	b := &budget.Budget{MaxMemory: 1 << 30}
	ctx, stop := budget.Start(context.Background(), b)
	defer stop()
	_, err := Load(ctx, Options{Paths: []string{dir}, Root: dir, Workers: 1, Helm: HelmOptions{MaxRendered: 2500}})
	var be *budget.ExceededError
	if !errors.As(b.Err(), &be) || err == nil || !strings.Contains(be.Error(), "Helm chart c rendered with values-1.yaml") {
		t.Errorf("err = %v, budget = %v, want the run stopped naming values-1.yaml", err, b.Err())
	}
}

// Item 6: every values file added a rendering with its own timeout; the run's renderings
// share one time budget. With a budget of a nanosecond, the first rendering spends it and
// every later variant is refused.
func TestHelmRenderTimeBudget(t *testing.T) {
	dir := writeTree(t, padChart(10, 5))
	ws := loadDir(t, dir, Options{Workers: 1, Helm: HelmOptions{RunBudget: 1}})
	all := problems(ws)
	if n := strings.Count(all, "Helm rendering took longer than its budget of 1ns per run"); n < 5 {
		t.Errorf("%d notices about the time budget, want at least 5 of 6 variants:\n%s", n, all)
	}
}

// Item 5: each directory with a Chart.yaml read its whole subtree, and all were held at once
// (500 nested charts above 8 MB held 6 GB). Each file now belongs to the deepest chart above
// it only, and is read once.
func TestHelmNestedChartsShareFiles(t *testing.T) {
	files := map[string][]byte{}
	var inputs []input
	dir := ""
	var charts []chartInput
	for i := range 50 {
		dir = joinDir(dir, fmt.Sprintf("n%d", i))
		files[dir+"/Chart.yaml"] = []byte(chartYAML)
		charts = append(charts, chartInput{dir: dir, name: dir + "/Chart.yaml"})
	}
	files[dir+"/templates/big.yaml"] = []byte(strings.Repeat("#", 1<<20))
	for n := range files {
		inputs = append(inputs, input{name: n})
	}
	got, errs := chartFiles(charts, inputs, files, DefaultMaxFileSize)
	total := 0
	for i, m := range got {
		if errs[i] != nil {
			t.Fatalf("chart %s: %v", charts[i].dir, errs[i])
		}
		for _, b := range m {
			total += len(b)
		}
		if len(m) == 0 || m["Chart.yaml"] == nil {
			t.Errorf("chart %s has no Chart.yaml", charts[i].dir)
		}
	}
	if want := 1<<20 + 50*len(chartYAML); total != want {
		t.Errorf("the charts hold %d bytes together, want each file once (%d)", total, want)
	}
}

// Item 8: the chart reader walked the disk without .gitignore, so .Files.Glob read a
// credentials file a CI step wrote into the workspace, which the loader had skipped.
func TestHelmFilesHonourGitignore(t *testing.T) {
	dir := writeTree(t, map[string]string{
		".gitignore":            "gha-creds-*.json\n",
		"c/Chart.yaml":          chartYAML,
		"c/gha-creds-1.json":    `{"token": "TOKEN-SECRET"}`,
		"c/node_modules/x.json": `{"token": "TOKEN-SECRET"}`,
		"c/templates/cm.yaml":   "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n{{- range $p, $_ := .Files.Glob \"**.json\" }}\n  f: {{ $.Files.Get $p | quote }}\n{{- end }}\n",
	})
	ws := loadDir(t, dir, Options{})
	if len(ws.Rendered) != 1 {
		t.Fatalf("rendered %d files:\n%s", len(ws.Rendered), problems(ws))
	}
	if got := string(ws.Rendered[0].Content); strings.Contains(got, "TOKEN-SECRET") {
		t.Errorf("the chart read a file the loader skips:\n%s", got)
	}
}

// Item 9: a real file at c/@values.yaml/templates/t.yaml had the path of a rendered file:
// its findings were mapped through the chart's render map. Rendered files have paths no
// real file can have.
func TestHelmVirtualPathsUnique(t *testing.T) {
	real := "c/@values.yaml/templates/cm.yaml"
	dir := writeTree(t, map[string]string{
		"c/Chart.yaml":        chartYAML,
		"c/values.yaml":       "mode: ipvs\n",
		"c/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.mode }}\n",
		real:                  "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n",
	})
	ws := loadDir(t, dir, Options{})
	if len(ws.Rendered) != 1 {
		t.Fatalf("rendered %d files", len(ws.Rendered))
	}
	if ws.Rendered[0].Path == real || ws.RenderedFile(real) != nil {
		t.Fatalf("the real file %s is taken for a rendered file", real)
	}
	p := checker.Position{Filename: real, Line: 3, Column: 7, Offset: 76}
	if got := ws.MapPosition(p); got != p {
		t.Errorf("a position in the real file moved to %s", got)
	}
}

// Item 7: dependencyPos parsed Chart.yaml once per missing dependency (4,000 took 67 s).
// Parsing once per chart allocates in proportion to the dependencies, not to their square.
func TestHelmMissingDependenciesLinear(t *testing.T) {
	alloc := func(n int) uint64 {
		var b strings.Builder
		b.WriteString(chartYAML + "dependencies:\n")
		for i := range n {
			fmt.Fprintf(&b, "  - name: dep%d\n    version: 0.1.0\n", i)
		}
		files := map[string][]byte{
			"c/Chart.yaml":        []byte(b.String()),
			"c/templates/cm.yaml": []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\n"),
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		ws := Files(files, nil)
		runtime.ReadMemStats(&after)
		found := 0
		for _, p := range ws.Problems {
			if strings.Contains(p.Message, "is not in charts/") {
				found++
				if want := fmt.Sprintf("dependency dep%d ", (p.Pos.Line-5)/2); p.Pos.Column != 11 || !strings.Contains(p.Message, want) {
					t.Errorf("%s: %s", p.Pos, p.Message)
				}
			}
		}
		if found != n {
			t.Errorf("%d notices for %d missing dependencies", found, n)
		}
		return after.TotalAlloc - before.TotalAlloc
	}
	small, large := alloc(250), alloc(1000)
	if large > 8*small {
		t.Errorf("1000 missing dependencies allocate %d bytes, 250 allocate %d: more than linear", large, small)
	}
}

// The loader charges the bytes it holds to the run's budget: going over stops the load, and
// the error names the file that went over.
func TestLoadChargesBytesRead(t *testing.T) {
	kpc := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n# " + strings.Repeat("x", 4000) + "\n"
	dir := writeTree(t, map[string]string{"a.yaml": kpc, "b.yaml": kpc, "c.yaml": kpc})
	b := &budget.Budget{MaxMemory: 10000}
	ctx, stop := budget.Start(context.Background(), b)
	defer stop()
	_, err := Load(ctx, Options{Paths: []string{dir}, Root: dir, Workers: 1})
	var be *budget.ExceededError
	if err == nil || !errors.As(b.Err(), &be) || be.What != "c.yaml" {
		t.Errorf("err = %v, budget = %v, want the third file to go over", err, b.Err())
	}
	b = &budget.Budget{MaxMemory: 1 << 20}
	ctx, stop = budget.Start(context.Background(), b)
	defer stop()
	if _, err := Load(ctx, Options{Paths: []string{dir}, Root: dir}); err != nil || b.Held() != int64(3*len(kpc)) {
		t.Errorf("err = %v, held %d", err, b.Held())
	}
}
