package shell

import (
	"strings"
	"testing"
)

// FuzzParse checks that no input makes the lexer panic and that every offset it returns lies
// inside the input, in every dialect.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"kube-proxy --proxy-mode=ipvs \\\n --v=2\n",
		"cat <<-'EOF' > x\n\tmode: ipvs\n\tEOF\n",
		"if [ \"$m\" = ipvs ]; then ipvsadm -C; fi\ncase $m in ipvs) a;; esac\n",
		"x=\"$(iptables-save | grep `echo KUBE-SVC`)\" ${a:-b} <(ls) 2>&1 >>f <<<w\n",
		"ExecStart=/bin/kube-proxy \\\n# c\n  --v=2\n",
		"CMD [\"kube-proxy\", \"--v=\\\"2\"]\nRUN a \\\n b\n",
		"t:\n\tkube-proxy $(X) \\\n\t--v=2\n",
		"{{ if }}\n{% x %} <% y %> %{ z }\n{{",
		"'unterminated \"also $(( ${ `",
	} {
		f.Add([]byte(s))
	}
	// Nesting that once made the lexer quadratic.
	for _, s := range []string{"$(", "\"$(", "sh -c \"", "`", "<<E\n"} {
		f.Add([]byte(strings.Repeat(s, 3000)))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for d := DialectShell; d <= DialectFlags; d++ {
			s := ParseFile(d, b)
			for _, c := range s.Commands {
				for _, w := range c.Words {
					checkWord(t, b, w)
				}
				for _, r := range c.Redirects {
					checkWord(t, b, r.Target)
				}
				c.Program()
			}
			for _, h := range s.Heredocs {
				if len(h.Offs) != len(h.Body)+1 {
					t.Fatalf("heredoc offsets %d for body %d", len(h.Offs), len(h.Body))
				}
				for _, o := range h.Offs {
					if o < 0 || o > len(b) {
						t.Fatalf("heredoc offset %d outside input of %d", o, len(b))
					}
				}
			}
		}
	})
}

func checkWord(t *testing.T, b []byte, w Word) {
	t.Helper()
	if w.Pos < 0 || w.End > len(b) || w.Pos > w.End {
		t.Fatalf("word %q spans [%d,%d) of %d", w.Text, w.Pos, w.End, len(b))
	}
	if len(w.Offs) != len(w.Text)+1 {
		t.Fatalf("word %q has %d offsets", w.Text, len(w.Offs))
	}
	for _, o := range w.Offs {
		if o < 0 || o > len(b) {
			t.Fatalf("word %q offset %d outside input", w.Text, o)
		}
	}
	x, y := w.Span(0, len(w.Text))
	if x > y || y > len(b) {
		t.Fatalf("span [%d,%d)", x, y)
	}
}

// FuzzNeutralize checks that neutralising templates keeps the length and the line breaks.
func FuzzNeutralize(f *testing.F) {
	f.Add([]byte("{{- if .x }}\nmode: {{ .m }}\n{% if %}<% a %>%{ b }{#c#}\n"))
	f.Add([]byte("{{ unterminated\n{{}}"))
	f.Fuzz(func(t *testing.T, b []byte) {
		n := Neutralize(b)
		if n == nil {
			return
		}
		if len(n) != len(b) {
			t.Fatalf("length %d, want %d", len(n), len(b))
		}
		for i := range b {
			if (b[i] == '\n') != (n[i] == '\n') {
				t.Fatalf("line break moved at %d", i)
			}
		}
	})
}
