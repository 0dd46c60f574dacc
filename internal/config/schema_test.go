package config

import (
	"bytes"
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

const schemaFile = "../../docs/config.schema.json"

func configSchema(t *testing.T) (*jsonschema.Schema, map[string]any) {
	t.Helper()
	b, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("config.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("config.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	return s, raw
}

// validYAML validates a YAML document against the schema, as an editor with the schema does.
func validYAML(t *testing.T, s *jsonschema.Schema, src string) error {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(src), &v); err != nil {
		t.Fatalf("yaml: %v\n%s", err, src)
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return s.Validate(inst)
}

// TestSchemaKeys: the schema describes exactly the keys Parse accepts.
func TestSchemaKeys(t *testing.T) {
	_, raw := configSchema(t)
	var props []string
	for k := range raw["properties"].(map[string]any) {
		props = append(props, k)
	}
	sort.Strings(props)
	want := Keys()
	sort.Strings(want)
	if !slices.Equal(props, want) {
		t.Errorf("schema properties %q, Parse keys %q", props, want)
	}
	if raw["additionalProperties"] != false {
		t.Error("the schema must reject unknown keys, as Parse does")
	}
}

// TestSchemaAgreesWithParse: a file is valid for the schema when Parse accepts it (rule names
// are checked against the registry later, so only their form is the schema's business).
func TestSchemaAgreesWithParse(t *testing.T) {
	s, _ := configSchema(t)
	for _, tc := range []struct {
		src   string
		valid bool
	}{
		{"", true},
		{"version: 1\ntarget-version: \"1.40\"\nfail-on: warning\n", true},
		{"target-version: v1.37.2\n", true},
		{"target-version: auto\n", true},
		{"enable: KP603\ndisable: [ipvs-gate, KP104]\n", true},
		{"severity:\n  KP202: error\n  mode-section-unused: info\n", true},
		{"inline-suppressions: false\n", true},
		{"exclusions:\n  - rules: [KP301]\n    paths: [\"clusters/legacy/**\"]\n    message: nodePortAddresses\n    reason: decommissioned\n", true},
		{"policy-dirs: [policies]\nskip: [vendor, \"*.tmpl.yaml\"]\ninclude-testdata: true\ntest-dirs: []\n", true},
		{"baseline: .kube-proxy-lint-baseline.json\nnew-from-rev: origin/main\nmax-file-size: 4MiB\n", true},
		{"new-from-merge-base: main\nmax-file-size: 1048576\n", true},
		{"max-memory: 4GiB\ntimeout: 10m\n", true},
		{"max-memory: 1073741824\ntimeout: 1h30m\n", true},
		{"max-memory: 100\n", false},
		{"max-memory: lots\n", false},
		{"timeout: 10\n", false},
		{"timeout: -5m\n", false},
		{"enabel: [KP101]\n", false},
		{"version: 2\n", false},
		{"fail-on: fatal\n", false},
		{"target-version: latest\n", false},
		{"severity:\n  KP202: fatal\n", false},
		{"exclusions:\n  - rules: [KP301]\n", false},
		{"exclusions:\n  - reason: no selector\n", false},
		{"exclusions:\n  - rules: [KP301]\n    reason: x\n    why: typo\n", false},
		{"new-from-rev: a\nnew-from-merge-base: b\n", false},
		{"new-from-rev: --output=x\n", false},
		{"max-file-size: 4 parsecs\n", false},
		{"max-file-size: 0\n", false},
		{"inline-suppressions: maybe\n", false},
		{"- a\n- b\n", false},
		{"clusters:\n  - name: prod\n    paths: [clusters/prod, \"shared/*.yaml\"]\n    version: \"1.34\"\n  - name: dev\n    paths: dev\n", true},
		{"clusters:\n  - name: prod\n    paths: [a]\n    version: v1.34.2\n", true},
		{"clusters:\n  - name: prod\n", false},
		{"clusters:\n  - paths: [a]\n", false},
		{"clusters:\n  - name: a\n    paths: [a]\n    versions: \"1.34\"\n", false},
		{"clusters:\n  - name: a\n    paths: [a]\n    version: latest\n", false},
		{"clusters:\n  - name: a\n    paths: []\n", false},
		{"clusters:\n  - name: \"\"\n    paths: [a]\n", false},
		{"clusters: prod\n", false},
	} {
		_, perr := Parse("c.yaml", []byte(tc.src))
		serr := validYAML(t, s, tc.src)
		if (perr == nil) != tc.valid || (serr == nil) != tc.valid {
			t.Errorf("%q: Parse error %v, schema error %v; want valid=%v", tc.src, perr, serr, tc.valid)
		}
	}
}

// TestDocExamplesMatchSchema validates the configuration examples of the README and
// docs/config.md against the schema.
func TestDocExamplesMatchSchema(t *testing.T) {
	s, _ := configSchema(t)
	re := regexp.MustCompile("(?s)```yaml\n(# \\.kube-proxy-lint\\.yaml\n.*?)```")
	n := 0
	for _, file := range []string{"../../README.md", "../../docs/config.md"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			n++
			if err := validYAML(t, s, m[1]); err != nil {
				t.Errorf("%s: example does not match the schema: %v\n%s", file, err, m[1])
			}
			if _, err := Parse("example", []byte(m[1])); err != nil {
				t.Errorf("%s: example does not parse: %v", file, err)
			}
		}
	}
	if n < 2 {
		t.Errorf("found %d configuration examples; the docs name them with a first line # .kube-proxy-lint.yaml", n)
	}
	// What config print writes is a valid file too.
	out, err := (&Config{TargetVersion: "1.40", Enable: []string{"KP603"}, Baseline: "b.json"}).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := validYAML(t, s, string(out)); err != nil || !strings.Contains(string(out), "baseline: b.json") {
		t.Errorf("Marshal output does not match the schema: %v\n%s", err, out)
	}
}
