package readiness_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/readiness"
)

// TestMilestonesCoverVersionChecks keeps checker.Milestones true to the code: every version
// that a rule or the timeline compares the target with is a milestone, so that running the
// rules at the milestones is running them at every version.
func TestMilestonesCoverVersionChecks(t *testing.T) {
	re := regexp.MustCompile(`AtLeast\((\d+)\)`)
	var files []string
	for _, glob := range []string{"../../rules/*.go", "../*.go", "../../policy/*.go", "../../checker/load/*.go"} {
		m, err := filepath.Glob(glob)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	seen := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllSubmatch(b, -1) {
			minor, _ := strconv.Atoi(string(m[1]))
			seen++
			if !slices.Contains(checker.Milestones, checker.Version{Major: 1, Minor: minor}) {
				t.Errorf("%s checks AtLeast(%d), but 1.%d is not in checker.Milestones", f, minor, minor)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("found only %d version checks; is the scan broken?", seen)
	}
}

func TestLaterVersions(t *testing.T) {
	v := checker.Version{Major: 1, Minor: 34}
	ws := load.Bytes("kube-proxy.yaml", []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"), &v)
	got := readiness.LaterVersions(ws)
	var want []checker.Version
	for _, m := range []int{35, 36, 37, 38, 40, 43} {
		want = append(want, checker.Version{Major: 1, Minor: m})
	}
	if !slices.Equal(got, want) {
		t.Errorf("LaterVersions at 1.34 = %v, want %v", got, want)
	}
	v = checker.Version{Major: 1, Minor: 44}
	ws = load.Bytes("kube-proxy.yaml", []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: ipvs\n"), &v)
	if got := readiness.LaterVersions(ws); len(got) != 0 {
		t.Errorf("LaterVersions past the horizon = %v, want none", got)
	}
}

// TestTimeline checks the states of the version table for the modes.
func TestTimeline(t *testing.T) {
	for _, c := range []struct {
		config string
		want   map[string]checker.State
	}{
		{"mode: ipvs\n", map[string]checker.State{"1.34": "runs", "1.35": "deprecated", "1.39": "deprecated", "1.40": "exits", "1.42": "exits", "1.43": "removed"}},
		{"mode: ipvs\nfeatureGates: {KubeProxyIPVS: true}\n", map[string]checker.State{"1.40": "deprecated", "1.42": "deprecated", "1.43": "removed"}},
		{"mode: ipvs\nfeatureGates: {KubeProxyIPVS: false}\n", map[string]checker.State{"1.36": "deprecated", "1.37": "exits"}},
		{"", map[string]checker.State{"1.34": "runs", "1.39": "runs", "1.40": "switches", "1.41": "runs"}},
		{"mode: iptables\n", map[string]checker.State{"1.34": "runs", "1.43": "runs"}},
		{"mode: nftables\n", map[string]checker.State{"1.34": "runs", "1.43": "runs"}},
		{"mode: IPVS\n", map[string]checker.State{"1.34": "exits"}},
	} {
		v := checker.Version{Major: 1, Minor: 34}
		ws := load.Bytes("kp.yaml", []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n"+c.config), &v)
		if len(ws.Instances) != 1 {
			t.Fatalf("%q: %d instances", c.config, len(ws.Instances))
		}
		got := map[string]checker.State{}
		for _, s := range ws.Instances[0].Timeline(v) {
			got[s.Version.String()] = s.State
		}
		if len(got) != 10 {
			t.Errorf("%q: timeline has %d versions, want 1.34 to 1.43", c.config, len(got))
		}
		for ver, st := range c.want {
			if got[ver] != st {
				t.Errorf("%q at %s: %s, want %s", c.config, ver, got[ver], st)
			}
		}
	}
}
