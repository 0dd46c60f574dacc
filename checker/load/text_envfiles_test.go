package load

import (
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// A unit's EnvironmentFile= resolves by base name in its cluster (or, outside any cluster, to
// the workspace's only file of that name); the flags point into the environment file and note
// the ExecStart word that expands the variable.
func TestEnvFileByName(t *testing.T) {
	for _, tc := range []struct {
		dir, unit string
		want      []string // proxy-mode value, the flag's position, then the note's
	}{
		{"env-file-by-name", "roles/node/templates/kube-proxy.service.j2", []string{"ipvs", "roles/node/files/proxy:3:18", "roles/node/templates/kube-proxy.service.j2:6:77"}},
		{"env-file-clusters", "a/kube-proxy.service", []string{"ipvs", "a/files/proxy:2:18", "a/kube-proxy.service:3:31"}},
		{"env-file-clusters", "b/kube-proxy.service", []string{"iptables", "b/files/proxy:1:18", "b/kube-proxy.service:3:31"}},
		{"negative-env-file-by-name", "ambiguous/units/kube-proxy.service", nil},
	} {
		t.Run(tc.dir+"/"+tc.unit, func(t *testing.T) {
			dir := "../../fixtures/rules/KP102/" + tc.dir
			ws := loadDir(t, dir, Options{})
			var got []string
			for _, in := range ws.Instances {
				if in.Kind != checker.InstanceCommand || in.Source == nil || in.Source.Path != tc.unit {
					continue
				}
				fl := in.Flag("proxy-mode")
				if fl == nil {
					t.Fatalf("instance %s has no --proxy-mode", in.Label)
				}
				got = append(got, fl.Value, fl.Pos.String())
				for _, r := range fl.Via {
					got = append(got, r.Pos.String())
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("got %q, want %q", got, tc.want)
					break
				}
			}
		})
	}
}
