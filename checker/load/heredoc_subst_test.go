package load

import (
	"testing"
)

// TestShellExpansionSpans checks which parts of an unquoted heredoc body the shell expands.
func TestShellExpansionSpans(t *testing.T) {
	for _, c := range []struct {
		body string
		want []string
	}{
		{"a: `hostname -s`\n", []string{"`hostname -s`"}},
		{"a: $(echo $(date) ')' \")\")\nb: 1\n", []string{`$(echo $(date) ')' ")")`}},
		{"a: ${X:-${Y}}:80 $((1+2))\n", []string{"${X:-${Y}}", "$((1+2))"}},
		{"a: \\$(not) \\`x\\`\n", nil},
		{"a: $(unclosed\nb: `open\n", nil},
		{"a: $X\n", nil},
	} {
		var got []string
		for _, s := range shellExpansionSpans([]byte(c.body)) {
			got = append(got, c.body[s.From:s.To])
		}
		if len(got) != len(c.want) {
			t.Errorf("%q: got %q, want %q", c.body, got, c.want)
			continue
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Errorf("%q: got %q, want %q", c.body, got, c.want)
			}
		}
	}
}
