package load

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"
)

func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for n, c := range files {
		p := filepath.Join(dir, filepath.FromSlash(n))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func loadDir(t *testing.T, dir string, opts Options) *checker.Workspace {
	t.Helper()
	opts.Paths, opts.Root = []string{dir}, dir
	ws, err := Load(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// The fixture charts: failing renders and missing dependencies are notices (never KP001),
// rendered charts replace their templates' masked reading, a failed chart keeps it.
func TestHelmFixtureCharts(t *testing.T) {
	ws := loadDir(t, "../../fixtures/rules/KP102/helm-charts", Options{})
	var notices []string
	for _, p := range ws.Problems {
		if p.Manifest {
			t.Errorf("KP001 problem: %s: %s", p.Pos, p.Message)
		}
		notices = append(notices, p.Pos.String()+": "+p.Message)
	}
	all := strings.Join(notices, "\n")
	for _, want := range []string{
		"broken/Chart.yaml:1:1: Helm chart broken not rendered with values.yaml: parse error at (broken/templates/configmap.yaml:13): unexpected EOF; its templates are checked unrendered",
		"with-helper/Chart.yaml:8:11: Helm chart with-helper: dependency not-vendored is not in charts/",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("no notice %q in:\n%s", want, all)
		}
	}
	if strings.Contains(all, "clusterCIDR") {
		t.Errorf("a notice quotes the chart: %s", all)
	}
	for _, f := range ws.Files {
		switch {
		case strings.HasPrefix(f.Path, "broken/templates/"):
			if len(f.Docs) == 0 {
				t.Errorf("%s: the chart failed, its template must still be read", f.Path)
			}
		case strings.Contains(f.Path, "/templates/") && f.Format == checker.FormatYAML:
			if len(f.Docs) != 0 {
				t.Errorf("%s: rendered, but its masked documents are still checked", f.Path)
			}
		}
	}
	var names []string
	for _, f := range ws.Rendered {
		names = append(names, f.Path)
	}
	want := "kube-proxy/\x00@values.yaml/templates/configmap.yaml kube-proxy/\x00@values.yaml/templates/daemonset.yaml literal/\x00@values.yaml/templates/daemonset.yaml " +
		"prod-only/\x00@values-prod.yaml/templates/configmap.yaml prod-only/\x00@values.yaml/templates/configmap.yaml " +
		"with-helper/\x00@values.yaml/charts/proxy/templates/configmap.yaml with-helper/\x00@values.yaml/templates/configmap.yaml with-helper/\x00@values.yaml/templates/daemonset.yaml"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("rendered files:\n%s\nwant\n%s", got, want)
	}
}

// Rendering never reads outside the chart: a link in the chart is not followed, .Files holds
// the chart's own files, lookup returns nothing; Capabilities carry the target.
func TestHelmSandbox(t *testing.T) {
	outside := writeTree(t, map[string]string{"secret.txt": "TOP-SECRET"})
	dir := writeTree(t, map[string]string{
		"c/Chart.yaml":    "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/values.yaml":   "x: 1\n",
		"c/files/ok.conf": "inside",
		"c/templates/cm.yaml": `apiVersion: v1
kind: ConfigMap
metadata:
  name: probe
data:
  link: {{ .Files.Get "files/link.txt" | quote }}
  up: {{ .Files.Get "../secret.txt" | quote }}
  ok: {{ .Files.Get "files/ok.conf" | quote }}
  lookup: {{ lookup "v1" "Secret" "kube-system" "x" | toJson | quote }}
  kube: {{ .Capabilities.KubeVersion.Version | quote }}
`,
	})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "c/files/link.txt")); err != nil {
		t.Skip("no symlinks:", err)
	}
	v, err := checker.ParseVersion("1.38")
	if err != nil {
		t.Fatal(err)
	}
	ws := loadDir(t, dir, Options{Target: &v})
	if len(ws.Rendered) != 1 {
		t.Fatalf("rendered %d files; problems %+v", len(ws.Rendered), ws.Problems)
	}
	got := string(ws.Rendered[0].Content)
	if strings.Contains(got, "TOP-SECRET") {
		t.Fatalf("rendering read outside the chart:\n%s", got)
	}
	for _, want := range []string{`ok: "inside"`, `lookup: "{}"`, `kube: "v1.38.0"`, `link: ""`, `up: ""`} {
		if !strings.Contains(got, want) {
			t.Errorf("rendered output lacks %s:\n%s", want, got)
		}
	}
}

// A tree without Chart.yaml renders nothing, and a config can turn rendering off.
func TestHelmOff(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"c/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n",
	})
	if ws := loadDir(t, dir, Options{Helm: HelmOptions{Disabled: true}}); len(ws.Rendered) != 0 {
		t.Errorf("rendered with rendering off")
	}
	if ws := loadDir(t, dir, Options{}); len(ws.Rendered) != 1 {
		t.Errorf("rendered %d files", len(ws.Rendered))
	}
}

// Configured values files replace the values-*.yaml convention; a missing one is a notice.
func TestHelmConfiguredValues(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"c/Chart.yaml":        "apiVersion: v2\nname: c\nversion: 0.1.0\n",
		"c/values.yaml":       "n: a\n",
		"c/values-dev.yaml":   "n: dev\n",
		"c/env/prod.yaml":     "n: prod\n",
		"c/templates/cm.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.n }}\n",
	})
	ws := loadDir(t, dir, Options{Helm: HelmOptions{Values: map[string][]string{"c": {"env/prod.yaml", "gone.yaml"}}}})
	var names []string
	for _, f := range ws.Rendered {
		names = append(names, f.Path)
	}
	if got := strings.Join(names, " "); got != "c/\x00@env|prod.yaml/templates/cm.yaml c/\x00@values.yaml/templates/cm.yaml" {
		t.Errorf("rendered %s", got)
	}
	found := false
	for _, p := range ws.Problems {
		found = found || strings.Contains(p.Message, "values file gone.yaml (configured) does not exist")
	}
	if !found {
		t.Errorf("no notice for the missing values file: %+v", ws.Problems)
	}
}

// A commit's charts render from the files FromGit reads, with the same positions.
func TestHelmFromGit(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"deploy/kp/Chart.yaml":             "apiVersion: v2\nname: kp\nversion: 0.1.0\n",
		"deploy/kp/values.yaml":            "mode: ipvs\n",
		"deploy/kp/templates/_helpers.tpl": "{{- define \"kp.mode\" -}}{{ .Values.mode }}{{- end -}}\n",
		"deploy/kp/templates/cm.yaml":      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kp\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n    mode: {{ include \"kp.mode\" . }}\n",
	})
	ws, err := FromGit(context.Background(), dir, "HEAD", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ws.Rendered) != 1 {
		t.Fatalf("rendered %d files; problems %+v", len(ws.Rendered), ws.Problems)
	}
	var kpc *checker.Document
	for _, d := range ws.Docs {
		if d.Kind == "KubeProxyConfiguration" {
			kpc = d
		}
	}
	if kpc == nil {
		t.Fatal("no rendered KubeProxyConfiguration")
	}
	pos, end, _ := kpc.ValuePos(checker.Path{"mode"})
	ms, ok := ws.MapSpan(pos, end, "mode")
	if !ok || ms.Pos.String() != "deploy/kp/values.yaml:1:7" || len(ms.Related) != 1 || ms.Related[0].Pos.String() != "deploy/kp/templates/cm.yaml:9:11" {
		t.Errorf("mode maps to %+v", ms)
	}
}

// TestWholeOnDemandRendered: with Options.WholeOnDemand a rendered document that was pruned
// is given back whole (checker.WholeDocs) from the chart's output, with its positions and its
// render map (which maps a value to the values file), as a load that keeps every tree.
func TestWholeOnDemandRendered(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"app/Chart.yaml":  "apiVersion: v2\nname: app\nversion: 0.1.0\n",
		"app/values.yaml": "replicas: 12\n",
		"app/templates/deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n" +
			"  replicas: {{ .Values.replicas }}\n  template:\n    spec:\n      containers:\n      - name: web\n        image: nginx\n",
	})
	whole := loadDir(t, dir, Options{KeepTrees: true})
	ws := loadDir(t, dir, Options{WholeOnDemand: true})
	if len(ws.Rendered) != 1 || len(whole.Rendered) != 1 || len(ws.Rendered[0].Docs) != 1 {
		t.Fatalf("rendered %d and %d files", len(ws.Rendered), len(whole.Rendered))
	}
	d, want := ws.Rendered[0].Docs[0], whole.Rendered[0].Docs[0]
	if !d.Pruned || ws.Rendered[0].Redecode == nil {
		t.Fatal("the rendered Deployment is not pruned, or cannot be decoded again: the case tests nothing")
	}
	var w checker.WholeDocs
	got, err := w.Of(d)
	if err != nil {
		t.Fatal(err)
	}
	g1, err1 := got.GenericUncached()
	g2, err2 := want.GenericUncached()
	if err1 != nil || err2 != nil || !reflect.DeepEqual(g1, g2) {
		t.Errorf("whole again %v (%v), want %v (%v)", g1, err1, g2, err2)
	}
	p1, e1, ok1 := got.ValuePos(checker.P("spec", "replicas"))
	p2, e2, ok2 := want.ValuePos(checker.P("spec", "replicas"))
	if !ok1 || !ok2 || p1 != p2 || e1 != e2 || got.File.Render == nil {
		t.Errorf("spec.replicas at %v-%v, want %v-%v, with the render map (to the values file)", p1, e1, p2, e2)
	}
}

// Without a renderer installed, every chart is read unrendered with one notice each (not one
// per variant), and only the first says what to install.
func TestHelmNoRenderer(t *testing.T) {
	old := helm.Renderer
	helm.Renderer = nil
	t.Cleanup(func() { helm.Renderer = old })
	ws := loadDir(t, "../../fixtures/rules/KP102/helm-charts", Options{})
	var notices []string
	for _, p := range ws.Problems {
		if strings.Contains(p.Message, "not rendered") {
			notices = append(notices, p.Pos.String()+": "+p.Message)
		}
	}
	want := []string{
		"broken/Chart.yaml:1:1: Helm chart broken not rendered: " + helm.ErrNoRenderer.Error() + "; its templates are checked unrendered (placeholders unknown)",
		"kube-proxy/Chart.yaml:1:1: Helm chart kube-proxy not rendered: no Helm renderer installed (kube-proxy-lint-helm); its templates are checked unrendered (placeholders unknown)",
		"literal/Chart.yaml:1:1: Helm chart literal not rendered: no Helm renderer installed (kube-proxy-lint-helm); its templates are checked unrendered (placeholders unknown)",
		"prod-only/Chart.yaml:1:1: Helm chart prod-only not rendered: no Helm renderer installed (kube-proxy-lint-helm); its templates are checked unrendered (placeholders unknown)",
		"with-helper/Chart.yaml:1:1: Helm chart with-helper not rendered: no Helm renderer installed (kube-proxy-lint-helm); its templates are checked unrendered (placeholders unknown)",
	}
	if !reflect.DeepEqual(notices, want) {
		t.Errorf("notices:\n%s\nwant:\n%s", strings.Join(notices, "\n"), strings.Join(want, "\n"))
	}
	for _, f := range ws.Files {
		if strings.Contains(f.Path, "/templates/") && strings.HasSuffix(f.Path, ".yaml") && len(f.Docs) == 0 {
			t.Errorf("%s: not rendered, its template must still be read", f.Path)
		}
	}
}
