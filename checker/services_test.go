package checker_test

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

func TestParsePortRange(t *testing.T) {
	for s, want := range map[string]checker.PortRange{
		"30000-32767": {Min: 30000, Max: 32767},
		"20000-20999": {Min: 20000, Max: 20999},
		"30000+100":   {Min: 30000, Max: 30099},
		"31000":       {Min: 31000, Max: 31000},
	} {
		got, ok := checker.ParsePortRange(s)
		if !ok || got.Min != want.Min || got.Max != want.Max {
			t.Errorf("ParsePortRange(%q) = %v %v, want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "a-b", "32767-30000", "0-10", "30000-70000", "1+70000"} {
		if _, ok := checker.ParsePortRange(s); ok {
			t.Errorf("ParsePortRange(%q) accepted", s)
		}
	}
}

// TestNodePortRange checks each place the range is configured, and that a range applies only
// to its own cluster scope.
func TestNodePortRange(t *testing.T) {
	files := map[string][]byte{
		"a/kubeadm.yaml":       []byte("apiVersion: kubeadm.k8s.io/v1beta3\nkind: ClusterConfiguration\napiServer:\n  extraArgs:\n    service-node-port-range: \"20000-20999\"\n"),
		"b/kustomization.yaml": []byte("resources: [apiserver.yaml]\n"),
		"b/apiserver.yaml":     []byte("apiVersion: v1\nkind: Pod\nmetadata:\n  name: kube-apiserver\nspec:\n  containers:\n  - name: kube-apiserver\n    command:\n    - kube-apiserver\n    - --service-node-port-range=21000-21999\n"),
		"c/kubeadm.yaml":       []byte("apiVersion: kubeadm.k8s.io/v1beta4\nkind: ClusterConfiguration\napiServer:\n  extraArgs:\n  - name: service-node-port-range\n    value: 22000+1000\n"),
		"d/kustomization.yaml": []byte("resources: []\n"),
		"d/install.sh":         []byte("#!/bin/sh\n# --service-node-port-range=1-2 in a comment\nkube-apiserver --service-node-port-range 23000-23999 --v=2\n"),
		"e/kustomization.yaml": []byte("resources: []\n"),
	}
	ws := load.Files(files, nil)
	tests := map[string]string{
		"a/x.sh": "20000-20999", "b/x.sh": "21000-21999", "c/x.sh": "22000-22999", "d/x.sh": "23000-23999", "e/x.sh": "30000-32767",
	}
	for file, want := range tests {
		r := ws.NodePortRange(file)
		if r.String() != want {
			t.Errorf("NodePortRange(%s) = %s (%s), want %s", file, r, r.Source, want)
		}
		if want != "30000-32767" && (!r.Pos.IsValid() || r.Pos.Filename[0] != file[0]) {
			t.Errorf("NodePortRange(%s) position %s", file, r.Pos)
		}
	}
	if r := ws.NodePortRange("d/x.sh"); r.Pos.Line != 3 || r.Pos.Column != 42 {
		t.Errorf("script range at %s", r.Pos)
	}
}

func TestNodePorts(t *testing.T) {
	ws := load.Bytes("svc.yaml", []byte(`apiVersion: v1
kind: Service
metadata: {name: np, namespace: web}
spec:
  type: NodePort
  ports:
  - {port: 80, nodePort: 30080}
  - {port: 53, protocol: UDP}
---
apiVersion: v1
kind: Service
metadata: {name: lb}
spec:
  type: LoadBalancer
  allocateLoadBalancerNodePorts: false
  ports: [{port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: cip}
spec:
  ports: [{port: 80}]
`), nil)
	nps := ws.NodePorts()
	if len(nps) != 2 {
		t.Fatalf("NodePorts = %+v", nps)
	}
	if nps[0].Port != 30080 || nps[0].Protocol != "TCP" || nps[0].Label() != "Service web/np" || nps[0].Path.String() != "spec.ports[0].nodePort" {
		t.Errorf("first: %+v", nps[0])
	}
	if nps[1].Port != 0 || nps[1].Protocol != "UDP" || nps[1].Path.String() != "spec.ports[1]" {
		t.Errorf("second: %+v", nps[1])
	}
}

// TestScopeIndex keeps ScopeIndex.Same equal to Workspace.SameScope.
func TestScopeIndex(t *testing.T) {
	ws := &checker.Workspace{}
	var cs []*checker.Cluster
	for _, r := range []string{"clusters/a", "clusters/a/b", "clusters/ab", "x"} {
		cs = append(cs, &checker.Cluster{Name: r, Root: r})
	}
	ws.SetClusters(cs, nil)
	files := []string{"f.sh", "clusters/a/f", "clusters/a/b/f", "clusters/a/bc/f", "clusters/ab/f", "clusters/f", "x/y/f", "xy/f", "tests/a/f", "tests/b/f"}
	idx := ws.NewScopeIndex()
	for _, a := range files {
		for _, b := range files {
			if got, want := idx.Same(a, b), ws.SameScope(a, b); got != want {
				t.Errorf("Same(%s, %s) = %v, SameScope = %v", a, b, got, want)
			}
		}
	}
}
