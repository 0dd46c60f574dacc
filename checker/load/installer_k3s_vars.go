package load

import (
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// k3sVarValue resolves the value of a --kube-proxy-arg flag written as a shell variable
// (--kube-proxy-arg=proxy-mode=$MODE, --kube-proxy-arg "proxy-mode=${MODE}") to the value
// the script assigns to it (MODE=ipvs, MODE="${MODE:-ipvs}"), as envFlags does for
// --proxy-mode "$MODE": the flag then points at the value in the assignment and notes the
// use. env is computed on first need (nil until then). A value the script does not assign,
// or assigns several words or a placeholder, stays as written: unknown.
func k3sVarValue(f *checker.File, fl *checker.Flag, env *map[string]envWord) {
	name := varRef(fl.Value)
	if name == "" {
		return
	}
	if *env == nil {
		*env = map[string]envWord{}
		d := shell.DialectOf(f.Path, f.Content)
		switch d {
		case shell.DialectShell, shell.DialectMakefile, shell.DialectDockerfile:
			*env = textEnv(d, f, scriptOf(f, d))
		}
	}
	a, ok := (*env)[name]
	if !ok || a.f != f {
		return
	}
	vals := shell.SplitValue(a.w)
	if len(vals) != 1 || vals[0].Text == "" || text.HasPlaceholder(vals[0].Text) || strings.Contains(vals[0].Text, "$") {
		return
	}
	v := vals[0]
	from, to := v.Span(0, len(v.Text))
	use := checker.Related{Pos: fl.ValuePos, End: fl.ValueEnd, Message: fl.Value + " is expanded here"}
	fl.Value = v.Text
	fl.ValuePos, fl.ValueEnd = f.PositionAt(from), f.PositionAt(to)
	// The name is written at the use and the value at the assignment: the setting is the
	// value, and no single edit removes the flag.
	fl.Pos, fl.End, fl.Remove = fl.ValuePos, fl.ValueEnd, nil
	fl.Via = append(fl.Via, use)
}

// k3sWordContext reports whether the option at off sits in a shell word that belongs to a
// k3s or RKE2 command although its own line does not say so: a multi-line word whose first
// line names k3s or RKE2 (INSTALL_K3S_EXEC="server\n--kube-proxy-arg proxy-mode=ipvs\n", one
// option per line without continuations), or the value of a variable that a k3s or RKE2
// command line expands (KP_ARG="--kube-proxy-arg=proxy-mode=ipvs" ... k3s server $KP_ARG).
func k3sWordContext(f *checker.File, off int) bool {
	w, ok := k3sWordAt(f, off)
	if !ok {
		return false
	}
	first := strings.ToLower(f.Lines.LineText(f.Lines.Position(f.Path, w.Pos).Line))
	if strings.Contains(first, "k3s") || strings.Contains(first, "rke2") {
		return true
	}
	_, ok = k3sVarUse(f, off)
	return ok
}

// k3sWordAt returns the shell word of script f that holds offset off.
func k3sWordAt(f *checker.File, off int) (shell.Word, bool) {
	d := shell.DialectOf(f.Path, f.Content)
	if d != shell.DialectShell {
		return shell.Word{}, false
	}
	for _, c := range scriptOf(f, d).Commands {
		for _, w := range c.Words {
			if off >= w.Pos && off < w.End {
				return w, true
			}
		}
	}
	return shell.Word{}, false
}

// k3sVarUse returns where a k3s or RKE2 command line expands the variable whose assignment
// holds offset off (NAME="--kube-proxy-arg=..."), as a note for the flag.
func k3sVarUse(f *checker.File, off int) (checker.Related, bool) {
	w, ok := k3sWordAt(f, off)
	if !ok || !shell.IsAssignment(w.Text) {
		return checker.Related{}, false
	}
	name, _, _ := strings.Cut(w.Text, "=")
	for _, c := range scriptOf(f, shell.DialectShell).Commands {
		if shell.DataCommand(c.Name()) {
			continue // echo "$NAME": printed, not run
		}
		for _, u := range c.Words {
			for _, ref := range []string{"${" + name + "}", "$" + name} {
				i := strings.Index(u.Text, ref)
				if i < 0 || (ref[1] != '{' && i+len(ref) < len(u.Text) && isNameByte(u.Text[i+len(ref)])) {
					continue
				}
				a, b := u.Span(i, i+len(ref))
				if k3sLineContext(f, a) {
					return checker.Related{Pos: f.PositionAt(a), End: f.PositionAt(b), Message: ref + " is expanded here"}, true
				}
			}
		}
	}
	return checker.Related{}, false
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
