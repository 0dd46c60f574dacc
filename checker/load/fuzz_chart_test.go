package load

import (
	"strings"
	"testing"
)

// FuzzChartTree: a tree of charts (directories named by dirs, "|"-separated, each with a
// Chart.yaml, nested or under charts/) with one template and one values file in the deepest,
// from the fuzzer. Loading it never panics; every file belongs to at most one chart (each
// read once); no rendered file has the path of a real file; no load problem names a
// rendered file.
func FuzzChartTree(f *testing.F) {
	f.Add("c|c/n|c/n/charts/s", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Values.x }}\n", "x: a\n")
	f.Add("c/@values.yaml|c", "a: {{ .Files.Get \"values.yaml\" | quote }}\n", "x: [1, 2]\n")
	f.Add("|a|a/b|a/b/c", "{{ range until 3 }}- {{ . }}\n{{ end }}", "")
	f.Add("x|x/charts/y|x/charts/y/charts/z", "{{ include \"nope\" . }}", "x: &a [*a]\n")
	f.Fuzz(func(t *testing.T, dirs, tpl, values string) {
		if len(dirs) > 512 || len(tpl) > 4096 || len(values) > 4096 {
			return
		}
		files := map[string][]byte{}
		deepest := ""
		for _, d := range strings.Split(dirs, "|") {
			d = strings.Trim(d, "/")
			if strings.Contains(d, "//") || strings.Contains(d, "\x00") || strings.Contains("/"+d+"/", "/../") || strings.Contains("/"+d+"/", "/./") {
				continue
			}
			files[joinDir(d, "Chart.yaml")] = []byte("apiVersion: v2\nname: c\nversion: 0.1.0\n")
			if len(d) >= len(deepest) {
				deepest = d
			}
		}
		if len(files) == 0 || len(files) > 16 {
			return
		}
		files[joinDir(deepest, "templates/t.yaml")] = []byte(tpl)
		files[joinDir(deepest, "values.yaml")] = []byte(values)
		var inputs []input
		for n := range files {
			inputs = append(inputs, input{name: n})
		}
		charts := findCharts(inputs)
		got, _ := chartFiles(charts, inputs, files, DefaultMaxFileSize)
		seen := 0
		for _, m := range got {
			seen += len(m)
		}
		if seen > len(files) {
			t.Fatalf("%d chart files from %d files: a file is in two charts", seen, len(files))
		}
		ws := Files(files, nil)
		for _, r := range ws.Rendered {
			if _, real := files[r.Path]; real || !strings.Contains(r.Path, virtualMark) {
				t.Fatalf("rendered file %q has a real file's path", r.Path)
			}
		}
		for _, p := range ws.Problems {
			if strings.Contains(p.Pos.Filename, virtualMark) {
				t.Fatalf("a load problem names a rendered file: %s: %s", p.Pos, p.Message)
			}
		}
	})
}
