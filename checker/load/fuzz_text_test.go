package load

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// FuzzTextFiles checks the text inputs (scripts, units, Dockerfiles, Makefiles, flag files,
// templates): no panic, every position inside the file, every removal edit applicable.
func FuzzTextFiles(f *testing.F) {
	for _, pat := range []string{"../../fixtures/rules/*/*.sh", "../../fixtures/rules/*/*.service", "../../fixtures/rules/*/Dockerfile", "../../fixtures/rules/*/Makefile", "../../fixtures/rules/*/*.flags", "../../fixtures/precision/text/*"} {
		seeds, _ := filepath.Glob(pat)
		for _, s := range seeds {
			if b, err := os.ReadFile(s); err == nil {
				f.Add(uint8(0), b)
			}
		}
	}
	f.Add(uint8(4), []byte("{{- if x }}\nkind: KubeProxyConfiguration\nmode: {{ m }}\n{{ end }}\n"))
	f.Fuzz(func(t *testing.T, kind uint8, b []byte) {
		names := []string{"x.sh", "kube-proxy.service", "Dockerfile", "Makefile", "x.yaml.j2", "kube-proxy.flags"}
		ws := Bytes(names[int(kind)%len(names)], b, nil)
		check := func(p checker.Position) {
			if p.Offset < 0 || p.Offset > len(b) {
				t.Fatalf("position out of range: %+v (len %d)", p, len(b))
			}
		}
		for _, p := range ws.Problems {
			check(p.Pos)
		}
		for _, d := range ws.Docs {
			pos, end := d.KindPos()
			check(pos)
			check(end)
		}
		for _, in := range ws.Instances {
			check(in.Program)
			check(in.ProgramEnd)
			for _, fl := range in.Flags {
				check(fl.Pos)
				check(fl.End)
				check(fl.ValuePos)
				check(fl.ValueEnd)
				if _, err := checker.ApplyEdits(b, fl.Remove); err != nil {
					t.Fatalf("remove edits of %s: %v", fl.Name, err)
				}
			}
			in.Mode(ws.Target.Version)
		}
	})
}
