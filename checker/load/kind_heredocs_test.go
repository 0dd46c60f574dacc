package load

import "testing"

// TestKindHeredocClusters: two kind clusters written by heredocs of one script are two
// clusters, each with its own mode, version and replacement, positioned in the script; one
// kind heredoc alone anchors the script's directory as a kind file does.
func TestKindHeredocClusters(t *testing.T) {
	const two = `#!/bin/sh
for mode in a b; do :; done
cat <<EOF | kind create cluster --name ipvs --config=-
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
networking:
  kubeProxyMode: ipvs
nodes:
- role: control-plane
  image: kindest/node:v1.33.1
EOF
cat > /tmp/kind.yaml <<'EOF'
kind: Cluster
apiVersion: kind.x-k8s.io/v1alpha4
networking:
  kubeProxyMode: none
EOF
kind create cluster --config /tmp/kind.yaml
`
	ws := Files(map[string][]byte{"hack/e2e.sh": []byte(two)}, nil)
	modes := map[string]string{}
	for _, in := range ws.Instances {
		c := ws.InstanceCluster(in)
		if c == nil || in.Installer == nil {
			t.Fatalf("instance %s: cluster %v, installer %v", in.Label, c, in.Installer)
		}
		s := in.Installer.Mode
		if s == nil {
			s = in.Installer.Disabled
		}
		pos := ws.MapPosition(s.ValuePos)
		modes[c.Name] = s.Value + " at " + pos.String() + ", target " + ws.ClusterTarget(c).Version.String()
	}
	want := map[string]string{
		"hack (e2e.sh line 4)":  "ipvs at hack/e2e.sh:7:18, target 1.33",
		"hack (e2e.sh line 13)": "none at hack/e2e.sh:16:18, target 1.40",
	}
	if len(modes) != len(want) {
		t.Fatalf("clusters %v, want %v", modes, want)
	}
	for k, v := range want {
		if modes[k] != v {
			t.Errorf("cluster %q: %q, want %q", k, modes[k], v)
		}
	}
	r := ws.Replaced()
	if len(r.All) != 1 || r.Conflicting[0] || r.Clusters[0] == nil || r.Clusters[0].Name != "hack (e2e.sh line 13)" {
		t.Errorf("replacements %+v, conflicting %v: want the none cluster's only, in no conflict", r.All, r.Conflicting)
	}

	one := two[:len(two)-len("cat > /tmp/kind.yaml <<'EOF'\nkind: Cluster\napiVersion: kind.x-k8s.io/v1alpha4\nnetworking:\n  kubeProxyMode: none\nEOF\nkind create cluster --config /tmp/kind.yaml\n")]
	ws = Files(map[string][]byte{"hack/e2e.sh": []byte(one)}, nil)
	if len(ws.Instances) != 1 || len(ws.Rendered) != 0 {
		t.Fatalf("one kind heredoc: %d instances, %d virtual files, want 1 and 0", len(ws.Instances), len(ws.Rendered))
	}
	if c := ws.InstanceCluster(ws.Instances[0]); c == nil || c.Root != "hack" || c.Virtual() != "" {
		t.Errorf("one kind heredoc: cluster %+v, want the script's directory", c)
	}
}
