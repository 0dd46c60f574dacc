package corpus

import (
	"fmt"
	"os"
	"path/filepath"
)

// GenerateCharts writes n Helm charts below dir (charts/chart-NNN): a kube-proxy ConfigMap and
// DaemonSet whose mode and image come from values.yaml through a helper, a Service, and for
// every other chart a values-prod.yaml variant. With charts false it writes the same files
// without Chart.yaml, so the templates are read unrendered: the baseline of the rendering's
// cost. It returns the number of files written; the content is deterministic.
func GenerateCharts(dir string, n int, charts bool) (int, error) {
	written := 0
	for i := range n {
		sub := filepath.Join(dir, "charts", fmt.Sprintf("chart-%03d", i))
		if err := os.MkdirAll(filepath.Join(sub, "templates"), 0o755); err != nil {
			return written, fmt.Errorf("generate charts: %w", err)
		}
		mode := []string{"ipvs", "iptables", "nftables"}[i%3]
		files := map[string]string{
			"values.yaml":              fmt.Sprintf(chartValues, mode),
			"templates/_helpers.tpl":   chartHelpers,
			"templates/configmap.yaml": chartConfigMap,
			"templates/daemonset.yaml": chartDaemonSet,
			"templates/service.yaml":   chartService,
		}
		if charts {
			files["Chart.yaml"] = fmt.Sprintf(chartYAML, i)
		}
		if i%2 == 0 {
			files["values-prod.yaml"] = "kubeProxy:\n  mode: nftables\n"
		}
		for name, content := range files {
			if err := os.WriteFile(filepath.Join(sub, name), []byte(content), 0o644); err != nil {
				return written, fmt.Errorf("generate charts: %w", err)
			}
			written++
		}
	}
	return written, nil
}

const chartYAML = `apiVersion: v2
name: kube-proxy-%03d
version: 0.1.0
appVersion: "1.39.0"
`

const chartValues = `kubeProxy:
  image: registry.k8s.io/kube-proxy
  tag: v1.39.0
  mode: %s
  metricsBindAddress: 0.0.0.0:10249
  extraArgs:
    - --v=2
service:
  nodePort: 30080
`

const chartHelpers = `{{- define "kp.labels" -}}
k8s-app: {{ .Release.Name }}-kube-proxy
{{- end -}}
{{- define "kp.image" -}}
{{ .Values.kubeProxy.image }}:{{ .Values.kubeProxy.tag }}
{{- end -}}
`

const chartConfigMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-kube-proxy
  namespace: kube-system
  labels:
    {{- include "kp.labels" . | nindent 4 }}
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: {{ .Values.kubeProxy.mode | quote }}
    metricsBindAddress: {{ .Values.kubeProxy.metricsBindAddress }}
`

const chartDaemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: {{ .Release.Name }}-kube-proxy
  namespace: kube-system
spec:
  selector:
    matchLabels:
      {{- include "kp.labels" . | nindent 6 }}
  template:
    metadata:
      labels:
        {{- include "kp.labels" . | nindent 8 }}
    spec:
      containers:
        - name: kube-proxy
          image: {{ include "kp.image" . }}
          command:
            - /usr/local/bin/kube-proxy
            - --config=/var/lib/kube-proxy/config.conf
            {{- range .Values.kubeProxy.extraArgs }}
            - {{ . }}
            {{- end }}
          volumeMounts:
            - name: kube-proxy
              mountPath: /var/lib/kube-proxy
      volumes:
        - name: kube-proxy
          configMap:
            name: {{ .Release.Name }}-kube-proxy
`

const chartService = `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}-web
spec:
  type: NodePort
  selector:
    app: web
  ports:
    - port: 80
      nodePort: {{ .Values.service.nodePort }}
`
