package helm

import (
	"strings"
	"testing"
)

func testChart() map[string][]byte {
	return map[string][]byte{
		"Chart.yaml":  []byte("apiVersion: v2\nname: kp\nversion: 0.1.0\n"),
		"values.yaml": []byte("kubeProxy:\n  mode: ipvs\n  config:\n    mode: ipvs\n"),
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
	res, err := Render(Request{Files: testChart(), KubeVersion: "1.40"})
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
