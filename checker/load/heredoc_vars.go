package load

import (
	"bytes"
	"regexp"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text/shell"
)

// Variables in heredocs (issue 21, item 4): an unquoted heredoc's mode: $MODE (or
// kubeProxyMode: "${KUBE_PROXY_MODE}") where the script assigns the variable a literal
// (MODE=ipvs, MODE="${MODE:-ipvs}") is that literal; a default written at the use,
// ${KUBE_PROXY_MODE:-ipvs}, is the value when the script assigns the variable nowhere. The decoded body holds the value, and
// its bytes map to the assignment's value in the script, so a finding and its fix's edit
// point there; the real file records a note at the use (checker.File.ValueVias), which
// findings at the value carry. No edit spans both places.

// heredocModeVarRe is a mode line whose value is one variable: the key part, the opening
// quote, the reference ($NAME or ${NAME}) and the closing quote.
var heredocModeVarRe = regexp.MustCompile(`(?m)^([ \t]*(?:- )?(?:mode|kubeProxyMode)[ \t]*:[ \t]*)(["']?)(\$[A-Za-z_][A-Za-z0-9_]*|\$\{[A-Za-z_][A-Za-z0-9_]*(?::?-[A-Za-z0-9._-]+)?\})(["']?)[ \t]*(?:#.*)?\r?$`)

// inlineDefault splits ${NAME:-value} and ${NAME-value} into the name, the default and the
// default's offset in ref; ok is false for $NAME and ${NAME}.
func inlineDefault(ref string) (name, def string, at int, ok bool) {
	if len(ref) < 4 || ref[1] != '{' {
		return "", "", 0, false
	}
	inner := ref[2 : len(ref)-1]
	i := 0
	for i < len(inner) && inner[i] != ':' && inner[i] != '-' {
		i++
	}
	if i == len(inner) {
		return "", "", 0, false
	}
	j := i
	if inner[j] == ':' {
		j++
	}
	if j >= len(inner) || inner[j] != '-' || j+1 >= len(inner) {
		return "", "", 0, false
	}
	return inner[:i], inner[j+1:], 2 + j + 1, true
}

// literalValueRe is a value safe to write as a plain YAML scalar: a mode name.
var literalValueRe = regexp.MustCompile(`^[A-Za-z0-9._-]+$`)

// heredocVars substitutes the variables of script s (lexed from f) in its heredoc bodies.
type heredocVars struct {
	f   *checker.File
	s   *shell.Script
	env map[string]envWord
}

// substitute returns body with each mode: $NAME replaced by NAME's literal value, and the
// offsets table for the new body: the value's bytes map to the assignment's value, then one
// blank (which YAML drops) maps to the value's end there, so the value's span lies in the
// assignment; every other byte keeps its offset. A body without such a line is returned as
// it is.
func (v *heredocVars) substitute(body []byte, offs []int) ([]byte, []int) {
	ms := heredocModeVarRe.FindAllSubmatchIndex(body, -1)
	if len(ms) == 0 || len(offs) != len(body)+1 {
		return body, offs
	}
	if v.env == nil {
		v.env = textEnv(shell.DialectShell, v.f, v.s)
	}
	var out []byte
	var outOffs []int
	last := 0
	for _, m := range ms {
		qa, qb, ref := body[m[4]:m[5]], body[m[8]:m[9]], string(body[m[6]:m[7]])
		if !bytes.Equal(qa, qb) {
			continue
		}
		name, def, at, hasDef := inlineDefault(ref)
		if !hasDef {
			name = varRef(ref)
		}
		a, ok := v.env[name]
		if (!ok || a.f != v.f) && hasDef {
			// ${NAME:-ipvs} with NAME assigned nowhere in the script: the default, written
			// at the use, is the value (as MODE="${MODE:-ipvs}" is).
			from, to := m[4], m[9]
			out = append(out, body[last:from]...)
			outOffs = append(outOffs, offs[last:from]...)
			out = append(out, def...)
			outOffs = append(outOffs, offs[m[6]+at:m[6]+at+len(def)]...)
			out = append(out, ' ')
			outOffs = append(outOffs, offs[m[6]+at+len(def)])
			last = to
			continue
		}
		if !ok || a.f != v.f {
			continue
		}
		k := bytes.IndexByte([]byte(a.w.Text), '=') + 1
		val := a.w.Text[k:]
		if !literalValueRe.MatchString(val) || len(a.w.Offs) != len(a.w.Text)+1 {
			continue
		}
		// From the opening quote to the closing one: the value is written plain.
		from, to := m[4], m[9]
		out = append(out, body[last:from]...)
		outOffs = append(outOffs, offs[last:from]...)
		out = append(out, val...)
		outOffs = append(outOffs, a.w.Offs[k:k+len(val)]...)
		out = append(out, ' ')
		outOffs = append(outOffs, a.w.Offs[k+len(val)])
		last = to
		// The note at the use, for findings at the value in the real file.
		outer := v.f.Outer()
		use := v.f.OuterOffset(a.w.Offs[k])
		if outer.ValueVias == nil {
			outer.ValueVias = map[int][]checker.Related{}
		}
		outer.ValueVias[use] = append(outer.ValueVias[use], checker.Related{
			Pos: v.f.PositionAt(offs[m[6]]), End: v.f.PositionAt(offs[m[7]]),
			Message: ref + " is expanded here, in a heredoc"})
	}
	if last == 0 {
		return body, offs
	}
	out = append(out, body[last:]...)
	outOffs = append(outOffs, offs[last:]...)
	return out, outOffs
}
