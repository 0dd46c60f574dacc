package shell

import (
	"bytes"
	"fmt"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"testing"
)

func words(c Command) []string {
	var out []string
	for _, w := range c.Words {
		out = append(out, w.Text)
	}
	return out
}

func TestParseCommandsAndOffsets(t *testing.T) {
	src := []byte("#!/bin/sh\n# kube-proxy --proxy-mode=ipvs\nFOO=1 exec \"/usr/bin/kube-proxy\" \\\n  --proxy-mode='ipvs' --v=2 | tee log; echo a#b && echo done\n")
	s := Parse(src, 0, len(src), Options{})
	if len(s.Commands) != 4 {
		t.Fatalf("got %d commands: %+v", len(s.Commands), s.Commands)
	}
	c := s.Commands[0]
	if got := strings.Join(words(c), " "); got != "FOO=1 exec /usr/bin/kube-proxy --proxy-mode=ipvs --v=2" {
		t.Errorf("words = %q", got)
	}
	if p := c.Program(); p != 2 || c.Name() != "kube-proxy" {
		t.Errorf("program = %d %q", p, c.Name())
	}
	if !c.PipeOut || !s.Commands[1].PipeIn {
		t.Error("pipe not recorded")
	}
	// The quoted program word spans its quotes; Span of the text leaves them out.
	w := c.Words[2]
	if string(src[w.Pos:w.End]) != `"/usr/bin/kube-proxy"` {
		t.Errorf("word span %q", src[w.Pos:w.End])
	}
	a, b := w.Span(0, len(w.Text))
	if string(src[a:b]) != "/usr/bin/kube-proxy" {
		t.Errorf("text span %q", src[a:b])
	}
	// A partly quoted flag: the value span maps inside the quotes.
	f := c.Words[3]
	eq := strings.IndexByte(f.Text, '=') + 1
	a, b = f.Span(eq, len(f.Text))
	if string(src[a:b]) != "ipvs" {
		t.Errorf("value span %q", src[a:b])
	}
	if got := words(s.Commands[2]); strings.Join(got, " ") != "echo a#b" {
		t.Errorf("# inside a word is not a comment: %q", got)
	}
	if g := s.Commands[3].Guard; len(g) != 2 || g[0] != "echo" {
		t.Errorf("&& guard = %q", g)
	}
}

func TestHeredocs(t *testing.T) {
	src := []byte("cat <<-'EOF' > /etc/kp.yaml\n\tkind: KubeProxyConfiguration\n\tmode: ipvs\n\tEOF\ncat <<\"X\" | tee a\nmode: x\nX\necho after\n")
	s := Parse(src, 0, len(src), Options{})
	if len(s.Heredocs) != 2 {
		t.Fatalf("heredocs: %d", len(s.Heredocs))
	}
	h := s.Heredocs[0]
	if !h.Quoted || !h.StripTabs || string(h.Body) != "kind: KubeProxyConfiguration\nmode: ipvs\n" {
		t.Errorf("heredoc 0: %+v %q", h, h.Body)
	}
	// Offsets map the body back to the source, past the stripped tabs.
	i := bytes.Index(h.Body, []byte("ipvs"))
	if o := h.Offs[i]; string(src[o:o+4]) != "ipvs" {
		t.Errorf("offset %d maps to %q", o, src[o:o+4])
	}
	if len(h.Offs) != len(h.Body)+1 {
		t.Errorf("offs len %d, body len %d", len(h.Offs), len(h.Body))
	}
	if c := s.Commands[h.Command]; c.Name() != "cat" || len(c.Redirects) != 2 || c.Redirects[1].Target.Text != "/etc/kp.yaml" {
		t.Errorf("heredoc command %+v", c)
	}
	if string(s.Heredocs[1].Body) != "mode: x\n" {
		t.Errorf("heredoc 1 body %q", s.Heredocs[1].Body)
	}
	last := s.Commands[len(s.Commands)-1]
	if strings.Join(words(last), " ") != "echo after" {
		t.Errorf("after the heredocs: %q", words(last))
	}
}

func TestGuards(t *testing.T) {
	src := []byte(`if [ "$MODE" = ipvs ]; then
  ipvsadm -C
else
  ipvsadm -Ln
fi
case "$m" in
  ipvs|IPVS) a ;;
  *) b ;;
esac
for x in 1 2; do c; done
`)
	s := Parse(src, 0, len(src), Options{})
	byName := map[string]Command{}
	for _, c := range s.Commands {
		byName[c.Name()+strings.Join(words(c)[1:], " ")] = c
	}
	if g := byName["ipvsadm-C"].Guard; strings.Join(g, " ") != "[ $MODE = ipvs ]" {
		t.Errorf("then guard %q", g)
	}
	if g := byName["ipvsadm-Ln"].Guard; len(g) != 0 {
		t.Errorf("else guard %q", g)
	}
	if g := byName["a"].Guard; strings.Join(g, " ") != "$m = ipvs|IPVS" {
		t.Errorf("case guard %q", g)
	}
	if g := byName["b"].Guard; strings.Join(g, " ") != "$m = *" {
		t.Errorf("default branch guard %q", g)
	}
	if _, ok := byName["c"]; !ok {
		t.Errorf("loop body missing: %v", byName)
	}
	if c := byName["[$MODE = ipvs ]"]; !c.Cond {
		t.Errorf("condition not marked: %+v", c)
	}
}

// TestGuardsBounded checks that the guard of a command at the end of a long "&&" chain or
// deep in nested conditions keeps its first maxGuardWords words (the outer conditions), that
// commands with equal guards share one slice, and that a long [[ ... ]] test is still one
// command.
func TestGuardsBounded(t *testing.T) {
	var b strings.Builder
	b.WriteString("if [ \"$MODE\" = ipvs ]; then\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "iptables -N C%d && ", i)
	}
	b.WriteString("ipvsadm -C\nfi\n[[ ")
	for range 1000 {
		b.WriteString("-n x && ")
	}
	b.WriteString("-n y ]] && echo done\n")
	src := []byte(b.String())
	s := Parse(src, 0, len(src), Options{})
	var last, prev *Command
	for i := range s.Commands {
		c := &s.Commands[i]
		if len(c.Guard) > maxGuardWords {
			t.Fatalf("command %q has a guard of %d words", c.Name(), len(c.Guard))
		}
		switch c.Name() {
		case "ipvsadm":
			last = c
			prev = &s.Commands[i-1]
		case "echo":
			if len(c.Guard) != 2002 && len(c.Guard) != maxGuardWords || c.Guard[0] != "[[" {
				t.Errorf("echo guard %d words from %q", len(c.Guard), c.Guard[:min(3, len(c.Guard))])
			}
		}
	}
	if last == nil {
		t.Fatal("ipvsadm not found")
	}
	if g := strings.Join(last.Guard[:6], " "); g != "[ $MODE = ipvs ] iptables" {
		t.Errorf("guard starts %q", g)
	}
	if len(last.Guard) != maxGuardWords || &last.Guard[0] != &prev.Guard[0] {
		t.Errorf("guards of %d words not shared", len(last.Guard))
	}
	if n := len(s.Commands); n != 1004 {
		t.Errorf("%d commands, want the condition, the 1001 commands of the if, the test and echo", n)
	}
}

// TestGuardsDeepNesting checks guards in conditions nested thousands deep: the innermost
// command keeps the outermost conditions up to maxGuardWords words, an else branch drops its
// own condition but keeps the outer ones, and closing every block clears the guard.
func TestGuardsDeepNesting(t *testing.T) {
	var b strings.Builder
	const depth = 3000
	for i := range depth {
		fmt.Fprintf(&b, "if [ $L%d = on ]; then\n", i)
	}
	b.WriteString("inner\nelse\nother\n")
	for range depth {
		b.WriteString("fi\n")
	}
	b.WriteString("after\n")
	src := []byte(b.String())
	s := Parse(src, 0, len(src), Options{})
	var want []string
	for i := range depth {
		want = append(want, "[", fmt.Sprintf("$L%d", i), "=", "on", "]")
	}
	for _, c := range s.Commands {
		switch c.Name() {
		case "inner":
			if !reflect.DeepEqual(c.Guard, want[:maxGuardWords]) {
				t.Errorf("inner guard %d words, starting %q", len(c.Guard), c.Guard[:min(6, len(c.Guard))])
			}
		case "other":
			// The innermost if's condition does not hold in its else branch.
			if !reflect.DeepEqual(c.Guard, want[:maxGuardWords]) {
				t.Errorf("else guard %d words", len(c.Guard))
			}
		case "after":
			if len(c.Guard) != 0 {
				t.Errorf("guard after the blocks: %q", c.Guard[:min(6, len(c.Guard))])
			}
		}
	}
	var small strings.Builder
	small.WriteString("if [ $A = 1 ]; then\n if [ $B = 2 ]; then\n  x\n else\n  y\n fi\n z\nfi\n")
	s = Parse([]byte(small.String()), 0, small.Len(), Options{})
	got := map[string]string{}
	for _, c := range s.Commands {
		got[c.Name()] = strings.Join(c.Guard, " ")
	}
	for name, g := range map[string]string{"x": "[ $A = 1 ] [ $B = 2 ]", "y": "[ $A = 1 ]", "z": "[ $A = 1 ]"} {
		if got[name] != g {
			t.Errorf("%s guard %q, want %q", name, got[name], g)
		}
	}
}

func TestCommandSubstitution(t *testing.T) {
	src := []byte(`x="$(iptables-save | grep KUBE-SVC)"` + "\n")
	s := Parse(src, 0, len(src), Options{})
	var names []string
	for _, c := range s.Commands {
		names = append(names, c.Name())
	}
	// The commands of a substitution come before the command that holds it.
	if strings.Join(names, ",") != "iptables-save,grep," {
		t.Fatalf("commands %q", names)
	}
	g := s.Commands[1]
	if !g.Substituted || !g.PipeIn {
		t.Errorf("grep: %+v", g)
	}
	w := g.Words[1]
	if string(src[w.Pos:w.End]) != "KUBE-SVC" {
		t.Errorf("offset in substitution: %q", src[w.Pos:w.End])
	}
}

func TestDialects(t *testing.T) {
	for _, tc := range []struct {
		name, content string
		want          Dialect
	}{
		{"a/node.sh", "", DialectShell},
		{"bootstrap", "#!/usr/bin/env bash\necho", DialectShell},
		{"bootstrap", "#!/usr/bin/python3\n", DialectNone},
		{"x/kube-proxy.service", "", DialectUnit},
		{"x/kube-proxy.service.d/10-flags.conf", "", DialectUnit},
		{"roles/kp/templates/kube-proxy.service.j2", "", DialectUnit},
		{"Dockerfile", "", DialectDockerfile},
		{"build/Dockerfile.proxy", "", DialectDockerfile},
		{"Makefile", "", DialectMakefile},
		{"etc/kube-proxy.flags", "--v=2\n", DialectFlags},
		{"etc/kube-proxy", "# flags\n--proxy-mode=ipvs\n--v=2\n", DialectFlags},
		{"etc/kube-proxy", "KUBE_PROXY_ARGS=--v=2\n", DialectNone},
		{"etc/kube-proxy.yaml", "--- \n", DialectNone},
		{"README.md", "kube-proxy --proxy-mode=ipvs", DialectNone},
	} {
		if got := DialectOf(tc.name, []byte(tc.content)); got != tc.want {
			t.Errorf("DialectOf(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestParseFileDialects(t *testing.T) {
	unit := []byte("[Service]\nExecStart=-/usr/bin/kube-proxy \\\n# a comment line inside the continuation\n  --proxy-mode=ipvs #not-a-comment\nExecStop=/bin/kill $MAINPID\nEnvironment=A=kube-proxy\n")
	s := ParseFile(DialectUnit, unit)
	if len(s.Commands) != 2 || strings.Join(words(s.Commands[0]), " ") != "/usr/bin/kube-proxy --proxy-mode=ipvs #not-a-comment" {
		t.Errorf("unit commands: %+v", s.Commands)
	}
	df := []byte("FROM x\n# RUN kube-proxy\nRUN --mount=type=cache,target=/c apt-get update && \\\n    apt-get install -y ipvsadm\nCMD [\"kube-proxy\", \"--proxy-mode=ipvs\"]\n")
	s = ParseFile(DialectDockerfile, df)
	var got []string
	for _, c := range s.Commands {
		got = append(got, strings.Join(words(c), " "))
	}
	if strings.Join(got, "|") != "apt-get update|apt-get install -y ipvsadm|kube-proxy --proxy-mode=ipvs" {
		t.Errorf("dockerfile commands %q", got)
	}
	w := s.Commands[2].Words[1]
	if string(df[w.Pos:w.End]) != `"--proxy-mode=ipvs"` {
		t.Errorf("exec form word %q", df[w.Pos:w.End])
	}
	mk := []byte("run:\n\t@sudo kube-proxy --v=2 \\\n\t  --proxy-mode=ipvs\n# kube-proxy\nX = kube-proxy\n")
	s = ParseFile(DialectMakefile, mk)
	if len(s.Commands) != 1 || strings.Join(words(s.Commands[0]), " ") != "sudo kube-proxy --v=2 --proxy-mode=ipvs" {
		t.Errorf("makefile commands %+v", s.Commands)
	}
}

func TestNeutralize(t *testing.T) {
	src := []byte("{{- if .Values.on }}\nmode: {{ .Values.mode }}\n  {% if x %}\nname: \"{{ a | default \"b\" }}\"\n<%= @x %>: y\n%{ if z ~}\n{{- end }}\nplain: ${VAR}\n")
	n := Neutralize(src)
	if len(n) != len(src) {
		t.Fatalf("length changed")
	}
	for i := range src {
		if (src[i] == '\n') != (n[i] == '\n') {
			t.Fatalf("line break moved at %d", i)
		}
	}
	lines := strings.Split(string(n), "\n")
	for _, i := range []int{0, 2, 5, 6} {
		if strings.TrimSpace(lines[i]) != "" {
			t.Errorf("line %d holds only template logic, want blank: %q", i+1, lines[i])
		}
	}
	for i, want := range map[int]string{1: "mode: ${_______________}", 3: `name: "${__________________}"`, 4: "${______}: y", 7: "plain: ${VAR}"} {
		if lines[i] != want {
			t.Errorf("line %d = %q, want %q", i+1, lines[i], want)
		}
	}
	if Neutralize([]byte("a: ${X}\nb: c\n")) != nil {
		t.Error("no template placeholder: want nil")
	}
}

func TestNestedShell(t *testing.T) {
	src := []byte("ExecStart=/bin/sh -c 'exec /usr/bin/kube-proxy --proxy-mode=\"ipvs\" --v=2'\n")
	s := ParseFile(DialectUnit, src)
	if len(s.Commands) != 2 {
		t.Fatalf("commands: %+v", s.Commands)
	}
	c := s.Commands[1]
	if c.Name() != "kube-proxy" {
		t.Fatalf("nested command %q", words(c))
	}
	w := c.Words[c.Program()+1]
	a, b := w.Span(len("--proxy-mode="), len(w.Text))
	if string(src[a:b]) != "ipvs" || string(src[w.Pos:w.End]) != `--proxy-mode="ipvs"` {
		t.Errorf("nested offsets: %q %q", src[a:b], src[w.Pos:w.End])
	}
	df := []byte(`CMD ["sh", "-c", "iptables -t nat -L KUBE-SERVICES"]` + "\n")
	s = ParseFile(DialectDockerfile, df)
	if len(s.Commands) != 2 || s.Commands[1].Name() != "iptables" {
		t.Fatalf("exec form sh -c: %+v", s.Commands)
	}
	w = s.Commands[1].Words[4]
	if string(df[w.Pos:w.End]) != "KUBE-SERVICES" {
		t.Errorf("exec form nested offsets %q", df[w.Pos:w.End])
	}
}

// TestArrayAssignments: the elements of NAME=(...) are data, never commands, however they are
// laid out (one per line, quoted, after declare/local, appended with +=).
func TestArrayAssignments(t *testing.T) {
	for _, src := range []string{
		"services=(\n  coredns\n  kube-proxy\n  kube-scheduler\n)\necho done\n",
		"declare -a CONTAINERS=(\"kube-apiserver\" \"kube-proxy\")\necho done\n",
		"local list=( kube-proxy )\necho done\n",
		"images+=(\n  registry.k8s.io/kube-proxy\n  kube-proxy\n)\necho done\n",
	} {
		s := Parse([]byte(src), 0, len(src), Options{})
		for _, c := range s.Commands {
			if c.Name() == "kube-proxy" {
				t.Errorf("%q: array element read as a command: %v", src, words(c))
			}
		}
		if last := s.Commands[len(s.Commands)-1]; last.Name() != "echo" {
			t.Errorf("%q: the command after the array was lost: %v", src, words(last))
		}
	}
	// A subshell after a command is still a subshell.
	src := "true; (kube-proxy --proxy-mode=ipvs)\n"
	s := Parse([]byte(src), 0, len(src), Options{})
	found := false
	for _, c := range s.Commands {
		found = found || c.Name() == "kube-proxy"
	}
	if !found {
		t.Errorf("kube-proxy in a subshell was not found: %+v", s.Commands)
	}
}

// TestNestedStrings: commands and heredocs inside the strings that ssh, eval and the script's
// own runner functions execute, with offsets in the source; other functions' string
// arguments and ssh without a command stay data.
func TestNestedStrings(t *testing.T) {
	src := []byte("run() {\n  ssh \"$HOST\" \"$1\"\n}\nlog() { echo \"$1\"; }\n" +
		"run \"cat <<EOF > /etc/kp.yaml\nmode: ipvs\nEOF\"\n" +
		"log \"kube-proxy --proxy-mode=ipvs\"\n" +
		"ssh -i key -p 22 root@node 'kube-proxy --v=2'\n" +
		"ssh root@node\n" +
		"eval \"kube-proxy --cleanup\"\n")
	s := ParseFile(DialectShell, src)
	var progs []string
	for _, c := range s.Commands {
		progs = append(progs, c.Name())
	}
	want := "ssh echo run log ssh ssh eval cat kube-proxy kube-proxy"
	if got := strings.Join(progs, " "); got != want {
		t.Fatalf("programs %q, want %q", got, want)
	}
	if len(s.Heredocs) != 1 {
		t.Fatalf("heredocs: %+v", s.Heredocs)
	}
	h := s.Heredocs[0]
	if string(h.Body) != "mode: ipvs\n" || s.Commands[h.Command].Name() != "cat" {
		t.Fatalf("heredoc %q of command %d", h.Body, h.Command)
	}
	if i := bytes.Index(src, []byte("ipvs\nEOF")); h.Offs[6] != i {
		t.Errorf("heredoc offset of ipvs = %d, want %d", h.Offs[6], i)
	}
	for _, c := range s.Commands {
		if c.Name() == "kube-proxy" {
			w := c.Words[c.Program()]
			if string(src[w.Pos:w.End]) != "kube-proxy" {
				t.Errorf("nested word at %d..%d is %q", w.Pos, w.End, src[w.Pos:w.End])
			}
		}
	}
}

// TestStructureAgainstSubstitutions: commands in the places a real shell runs them and only
// there (cases found by comparing with mvdan.cc/sh on public repositories, docs/decisions.md).
func TestStructureAgainstSubstitutions(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// Array elements are data; their substitutions run; comments inside do not end it.
		{"A=(\n  x # doesn't stop here\n  $(iptables-save)\n  `ipset list`\n)\necho done\n", "echo ipset iptables-save"},
		// A substitution in a default value, across lines.
		{"R=${R:-$(git ls-files |\n  sed 's/x/y/')}\necho done\n", "echo git sed"},
		// Backquotes inside double quotes.
		{"if [ -n \"`ip rule show`\" ]; then :; fi\n", ": [ ip"},
		// Inside [[ ]], | ( ) && are part of the test.
		{"[[ $p =~ xtables|ipvsadm(x)? && -n $q ]] && echo ok\n", "[[ echo"},
	} {
		s := ParseFile(DialectShell, []byte(tc.src))
		var got []string
		for _, c := range s.Commands {
			if n := c.Name(); n != "" {
				got = append(got, n)
			}
		}
		sort.Strings(got)
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%q: commands %q, want %q", tc.src, strings.Join(got, " "), tc.want)
		}
	}
}

// TestNestedSubstitutionsAllocateLinearly: issue 22 item 14. Nested $( in a 3.9 MB script
// allocated 5.7 GB: the text of every level was copied into a word of each level around it,
// 32 levels deep, byte by byte. A script's words now hold a few times its size.
func TestNestedSubstitutionsAllocateLinearly(t *testing.T) {
	const n = 100000
	for name, src := range map[string]string{
		"unquoted":      "exec kube-proxy --v=" + strings.Repeat("$(echo ", n) + "2" + strings.Repeat(")", n) + "\n",
		"double-quoted": "exec kube-proxy --v=" + strings.Repeat("\"$(echo ", n) + "2" + strings.Repeat(")\"", n) + "\n",
		"assignments":   strings.Repeat("A=$(", n) + "x" + strings.Repeat(")", n) + "\nexec kube-proxy --v=2\n",
	} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		s := Parse([]byte(src), 0, len(src), Options{})
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 64*uint64(len(src)) {
			t.Errorf("%s: %d bytes of script allocate %d bytes (%d per byte)", name, len(src), alloc, alloc/uint64(len(src)))
		}
		if len(s.Commands) == 0 {
			t.Errorf("%s: no command", name)
		}
	}
}

// TestScriptRunnersIndirect: issue 21 item 6. A function that takes its script through shift
// and a variable, or hands it to bash -c or to another runner, runs its argument; one that
// prints it does not.
func TestScriptRunnersIndirect(t *testing.T) {
	src := []byte("run_remote() {\n  local node=$1\n  shift\n  local cmd=\"$*\"\n  ssh \"$node\" \"$cmd\"\n}\n" +
		"on_all() { for n in a b; do run_remote \"$n\" \"$@\"; done; }\n" +
		"local_run() { bash -c \"$1\"; }\n" +
		"log() { echo \"$*\" >&2; }\n")
	runners, defined := scriptRunners(src)
	for _, name := range []string{"run_remote", "on_all", "local_run"} {
		if !runners[name] {
			t.Errorf("%s is not a runner", name)
		}
	}
	if runners["log"] || !defined["log"] {
		t.Errorf("log: runner %v, defined %v", runners["log"], defined["log"])
	}
}

// TestNestedHeredocEscapes: issue 21 item 6. Escapes inside a double-quoted script (\", \$,
// \\) shorten the text the nested lexer sees; the heredoc body still maps every byte to its
// source offset.
func TestNestedHeredocEscapes(t *testing.T) {
	src := []byte("remote_exec n1 \"cat <<EOF > /etc/kp.yaml\nk: \\\"a\\\\b\\\" \\$x mode ipvs\nEOF\"\n")
	s := ParseFile(DialectShell, src)
	if len(s.Heredocs) != 1 {
		t.Fatalf("heredocs: %+v", s.Heredocs)
	}
	h := s.Heredocs[0]
	if want := "k: \"a\\b\" $x mode ipvs\n"; string(h.Body) != want {
		t.Fatalf("body %q, want %q", h.Body, want)
	}
	for _, tok := range []string{"ipvs", "$x", "b"} {
		i := bytes.Index(h.Body, []byte(tok))
		o := h.Offs[i]
		if got := string(src[o : o+1]); got != tok[:1] {
			t.Errorf("%q maps to %d (%q)", tok, o, got)
		}
		if k := bytes.Index(src, []byte("ipvs\nEOF")); tok == "ipvs" && o != k {
			t.Errorf("ipvs maps to %d, want %d", o, k)
		}
	}
}
