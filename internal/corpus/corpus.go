// Package corpus generates synthetic infrastructure repositories for benchmarks and
// end-to-end tests: kube-proxy DaemonSets and ConfigMaps, kubeadm configs, Services,
// unrelated workloads and files the linter must skip.
package corpus

import (
	"fmt"
	"os"
	"path/filepath"
)

// Generate writes about n files below dir, spread over nested directories, and returns the
// number written. The content is deterministic.
func Generate(dir string, n int) (int, error) {
	written := 0
	for i := 0; written < n; i++ {
		sub := filepath.Join(dir, fmt.Sprintf("cluster-%03d", i/50), fmt.Sprintf("app-%02d", i%50))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return written, fmt.Errorf("generate corpus: %w", err)
		}
		var files map[string]string
		switch i % 10 {
		case 0:
			files = map[string]string{
				"kube-proxy-ds.yaml":  daemonSet,
				"kube-proxy-cm.yaml":  fmt.Sprintf(configMap, []string{"ipvs", "iptables", "", "nftables"}[i%4]),
				"kubeadm-config.yaml": kubeadm,
			}
		default:
			files = map[string]string{
				"deployment.yaml": fmt.Sprintf(deployment, i),
				"service.yaml":    fmt.Sprintf(service, i, 30000+i%2767),
				"README.md":       "# app\n\nnot scanned\n",
				"values.json":     `{"replicas": 3, "image": {"tag": "v1"}}`,
			}
		}
		for name, content := range files {
			if written >= n {
				break
			}
			if err := os.WriteFile(filepath.Join(sub, name), []byte(content), 0o644); err != nil {
				return written, fmt.Errorf("generate corpus: %w", err)
			}
			written++
		}
	}
	return written, nil
}

const daemonSet = `apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: kube-proxy
  namespace: kube-system
  labels:
    k8s-app: kube-proxy
spec:
  selector:
    matchLabels:
      k8s-app: kube-proxy
  template:
    metadata:
      labels:
        k8s-app: kube-proxy
    spec:
      hostNetwork: true
      priorityClassName: system-node-critical
      serviceAccountName: kube-proxy
      containers:
      - name: kube-proxy
        image: registry.k8s.io/kube-proxy:v1.37.2
        command:
        - /usr/local/bin/kube-proxy
        - --config=/var/lib/kube-proxy/config.conf
        - --hostname-override=$(NODE_NAME)
        - --proxy-mode=iptables
        env:
        - name: NODE_NAME
          valueFrom:
            fieldRef:
              fieldPath: spec.nodeName
        securityContext:
          privileged: true
        volumeMounts:
        - mountPath: /var/lib/kube-proxy
          name: kube-proxy
        - mountPath: /run/xtables.lock
          name: xtables-lock
        - mountPath: /lib/modules
          name: lib-modules
          readOnly: true
      volumes:
      - name: kube-proxy
        configMap:
          name: kube-proxy
      - name: xtables-lock
        hostPath:
          path: /run/xtables.lock
          type: FileOrCreate
      - name: lib-modules
        hostPath:
          path: /lib/modules
`

const configMap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |-
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    bindAddress: 0.0.0.0
    clientConnection:
      kubeconfig: /var/lib/kube-proxy/kubeconfig.conf
    clusterCIDR: 10.244.0.0/16
    iptables:
      masqueradeAll: true
      syncPeriod: 30s
    ipvs:
      scheduler: rr
      strictARP: true
    mode: %q
  kubeconfig.conf: |-
    apiVersion: v1
    kind: Config
    clusters:
    - cluster:
        server: https://10.0.0.1:6443
      name: default
`

const kubeadm = `apiVersion: kubeadm.k8s.io/v1beta4
kind: ClusterConfiguration
kubernetesVersion: v1.37.2
networking:
  podSubnet: 10.244.0.0/16
---
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
mode: ipvs
ipvs:
  strictARP: true
`

const deployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: app-%d
  namespace: default
spec:
  replicas: 2
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        args: ["--port", "8080"]
        ports:
        - containerPort: 8080
        readinessProbe:
          httpGet: {path: /healthz, port: 8080}
`

const service = `apiVersion: v1
kind: Service
metadata:
  name: app-%d
spec:
  type: NodePort
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
    nodePort: %d
`
