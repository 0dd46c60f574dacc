package rules

import (
	"strings"
	"unicode/utf8"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Helpers for kube-proxy command lines found in text files (InstanceCommand: scripts, systemd
// units, Dockerfiles, Makefiles, flag files), whose flags have no YAML document.

// textFlagSub returns the position of bytes [from, to) of the value of a text-file flag. It
// is exact when the value stands verbatim on one line of the source (no quotes or escapes
// inside it, ASCII), else it spans the whole value.
func textFlagSub(f *checker.Flag, from, to int) (checker.Position, checker.Position) {
	vp, ve := f.ValuePos, f.ValueEnd
	if ve.Offset-vp.Offset != len(f.Value) || vp.Line != ve.Line || to > len(f.Value) || from > to ||
		!utf8.ValidString(f.Value) || len(f.Value) != utf8.RuneCountInString(f.Value) {
		return vp, ve
	}
	at := func(k int) checker.Position {
		p := vp
		p.Offset += k
		p.Column += k
		return p
	}
	return at(from), at(to)
}

// isFlagFile reports whether a command instance is a flag file (one flag per line, no
// program word): its Program span is its first flag.
func isFlagFile(in *checker.Instance) bool {
	src := in.Source.Content
	return in.Program.Offset < len(src) && src[in.Program.Offset] == '-'
}

// insertFlagEdit returns an edit that adds flag (--name=value) to a command instance: a new
// line before the first one of a flag file, a new item after the program of a JSON
// exec-form array, or a word after the program on a command line.
func insertFlagEdit(in *checker.Instance, flag string) (checker.TextEdit, bool) {
	f := in.Source
	if f == nil {
		return checker.TextEdit{}, false
	}
	src := f.Content
	if isFlagFile(in) {
		at := f.Lines.LineStart(in.Program.Line)
		p := f.Lines.Position(f.Path, at)
		return checker.TextEdit{Pos: p, End: p, NewText: flag + outerEOL(f, in.Program.Line)}, true
	}
	end := in.ProgramEnd.Offset
	if end <= 0 || end > len(src) {
		return checker.TextEdit{}, false
	}
	rest := strings.TrimLeft(string(src[end:]), " \t")
	if src[end-1] == '"' && (strings.HasPrefix(rest, ",") || strings.HasPrefix(rest, "]")) {
		return checker.TextEdit{Pos: in.ProgramEnd, End: in.ProgramEnd, NewText: `, "` + flag + `"`}, true
	}
	return checker.TextEdit{Pos: in.ProgramEnd, End: in.ProgramEnd, NewText: " " + flag}, true
}

// kp101TextCommand reports a kube-proxy command line of a text file with neither --config nor
// --proxy-mode, at the program word (the first flag of a flag file), with fixes that add
// --proxy-mode.
func kp101TextCommand(p *checker.Pass, in *checker.Instance) (checker.Finding, bool) {
	if in.Source == nil || !in.Program.IsValid() {
		return checker.Finding{}, false
	}
	subject := "kube-proxy has neither --config nor --proxy-mode, so it "
	if isFlagFile(in) {
		subject = "the kube-proxy flag file sets neither --config nor --proxy-mode, so kube-proxy "
	}
	f := checker.Finding{Message: subject + kp101Default(p.Target()), Pos: in.Program, End: in.ProgramEnd}
	for _, fx := range [][2]string{{checker.ModeIPTables, kp101FlagIPT}, {checker.ModeNFTables, kp101FlagNFT}} {
		if e, ok := insertFlagEdit(in, "--proxy-mode="+fx[0]); ok {
			f.Fixes = append(f.Fixes, kp101Fix(fx[0], checker.Fix{Message: fx[1], Edits: []checker.TextEdit{e}}))
		}
	}
	return f, true
}

// textEntries splits a text-file flag's value at commas: the byte ranges of the non-blank
// entries in the value.
func textEntries(v string) [][2]int { return commaEntries(v, 0, len(v)) }

// textFlagListItems is flagListItems for a flag of a text file.
func textFlagListItems(fl *checker.Flag) []flagListItem {
	var out []flagListItem
	for _, e := range textEntries(fl.Value) {
		p, q := textFlagSub(fl, e[0], e[1])
		out = append(out, flagListItem{Text: fl.Value[e[0]:e[1]], Pos: p, End: q})
	}
	return out
}

// kp104TextFlag is kp104Flag for a --feature-gates flag of a text file: the finding points at
// the gate's entry; the fix deletes the entry, or the whole flag when it is the only one.
func kp104TextFlag(f checker.Finding, g checker.GateSetting) (checker.Finding, checker.Fix, bool) {
	fl := g.Flag
	entries := textEntries(fl.Value)
	hit := -1
	for i, e := range entries {
		name, _, _ := strings.Cut(fl.Value[e[0]:e[1]], "=")
		if strings.TrimSpace(name) == g.Name {
			hit = i
			break
		}
	}
	if hit < 0 {
		return f, checker.Fix{}, false
	}
	e := entries[hit]
	f.Pos, f.End = textFlagSub(fl, e[0], e[1])
	if len(entries) == 1 {
		if len(fl.Remove) == 0 {
			return f, checker.Fix{}, false
		}
		return f, checker.Fix{Message: "Remove the --feature-gates flag, which only sets " + g.Name, Edits: fl.Remove}, true
	}
	var from, to int
	if hit+1 < len(entries) {
		from, to = e[0], entries[hit+1][0]
	} else {
		from, to = strings.LastIndexByte(fl.Value[:e[0]], ','), e[1]
	}
	p, q := textFlagSub(fl, from, to)
	if p == fl.ValuePos && q == fl.ValueEnd && (from != 0 || to != len(fl.Value)) {
		// The value is not verbatim in the source: no exact edit.
		return f, checker.Fix{}, false
	}
	return f, checker.Fix{Message: "Remove " + g.Name + " from --feature-gates", Edits: []checker.TextEdit{{Pos: p, End: q}}}, true
}
