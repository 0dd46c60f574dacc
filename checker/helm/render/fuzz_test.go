package render

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/helm"

	"strings"
	"testing"
)

// FuzzSplit: whatever a rendering writes (a value holding marker-like text included),
// removing the markers never panics, removes every well-formed marker, and the segments
// cover the output in order.
func FuzzSplit(f *testing.F) {
	f.Add("⟦f0⟧a: ⟦e0.3⟧x⟦s0.4⟧\n")
	f.Add("⟦f0⟧⟦s0.0⟧abc⟦e0.99999999⟧⟦s9.1⟧⟦s0.-1⟧⟦x⟧⟦")
	f.Add("⟦f1⟧⟦s1.2⟧" + strings.Repeat("z", 40))
	files := map[string][]byte{"templates/a.yaml": []byte("abc: def\n"), "templates/b.yaml": []byte("x")}
	names := []string{"templates/a.yaml", "templates/b.yaml"}
	f.Fuzz(func(t *testing.T, text string) {
		o := split(text, names, files)
		at := 0
		for _, s := range o.Segments {
			if s.From != at || s.To <= s.From || s.To > len(o.Content) {
				t.Fatalf("segments %+v over %d bytes", o.Segments, len(o.Content))
			}
			at = s.To
		}
		if len(o.Segments) > 0 && at != len(o.Content) {
			t.Fatalf("segments end at %d of %d", at, len(o.Content))
		}
	})
}

// A value that holds marker-like text renders and maps without harm.
func TestFakeMarkersInValues(t *testing.T) {
	files := map[string][]byte{
		"Chart.yaml":       []byte("apiVersion: v2\nname: m\nversion: 0.1.0\n"),
		"values.yaml":      []byte("x: \"⟦s0.99999⟧⟦e0.0⟧⟦f0⟧ipvs\"\n"),
		"templates/a.yaml": []byte("a: {{ .Values.x | quote }}\n"),
	}
	res, err := Render(helm.Request{Files: files})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Outputs) != 1 || !strings.HasPrefix(string(res.Outputs[0].Content), "a: \"") {
		t.Fatalf("%+v", res.Outputs)
	}
}
