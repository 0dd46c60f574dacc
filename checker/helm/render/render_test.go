package render

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"

	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
)

func testChart() map[string][]byte {
	return map[string][]byte{
		"Chart.yaml":             []byte("apiVersion: v2\nname: kp\nversion: 0.1.0\n"),
		"values.yaml":            []byte("kubeProxy:\n  mode: ipvs\n  config:\n    mode: ipvs\n"),
		"templates/_helpers.tpl": []byte(`{{- define "kp.mode" -}}{{ .Values.kubeProxy.mode }}{{- end -}}` + "\n"),
		"templates/ds.yaml": []byte(`apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-proxy
spec:
  template:
    spec:
      containers:
        - name: kube-proxy
          args:
            - --proxy-mode={{ include "kp.mode" . }}
            - --v=2
          {{- with .Values.kubeProxy }}
          env:
            - name: MODE
              value: {{ .mode | quote }}
          {{- end }}
`),
	}
}

func TestRenderSegments(t *testing.T) {
	res, err := Render(helm.Request{Files: testChart(), KubeVersion: "1.40"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 1 {
		t.Fatalf("outputs: %+v", res.Outputs)
	}
	o := res.Outputs[0]
	src := string(testChart()["templates/ds.yaml"])
	if strings.Contains(string(o.Content), markOpen) {
		t.Fatalf("markers left: %s", o.Content)
	}
	for _, s := range o.Segments {
		text := string(o.Content[s.From:s.To])
		if s.Literal && src[s.Src:s.Src+len(text)] != text {
			t.Errorf("literal %q is not the source's %q", text, src[s.Src:s.Src+len(text)])
		}
	}
	acts := res.Actions["templates/ds.yaml"]
	var paths []string
	for _, a := range acts {
		for _, p := range a.Paths {
			paths = append(paths, strings.Join(p, "."))
		}
	}
	if strings.Join(paths, ",") != "kubeProxy.mode,kubeProxy.mode" {
		t.Errorf("paths = %v", paths)
	}
	t.Logf("%s", o.Content)
	for _, s := range o.Segments {
		t.Logf("%+v %q", s, o.Content[s.From:s.To])
	}
}

// The markers never change what a template renders: for templates with trim markers,
// ranges, withs, comments, includes and blank-only text, the rendering with markers (after
// removing them) is Helm's rendering of the template as written, and every literal segment
// is the template's text at its offset.
func TestMarkersKeepRendering(t *testing.T) {
	templates := []string{
		"a: 1\n",
		"{{- if true }}\na: 1\n{{- end }}\n",
		"a: {{ .Values.x -}}\n   \n  b\n",
		"a:   {{- .Values.x }}\n",
		"{{ .Values.x }}{{ .Values.y }}\n{{- /* comment */ -}}\n  c: d\n",
		"list:\n{{- range .Values.list }}\n  - {{ . | quote }}\n{{- end }}\n",
		"{{ with .Values.m }}k: {{ .k }}{{ else }}none{{ end }}\n",
		"x: |\n  {{- include \"h\" . | nindent 2 }}\n  tail\n",
		"{{- define \"local\" }}inner {{ .Values.x }}{{ end -}}\nv: {{ include \"local\" . }}\n",
		"  \n{{- \"\" -}}\n  \n",
		"{{ $v := .Values.x }}a: {{ $v }}\n{{ $.Values.y -}}   \n",
		"s: {{ printf \"%s}}\" .Values.x }}\n",
		"c: {{ include (print $.Template.BasePath \"/b.yaml\") . | sha256sum | trunc 8 }}\n",
	}
	for _, tpl := range templates {
		files := map[string][]byte{
			"Chart.yaml":             []byte("apiVersion: v2\nname: m\nversion: 0.1.0\n"),
			"values.yaml":            []byte("x: one\ny: two\nlist: [a, b]\nm: {k: v}\n"),
			"templates/_helpers.tpl": []byte(`{{- define "h" -}}h1: {{ .Values.x }}` + "\nh2: x\n{{- end -}}"),
			"templates/a.yaml":       []byte(tpl),
			"templates/b.yaml":       []byte("b: {{ .Values.y }}\n"),
		}
		res, err := Render(helm.Request{Files: files})
		if err != nil {
			t.Errorf("%q: %v", tpl, err)
			continue
		}
		var plain []*loader.BufferedFile
		for n, b := range files {
			plain = append(plain, &loader.BufferedFile{Name: n, Data: b})
		}
		want, _, err := renderFiles(plain, helm.Request{})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]helm.Output{}
		for _, o := range res.Outputs {
			got[o.Name] = o
		}
		o := got["templates/a.yaml"]
		if strings.TrimSpace(want["m/templates/a.yaml"]) == "" {
			continue
		}
		if string(o.Content) != want["m/templates/a.yaml"] && !strings.Contains(tpl, "sha256sum") {
			t.Errorf("%q: rendered %q, Helm renders %q", tpl, o.Content, want["m/templates/a.yaml"])
		}
		at := 0
		for _, s := range o.Segments {
			if s.From != at || s.To <= s.From {
				t.Errorf("%q: segments do not cover the output: %+v", tpl, o.Segments)
				break
			}
			at = s.To
			if s.Literal && string(files[s.File][s.Src:s.Src+s.To-s.From]) != string(o.Content[s.From:s.To]) {
				t.Errorf("%q: literal segment %q is not the template's text", tpl, o.Content[s.From:s.To])
			}
		}
		if at != len(o.Content) {
			t.Errorf("%q: segments end at %d of %d", tpl, at, len(o.Content))
		}
	}
}
