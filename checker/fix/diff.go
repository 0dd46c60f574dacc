package fix

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// contextLines is the number of unchanged lines around each change, as in git and diff -u.
const contextLines = 3

// maxFuncName is how much of a hunk's function line git shows after "@@".
const maxFuncName = 80

// Diff writes a unified diff of the changes in the format of `git diff`: "--- a/NAME" and
// "+++ b/NAME" headers, hunks with three lines of context whose headers name the nearest
// preceding line that starts with a letter, "_" or "$" (git's default function line, for YAML
// the top-level key), and "\ No newline at end of file" markers. `git apply` and `patch -p1`
// apply it in the directory the names are relative to.
func Diff(changes []FileChange) []byte {
	var b bytes.Buffer
	for _, c := range changes {
		writeFileDiff(&b, c)
	}
	return b.Bytes()
}

func writeFileDiff(b *bytes.Buffer, c FileChange) {
	a, z := splitLines(c.Old), splitLines(c.New)
	ops := diffLines(a, z)
	if len(ops) == 0 {
		return
	}
	b.WriteString("--- " + quotePath("a/"+c.Name) + "\n")
	b.WriteString("+++ " + quotePath("b/"+c.Name) + "\n")
	funcLine, searched := "", -1
	for i := 0; i < len(ops); {
		// A hunk covers the changes whose gaps are at most two contexts long.
		j := i + 1
		for j < len(ops) && ops[j].a0-ops[j-1].a1 <= 2*contextLines {
			j++
		}
		first, last := ops[i], ops[j-1]
		s1 := max(first.a0-contextLines, 0)
		s2 := max(first.z0-contextLines, 0)
		e1 := min(last.a1+contextLines, len(a))
		e2 := min(last.z1+contextLines, len(z))
		// git searches upwards from the line above the hunk to where its last search began,
		// and keeps the previous function line when it finds none.
		for l := s1 - 1; l > searched && l >= 0; l-- {
			if f, ok := funcName(a[l]); ok {
				funcLine = f
				break
			}
		}
		searched = s1 - 1
		b.WriteString("@@ -" + hunkRange(s1, e1-s1) + " +" + hunkRange(s2, e2-s2) + " @@")
		if funcLine != "" {
			b.WriteString(" " + funcLine)
		}
		b.WriteString("\n")
		ai := s1
		for k := i; k < j; k++ {
			o := ops[k]
			for ; ai < o.a0; ai++ {
				writeLine(b, ' ', a[ai])
			}
			for _, l := range a[o.a0:o.a1] {
				writeLine(b, '-', l)
			}
			for _, l := range z[o.z0:o.z1] {
				writeLine(b, '+', l)
			}
			ai = o.a1
		}
		for ; ai < e1; ai++ {
			writeLine(b, ' ', a[ai])
		}
		i = j
	}
}

// hunkRange formats "start,count" the way git does: the count is left out when it is 1, and
// an empty range starts at the line before it.
func hunkRange(start, count int) string {
	switch count {
	case 0:
		return strconv.Itoa(start) + ",0"
	case 1:
		return strconv.Itoa(start + 1)
	}
	return strconv.Itoa(start+1) + "," + strconv.Itoa(count)
}

func writeLine(b *bytes.Buffer, prefix byte, line string) {
	b.WriteByte(prefix)
	b.WriteString(line)
	if !strings.HasSuffix(line, "\n") {
		b.WriteString("\n\\ No newline at end of file\n")
	}
}

// funcName is git's default function line: a line that starts with a letter, "_" or "$",
// cut to 80 bytes, without trailing blanks.
func funcName(line string) (string, bool) {
	if line == "" {
		return "", false
	}
	c := line[0]
	if (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && c != '_' && c != '$' {
		return "", false
	}
	if len(line) > maxFuncName {
		line = line[:maxFuncName]
	}
	return strings.TrimRight(line, " \t\r\n\v\f"), true
}

// quotePath quotes a path the way git does (core.quotePath): in double quotes with C escapes
// when it holds a quote, a backslash, a control character or a non-ASCII byte; as it is
// otherwise. No byte of a file name reaches the terminal unescaped.
func quotePath(p string) string {
	needs := false
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			needs = true
			break
		}
	}
	if !needs {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '"', '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// splitLines splits text after each "\n"; the last line may lack one.
func splitLines(b []byte) []string {
	if len(b) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(b), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// change replaces lines [a0, a1) of the old text with lines [z0, z1) of the new one.
type change struct{ a0, a1, z0, z1 int }

// maxEditCost bounds the Myers search; beyond it the differing middle is one change. Fixes
// change few lines, so this only guards against pathological input.
const maxEditCost = 4096

// diffLines returns the changes that turn a into z, in order: the shortest edit script of
// Myers' algorithm on the lines between the common prefix and suffix.
func diffLines(a, z []string) []change {
	pre := 0
	for pre < len(a) && pre < len(z) && a[pre] == z[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(z)-pre && a[len(a)-1-suf] == z[len(z)-1-suf] {
		suf++
	}
	ma, mz := a[pre:len(a)-suf], z[pre:len(z)-suf]
	if len(ma) == 0 && len(mz) == 0 {
		return nil
	}
	var out []change
	for _, c := range myers(ma, mz) {
		out = append(out, change{c.a0 + pre, c.a1 + pre, c.z0 + pre, c.z1 + pre})
	}
	return out
}

// myers computes the changes between a and z (which differ in their first and last lines).
func myers(a, z []string) []change {
	n, m := len(a), len(z)
	maxD := min(n+m, maxEditCost)
	off := maxD + 1
	v := make([]int, 2*maxD+3)
	var trace [][]int
	found := false
	for d := 0; d <= maxD && !found; d++ {
		snap := make([]int, len(v))
		copy(snap, v)
		trace = append(trace, snap)
		for k := -d; k <= d; k += 2 {
			var x int
			if k == -d || k != d && v[off+k-1] < v[off+k+1] {
				x = v[off+k+1]
			} else {
				x = v[off+k-1] + 1
			}
			y := x - k
			for x < n && y < m && a[x] == z[y] {
				x++
				y++
			}
			v[off+k] = x
			if x >= n && y >= m {
				found = true
				break
			}
		}
	}
	if !found {
		return []change{{0, n, 0, m}}
	}
	// Walk back through the trace, collecting single-line steps from the end.
	type step struct {
		del bool
		i   int
	}
	var steps []step
	x, y := n, m
	for d := len(trace) - 1; d > 0; d-- {
		vd := trace[d]
		k := x - y
		var pk int
		if k == -d || k != d && vd[off+k-1] < vd[off+k+1] {
			pk = k + 1
		} else {
			pk = k - 1
		}
		px := vd[off+pk]
		py := px - pk
		for x > px && y > py {
			x--
			y--
		}
		if x == px {
			y--
			steps = append(steps, step{false, y})
		} else {
			x--
			steps = append(steps, step{true, x})
		}
	}
	// Group the steps, in order, into changes between runs of equal lines.
	var out []change
	ai, zi := 0, 0
	for i := len(steps) - 1; i >= 0; i-- {
		s := steps[i]
		// The lines before this step that both sides share.
		eq := s.i - zi
		if s.del {
			eq = s.i - ai
		}
		ai += eq
		zi += eq
		if len(out) > 0 && eq == 0 && out[len(out)-1].a1 == ai && out[len(out)-1].z1 == zi {
			c := &out[len(out)-1]
			if s.del {
				c.a1++
			} else {
				c.z1++
			}
		} else if s.del {
			out = append(out, change{ai, ai + 1, zi, zi})
		} else {
			out = append(out, change{ai, ai, zi, zi + 1})
		}
		if s.del {
			ai++
		} else {
			zi++
		}
	}
	return out
}
