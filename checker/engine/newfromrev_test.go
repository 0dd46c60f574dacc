package engine

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// fakeChanges: changed lines per file and lines removed after a line.
type fakeChanges struct {
	lines   map[string][]int
	removed map[string][]int
}

func (c fakeChanges) Changed(file string, from, to int) bool {
	ls, ok := c.lines[file]
	if from == 0 {
		return ok || len(c.removed[file]) > 0
	}
	for _, l := range ls {
		if from <= l && l <= to {
			return true
		}
	}
	return false
}

func (c fakeChanges) Edited(file string, from, to int) bool {
	if c.Changed(file, from, to) {
		return true
	}
	for _, a := range c.removed[file] {
		if from-1 <= a && a <= to {
			return true
		}
	}
	return false
}

func TestFilterChanged(t *testing.T) {
	// A ConfigMap with an embedded KubeProxyConfiguration that lacks mode (line 9 is its
	// kind), then a second document.
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kube-proxy\n" +
		"data:\n  config.conf: |\n    apiVersion: kubeproxy.config.k8s.io/v1alpha1\n" +
		"    kind: KubeProxyConfiguration\n    clusterCIDR: 10.0.0.0/8\n---\napiVersion: v1\nkind: Service\n"
	ws := load.Files(map[string][]byte{"cm.yaml": []byte(cm), "ds.yaml": []byte("kind: DaemonSet\n")}, nil)
	if len(ws.Files[0].Docs) != 2 || len(ws.Files[0].Docs[0].Embedded) != 1 {
		t.Fatalf("fixture did not load as expected: %d docs", len(ws.Files[0].Docs))
	}
	kpc := &checker.ObjectRef{Kind: "KubeProxyConfiguration", Document: 0, Embedded: "data.config.conf"}
	pos := func(file string, line int) checker.Position {
		return checker.Position{Filename: file, Line: line, Column: 1}
	}
	r := rule("KP101", "x", func(p *checker.Pass) error {
		p.Report(checker.Finding{Message: "on changed line", Pos: pos("ds.yaml", 1)})
		p.Report(checker.Finding{Message: "old", Pos: pos("cm.yaml", 4)})
		p.Report(checker.Finding{Message: "span reaches a changed line", Pos: pos("cm.yaml", 2), End: pos("cm.yaml", 3)})
		p.Report(checker.Finding{Message: "related changed", Pos: pos("cm.yaml", 1),
			Related: []checker.Related{{Pos: pos("ds.yaml", 1), Message: "here"}}})
		p.Report(checker.Finding{Message: "absent mode, document edited", Pos: pos("cm.yaml", 8), Object: kpc, Path: checker.P("mode")})
		p.Report(checker.Finding{Message: "present field, line not changed", Pos: pos("cm.yaml", 9), Object: kpc, Path: checker.P("clusterCIDR")})
		p.Report(checker.Finding{Message: "file level, file unchanged", Pos: checker.Position{Filename: "other.yaml"}})
		p.Report(checker.Finding{Message: "no file"})
		return nil
	})
	broken := rule("KP102", "broken", func(*checker.Pass) error { return errors.New("boom") })
	changes := fakeChanges{
		lines:   map[string][]int{"ds.yaml": {1}, "cm.yaml": {3}},
		removed: map[string][]int{"cm.yaml": {9}}, // "mode: ipvs" removed after line 9
	}
	out, err := RunWith(context.Background(), ws, []*checker.Rule{r, broken}, Processing{Changes: changes})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Findings {
		got = append(got, f.Message)
	}
	want := []string{
		"no file",
		"related changed",
		"internal error: rule failed: boom",
		"span reaches a changed line",
		"absent mode, document edited",
		"on changed line",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("kept %q,\nwant %q", got, want)
	}

	// Without changes nothing is filtered.
	out, err = RunWith(context.Background(), ws, []*checker.Rule{r}, Processing{})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Findings) != 8 {
		t.Errorf("without a change set: %d findings, want 8", len(out.Findings))
	}
}
