package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// GenerateText writes about n text inputs below dir: node bootstrap scripts with a
// KubeProxyConfiguration heredoc, firewall scripts that use kube-proxy's iptables chains and
// ipvs state, systemd units with continued ExecStart lines, kube-proxy flag files,
// Dockerfiles, Makefiles, Jinja2 unit templates, Helm templates, and long scripts unrelated to
// kube-proxy. It returns the number written; the content is deterministic. It adds to what
// Generate writes and can share its directory.
func GenerateText(dir string, n int) (int, error) {
	written := 0
	for i := 0; written < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("nodes-%03d", i/40), fmt.Sprintf("role-%02d", i%40))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return written, fmt.Errorf("generate text corpus: %w", err)
		}
		mode := []string{"ipvs", "iptables", "nftables", ""}[i%4]
		var files map[string]string
		switch i % 8 {
		case 0:
			files = map[string]string{"bootstrap.sh": fmt.Sprintf(bootstrapScript, modeLine(mode)), "kube-proxy.service": unit}
		case 1:
			files = map[string]string{"firewall.sh": firewallScript, "kube-proxy.flags": flagFile}
		case 2:
			files = map[string]string{"Dockerfile": dockerfile, "Makefile": makefile}
		case 3:
			files = map[string]string{"kube-proxy.service.j2": unitTemplate, "cleanup.sh": cleanupScript}
		case 4:
			files = map[string]string{"configmap.yaml": helmTemplate}
		default:
			files = map[string]string{"deploy.sh": longScript, "healthcheck.sh": healthScript}
		}
		for name, content := range files {
			if written >= n {
				break
			}
			if err := os.WriteFile(filepath.Join(sub, name), []byte(content), 0o644); err != nil {
				return written, fmt.Errorf("generate text corpus: %w", err)
			}
			written++
		}
	}
	return written, nil
}

func modeLine(mode string) string {
	if mode == "" {
		return ""
	}
	return "mode: " + mode
}

const bootstrapScript = `#!/bin/bash
# Node bootstrap: writes the kube-proxy configuration and starts kube-proxy.
set -euo pipefail
NODE_NAME="$(hostname -s)"
install -d -m 0755 /etc/kubernetes
cat > /etc/kubernetes/kube-proxy.yaml <<'KPCONF'
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: /etc/kubernetes/kube-proxy.kubeconfig
clusterCIDR: 10.244.0.0/16
%s
KPCONF
if ! command -v conntrack >/dev/null 2>&1; then
  apt-get update && apt-get install -y conntrack ipset
fi
exec /usr/local/bin/kube-proxy \
  --config=/etc/kubernetes/kube-proxy.yaml \
  --hostname-override="${NODE_NAME}" \
  --v=2
`

const unit = `[Unit]
Description=Kubernetes Kube Proxy
After=network.target

[Service]
ExecStart=/usr/local/bin/kube-proxy \
  --kubeconfig=/etc/kubernetes/kube-proxy.kubeconfig \
  --proxy-mode=iptables \
  --cluster-cidr=10.244.0.0/16 \
  --hostname-override=%H
Restart=on-failure
RestartSec=5

[Install]
WantedBy=multi-user.target
`

const firewallScript = `#!/bin/sh
# Node firewall rules.
set -e
iptables -t nat -I KUBE-SERVICES -s 10.0.0.0/8 -j RETURN
iptables -A INPUT -j KUBE-FIREWALL
for port in 22 443 6443 10250; do
  iptables -A INPUT -p tcp --dport "$port" -j ACCEPT
done
if iptables-save -t nat | grep -q 'KUBE-SVC-'; then
  logger "service chains present"
fi
ip addr show dev kube-ipvs0 >/dev/null 2>&1 && ipset list KUBE-CLUSTER-IP
`

const flagFile = `--kubeconfig=/var/lib/kube-proxy/kubeconfig
--cluster-cidr=10.244.0.0/16
--proxy-mode=ipvs
--ipvs-scheduler=rr
`

const dockerfile = `FROM registry.k8s.io/kube-proxy:v1.37.2
RUN apt-get update && \
    apt-get install -y --no-install-recommends ipset ipvsadm conntrack && \
    rm -rf /var/lib/apt/lists/*
COPY kube-proxy.yaml /etc/kubernetes/kube-proxy.yaml
ENTRYPOINT ["/usr/local/bin/kube-proxy", "--config=/etc/kubernetes/kube-proxy.yaml"]
`

const makefile = `IMAGE ?= registry.example.com/kube-proxy
.PHONY: build push run
build:
	docker build -t $(IMAGE):dev .
push: build
	docker push $(IMAGE):dev
run:
	sudo ./bin/kube-proxy --kubeconfig=$(HOME)/.kube/config --proxy-mode=nftables --v=4
`

const unitTemplate = `[Unit]
Description=Kubernetes Kube Proxy
[Service]
{% if kube_proxy_mode == 'ipvs' %}
ExecStartPre=/sbin/modprobe ip_vs
{% endif %}
ExecStart={{ bin_dir }}/kube-proxy \
  --proxy-mode={{ kube_proxy_mode }} \
  --kubeconfig={{ kube_config_dir }}/kube-proxy.kubeconfig \
  --v={{ kube_log_level }}
Restart=always
`

const cleanupScript = `#!/bin/bash
MODE=$(kubectl -n kube-system get cm kube-proxy -o jsonpath='{.data.config\.conf}' | awk '/^mode:/{print $2}')
case "$MODE" in
  ipvs)
    ipvsadm --clear
    ip link delete kube-ipvs0 || true
    ;;
  *)
    echo "nothing to clean"
    ;;
esac
`

const helmTemplate = `{{- if .Values.kubeProxy.enabled }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "chart.labels" . | nindent 4 }}
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    clusterCIDR: {{ .Values.clusterCIDR | quote }}
    mode: {{ .Values.mode | default "iptables" }}
    {{- with .Values.ipvs }}
    ipvs:
      {{- toYaml . | nindent 6 }}
    {{- end }}
{{- end }}
`

const healthScript = `#!/bin/sh
curl -sf http://127.0.0.1:10249/metrics >/dev/null || exit 1
curl -sf http://localhost:10256/healthz || exit 1
ETCDCTL_API=3 etcdctl --endpoints=https://127.0.0.1:2379 endpoint health
`

// longScript is a deploy script of several hundred lines that never mentions kube-proxy:
// most of a real tree's scripts.
var longScript = func() string {
	var b strings.Builder
	b.WriteString("#!/usr/bin/env bash\nset -euo pipefail\n# Deploy the application to every environment.\n")
	for i := 0; i < 150; i++ {
		fmt.Fprintf(&b, "deploy_%d() {\n  local env=\"$1\"\n  helm upgrade --install app-%d ./chart --namespace \"$env\" --set image.tag=\"${TAG:-latest}\" --wait\n  kubectl -n \"$env\" rollout status deploy/app-%d --timeout=120s\n}\n", i, i, i)
	}
	b.WriteString("for env in dev staging prod; do\n  deploy_1 \"$env\"\ndone\n")
	return b.String()
}()
