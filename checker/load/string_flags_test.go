package load

import (
	"os"
	"testing"
)

// A variable that reaches --kube-proxy-arg on a k3s install line is the setting: the flag
// points at the assignment's value and notes the use.
func TestK3sVariableVia(t *testing.T) {
	ws := loadDir(t, "../../fixtures/rules/KP102/installer-k3s-variables", Options{})
	got := map[string][]string{}
	for _, in := range ws.Instances {
		if in.Installer == nil || in.Source == nil {
			continue
		}
		fl := in.Flag("proxy-mode")
		if fl == nil {
			t.Fatalf("instance %s has no proxy-mode", in.Label)
		}
		s := []string{fl.Value, fl.Pos.String()}
		for _, r := range fl.Via {
			s = append(s, r.Pos.String(), r.Message)
		}
		got[in.Source.Path] = s
	}
	want := map[string][]string{
		"install.sh": {"ipvs", "install.sh:5:15", "install.sh:6:76", "${MODE} is expanded here"},
		"agent.sh":   {"ipvs", "agent.sh:3:9", "agent.sh:4:84", "$KP_MODE is expanded here"},
		"arg.sh":     {"ipvs", "arg.sh:6:36", "arg.sh:8:47", "$KUBE_PROXY_ARG is expanded here"},
	}
	for k, w := range want {
		if g := got[k]; len(g) != len(w) || func() bool {
			for i := range g {
				if g[i] != w[i] {
					return true
				}
			}
			return false
		}() {
			t.Errorf("%s: got %q, want %q", k, got[k], w)
		}
	}
}

// Flags in strings become one instance per string or list, none for the negative fixtures,
// and flags another finder read are not found twice.
func TestStringFlagInstances(t *testing.T) {
	count := func(dir string) (n int, labels []string) {
		ws := loadDir(t, dir, Options{})
		for _, in := range ws.Instances {
			if in.Flag("proxy-mode") != nil {
				n++
				labels = append(labels, in.Label)
			}
		}
		return n, labels
	}
	for _, tc := range []struct {
		file string
		want int
	}{
		{"string-flags.yaml", 7},
		{"string-flags.tf", 3},
		{"string-flags-templated.yaml", 4},
		{"negative-string-flags.yaml", 0},
		{"negative-string-flags.tf", 0},
		{"installer-k3s-config.yaml", 1},
		{"installer-k3d.yaml", 1},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b, err := os.ReadFile("../../fixtures/rules/KP102/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			dir := writeTree(t, map[string]string{tc.file: string(b)})
			if n, labels := count(dir); n != tc.want {
				t.Errorf("%d instances with proxy-mode, want %d: %q", n, tc.want, labels)
			}
		})
	}
}
