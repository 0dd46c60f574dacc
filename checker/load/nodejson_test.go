package load

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// sameAsGeneric checks every document of src: nodeJSON, where it answers, reads back as
// json.Marshal of the generic form does.
func sameAsGeneric(t *testing.T, name string, src []byte) {
	t.Helper()
	dec := yaml.NewDecoder(bytes.NewReader(src))
	for i := 0; i < 1000; i++ {
		var n yaml.Node
		if err := dec.Decode(&n); err != nil {
			if !errors.Is(err, io.EOF) {
				return // invalid YAML: the loader reports it, nothing is decoded
			}
			return
		}
		if len(n.Content) == 0 {
			continue
		}
		raw, ok := nodeJSON(n.Content[0])
		if !ok {
			continue
		}
		d := &checker.Document{Node: n.Content[0], File: &checker.File{Path: name, Content: src}}
		g, err := d.Generic()
		if err != nil {
			t.Errorf("%s doc %d: nodeJSON answered where Generic fails: %v", name, i, err)
			continue
		}
		want, err := json.Marshal(g)
		if err != nil {
			continue
		}
		var a, b any
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Errorf("%s doc %d: nodeJSON wrote invalid JSON: %v\n%s", name, i, err, raw)
			continue
		}
		_ = json.Unmarshal(want, &b)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%s doc %d: nodeJSON\n%s\nwant\n%s", name, i, raw, want)
		}
	}
}

// TestNodeJSONMatchesGeneric runs sameAsGeneric over every YAML fixture of the repository.
func TestNodeJSONMatchesGeneric(t *testing.T) {
	root := filepath.Join("..", "..", "fixtures")
	n := 0
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".yaml") && !strings.HasSuffix(p, ".yml") {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		sameAsGeneric(t, p, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("only %d fixtures found", n)
	}
	sameAsGeneric(t, "inline", []byte("a: yes\nb: 0x1F\nc: 1e3\nd: 18446744073709551615\ne: ~\nf: \"\\x01\\u00e9\"\ng: [1, 2.5, -3]\nh: {x: .inf}\ni: 012\nj: !!binary aGk=\nk: 2001-12-14\n? [a]\n: v\nl: a\nl: b\n"))
}

func FuzzNodeJSON(f *testing.F) {
	for _, s := range []string{"a: 1\n", "a: [yes, no, 0o17, 1_000]\n", "a: &x {b: 1}\nc: *x\n", "<<: {a: 1}\n", "\"k\\u0000\": \"\\xff\"\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 4096 {
			return
		}
		sameAsGeneric(t, "fuzz", b)
	})
}
