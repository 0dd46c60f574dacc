package checker

import (
	"testing"

	"go.yaml.in/yaml/v3"
)

// FuzzDecimalInt: where decimalInt answers, the YAML decoder reads the same int64 from the
// same plain scalar.
func FuzzDecimalInt(f *testing.F) {
	for _, s := range []string{"0", "42", "-7", "007", "-0", "999999999999999999", "1_000", "+1", "0x1f", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := decimalInt(s)
		if !ok {
			return
		}
		n := &yaml.Node{Kind: yaml.ScalarNode, Value: s}
		if n.ShortTag() != "!!int" {
			t.Fatalf("decimalInt(%q) answered for a %s scalar", s, n.ShortTag())
		}
		var want int64
		if err := n.Decode(&want); err != nil || want != v {
			t.Fatalf("decimalInt(%q) = %d, the decoder says %d (%v)", s, v, want, err)
		}
	})
}
