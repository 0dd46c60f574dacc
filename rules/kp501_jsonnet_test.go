package rules

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
)

// TestJsonnetStrings checks values, keys, offsets and comment skipping of the jsonnet
// string scanner.
func TestJsonnetStrings(t *testing.T) {
	src := "// 'no'\n# \"no\"\n/* 'no' */ {\n  alert: 'A',\n  expr: \"x\\\"y\\u0041\",\n  v: @'it''s',\n  t: |||\n    a\n\n      b\n  |||,\n  l: ['m', n('o')],\n  x: std.format('q', 1),\n  k+: 'p',\n}\n"
	got := jsonnetStrings([]byte(src))
	type str struct {
		Value, Key, Alert string
		Element           bool
	}
	var vals []str
	for _, s := range got {
		vals = append(vals, str{s.Value, s.Key, s.Alert, s.Element})
		if len(s.Offs) != len(s.Value)+1 {
			t.Fatalf("%q: %d offsets for %d bytes", s.Value, len(s.Offs), len(s.Value))
		}
	}
	want := []str{
		{"A", "alert", "", false},
		{`x"yA`, "expr", "A", false},
		{"it's", "v", "A", false},
		{"a\n\n  b\n", "t", "A", false},
		{"m", "", "", true},
		{"o", "", "", false},
		{"q", "", "A", false},
		{"p", "k", "A", false},
	}
	if !reflect.DeepEqual(vals, want) {
		t.Fatalf("got %+v\nwant %+v", vals, want)
	}
	// Every byte written verbatim maps to itself in the source.
	for _, s := range got {
		for k := range s.Value {
			if s.exact(k, k+1) && src[s.Offs[k]] != s.Value[k] {
				t.Errorf("%q[%d] maps to %q", s.Value, k, src[s.Offs[k]])
			}
		}
	}
	if s := got[1]; s.exact(1, 3) || !s.exact(0, 1) || s.exact(3, 4) {
		t.Errorf("escapes must not be exact: %v", s.Offs)
	}
	if s := got[3]; !s.exact(5, 6) || s.exact(0, 3) {
		t.Errorf("text block offsets: %v", s.Offs)
	}
}

// TestJsonnetStringsTruncated scans every prefix and suffix of a tricky source: no panic,
// offsets inside the source.
func TestJsonnetStringsTruncated(t *testing.T) {
	in := "{a: 'x\\u00', b: @\"y\"\"z\", c: |||-\n  q\n |||, /* d */ e: \"\\\n\"} # f\n|||\n"
	for i := 0; i <= len(in); i++ {
		for _, s := range []string{in[:i], in[i:]} {
			for _, str := range jsonnetStrings([]byte(s)) {
				for _, o := range str.Offs {
					if o < 0 || o > len(s) {
						t.Fatalf("jsonnetStrings(%q): offset %d out of range", s, o)
					}
				}
			}
		}
	}
}

// TestKP501JsonnetGolden applies the first fix of every KP501 finding of the jsonnet
// fixture workspace and compares each fixed file with its .golden sibling (the fixture
// harness checks goldens of single-file fixtures only).
func TestKP501JsonnetGolden(t *testing.T) {
	dir := filepath.Join("..", "fixtures", "rules", "KP501", "jsonnet-mixin")
	v, _ := checker.ParseVersion("1.40")
	ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir, Target: &v})
	if err != nil {
		t.Fatal(err)
	}
	edits := map[string][]checker.TextEdit{}
	n := 0
	if err := KP501.Run(checker.NewPass(KP501, ws, func(f checker.Finding) {
		n++
		if len(f.Fixes) > 0 {
			for _, e := range f.Fixes[0].Edits {
				edits[e.Pos.Filename] = append(edits[e.Pos.Filename], e)
			}
		}
	})); err != nil {
		t.Fatal(err)
	}
	if n != 6 || len(edits) != 2 {
		t.Fatalf("%d findings, fixes in %d files; want 6 findings, fixes in 2 files", n, len(edits))
	}
	for _, f := range ws.Files {
		es := edits[f.Path]
		if len(es) == 0 {
			continue
		}
		got, err := checker.ApplyEdits(f.Content, es)
		if err != nil {
			t.Fatal(err)
		}
		want, err := os.ReadFile(filepath.Join(dir, f.Path+".golden"))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("fixed %s differs from its golden:\n%s", f.Path, got)
		}
		// The fixed file is clean for KP501 apart from findings without a fix.
		_, fs := runOn(t, KP501, map[string]string{"kube-proxy.yaml": "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\n", f.Path: string(got)}, "1.40")
		for _, x := range fs {
			if len(x.Fixes) > 0 {
				t.Errorf("%s: still fixable after the fix: %s", x.Pos, x.Message)
			}
		}
	}
}

// TestKP501JsonnetModes checks the scope: no finding without a kube-proxy, none when the
// mode exports the metric, and the ipvs equivalent of a full-sync histogram.
func TestKP501JsonnetModes(t *testing.T) {
	src := "{ expr: 'rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total[5m])', q: 'kubeproxy_sync_full_proxy_rules_duration_seconds_bucket' }\n"
	if _, fs := runOn(t, KP501, map[string]string{"m.jsonnet": src}, "1.40"); len(fs) != 0 {
		t.Errorf("no kube-proxy in scope: %d findings", len(fs))
	}
	kpc := "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: "
	if _, fs := runOn(t, KP501, map[string]string{"kpc.yaml": kpc + "iptables\n", "m.jsonnet": src}, "1.40"); len(fs) != 0 {
		t.Errorf("iptables mode: %d findings", len(fs))
	}
	_, fs := runOn(t, KP501, map[string]string{"kpc.yaml": kpc + "ipvs\n", "m.jsonnet": src}, "1.34")
	if len(fs) != 1 || fs[0].Pos.String() != "m.jsonnet:1:85" || len(fs[0].Fixes) != 1 ||
		!strings.Contains(fs[0].Fixes[0].Edits[0].NewText, "kubeproxy_sync_proxy_rules_duration_seconds_bucket") {
		t.Fatalf("ipvs mode: %+v", fs)
	}
}

// BenchmarkKP501Jsonnet runs KP501 on a generated 1 MiB mixin next to a kube-proxy in
// nftables mode: one scan per file, linear in its size.
func BenchmarkKP501Jsonnet(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("{\n  groups: [{\n    name: 'g',\n    rules: [\n")
	for sb.Len() < 1<<20 {
		sb.WriteString("      // kubeproxy_sync_proxy_rules_iptables_total in a comment\n")
		sb.WriteString("      { alert: 'A', expr: 'rate(kubeproxy_sync_proxy_rules_iptables_restore_failures_total{job=\"kube-proxy\"}[5m]) > 0' },\n")
		sb.WriteString("      { record: 'r', expr: |||\n          sum(kubeproxy_sync_proxy_rules_duration_seconds_count)\n        ||| },\n")
	}
	sb.WriteString("    ],\n  }],\n}\n")
	v, _ := checker.ParseVersion("1.40")
	ws := load.Files(map[string][]byte{
		"kpc.yaml":        []byte("apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: nftables\n"),
		"mixin.libsonnet": []byte(sb.String()),
	}, &v)
	b.SetBytes(int64(sb.Len()))
	b.ResetTimer()
	for b.Loop() {
		n := 0
		if err := KP501.Run(checker.NewPass(KP501, ws, func(checker.Finding) { n++ })); err != nil || n == 0 {
			b.Fatal(err, n)
		}
	}
}
