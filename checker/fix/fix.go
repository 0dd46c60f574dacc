// Package fix applies the fixes that findings carry (`--fix`, `--diff`).
//
// Each finding offers at most one preferred fix (checker.Finding.PreferredFix). Run takes the
// preferred fixes that the run allows (safe ones, or every one with Options.Unsafe), merges
// their byte edits per file in finding order (the first of two overlapping fixes wins; the
// other waits for the next pass), refuses edits that touch a template placeholder, and lints
// the result again through the caller's Linter. Fixes whose findings are new (a fix that
// uncovers another problem with a fix of its own) are applied in further passes, until
// nothing is left to fix. A fix is rolled back when the end state has a finding the input did
// not have and the fix is its cause, when it makes a file fail to decode, or when its own
// finding is still there; the run then starts over without it. So the result is stable:
// fixing the fixed files again changes nothing.
//
// A fix is judged in its own cluster (checker.Finding.Cluster): a new finding in another
// cluster or in a shared file (an alert rule that a mode change leaves behind), and new
// advice (an info finding) anywhere, is not a reason to roll the fix back but a follow-up
// (Result.FollowUps) the caller prints after the fix.
//
// The package does no I/O of its own: the caller lints (Linter) and writes (WriteFile).
package fix

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/text"
)

// Options configure Run.
type Options struct {
	// Unsafe applies preferred fixes that change behaviour too (`--unsafe-fixes`).
	Unsafe bool
	// Eligible selects the findings of the first lint whose fixes may be applied (the
	// findings a run reports, when --new-from-rev or --only-files narrow it); nil selects
	// every finding. Findings that fixes uncover are always eligible.
	Eligible func(*checker.Finding) bool
	// Editable returns why a file may not be edited (not a regular file, outside the tree),
	// or nil; nil allows every file the lint has content for.
	Editable func(name string) error
	// Parse decodes one file alone and returns its load problems. When set, a fix that adds
	// a problem to a file it edits is refused before the file is linted again, so that it
	// does not take the other fixes of the file down with it.
	Parse func(name string, content []byte) []checker.LoadProblem
	// MaxPasses bounds the lint-and-fix passes of one attempt (default 10); MaxAttempts
	// bounds the attempts that start over after a rollback (default 5).
	MaxPasses, MaxAttempts int
}

// Lint is the outcome of linting one state of the files.
type Lint struct {
	// Findings are the reported findings (after suppressions and the other processors).
	Findings []checker.Finding
	// Problems are the load problems (files that could not be decoded or were skipped).
	Problems []checker.LoadProblem
	// Content returns the text of a real file of the run, by the name findings use.
	Content func(name string) ([]byte, bool)
	// Data is the caller's own (such as the workspace the lint ran on); Run keeps it.
	Data any
}

// Linter lints the files with overlay (file name to content) in place of their content on
// disk.
type Linter func(ctx context.Context, overlay map[string][]byte) (*Lint, error)

// Applied is a fix that Run applied.
type Applied struct {
	// Finding is the finding the fix belongs to, as reported in the pass that fixed it.
	Finding checker.Finding
	Fix     checker.Fix
	// Pass is the 1-based pass that applied it: later passes fix what earlier fixes uncovered.
	Pass int
}

// Reason says why a fix was not applied.
type Reason int

// Reasons a preferred fix is not applied.
const (
	// Conflict: its edits overlap those of a fix that came first, in the last pass too.
	Conflict Reason = iota + 1
	// Placeholder: an edit would change or copy a template placeholder.
	Placeholder
	// NotEditable: an edit is in a file that may not be written (Options.Editable).
	NotEditable
	// Invalid: an edit lies outside its file or overlaps another edit of the same fix.
	Invalid
	// Breaks: with the fix applied, a file no longer decodes.
	Breaks
	// Introduces: the fix causes a finding the input did not have.
	Introduces
	// Unresolved: with the fix applied, its finding is still reported.
	Unresolved
	// Unsettled: fixing did not reach a stable state within the pass or attempt limits.
	Unsettled
)

// String names the reason for summaries.
func (r Reason) String() string {
	switch r {
	case Conflict:
		return "conflict"
	case Placeholder:
		return "placeholder"
	case NotEditable:
		return "not editable"
	case Invalid:
		return "invalid edit"
	case Breaks:
		return "rolled back"
	case Introduces:
		return "rolled back"
	case Unresolved:
		return "rolled back"
	case Unsettled:
		return "unsettled"
	}
	return "unknown"
}

// Skipped is a preferred fix that the run allows but did not apply.
type Skipped struct {
	Finding checker.Finding
	Fix     checker.Fix
	Reason  Reason
	// Detail explains the reason: "overlaps the fix of KP202 at a.yaml:7:1", "introduces
	// KP301 (nodeport-addresses-narrowed) at a.yaml:3:1".
	Detail string
}

// FileChange is a file that the applied fixes change.
type FileChange struct {
	Name     string
	Old, New []byte
}

// Result is what Run did.
type Result struct {
	// Files are the changed files, sorted by name.
	Files []FileChange
	// Applied are the applied fixes in pass and finding order.
	Applied []Applied
	// Skipped are the remaining findings whose preferred fix the run allows but did not
	// apply, with the reason, in finding order.
	Skipped []Skipped
	// Unsafe are the remaining findings whose preferred fix is unsafe, when Options.Unsafe
	// is off: `--unsafe-fixes` would apply them.
	Unsafe []checker.Finding
	// FollowUps are findings of the fixed files that the first lint did not have, outside
	// the clusters of the fixes that caused them: consequences to act on, not reasons to
	// roll a fix back.
	FollowUps []checker.Finding
	// Final is the lint of the fixed files (the first lint when nothing changed).
	Final *Lint
	// Lints counts the Linter calls.
	Lints int
}

// Changed reports whether the result changes any file.
func (r *Result) Changed() bool { return len(r.Files) > 0 }

// Default limits.
const (
	defaultMaxPasses   = 10
	defaultMaxAttempts = 5
)

// findingKey identifies a finding across edits that move it: rule, file and fingerprint
// (which does not depend on the position).
type findingKey struct{ rule, file, fingerprint string }

func keyOf(f *checker.Finding) findingKey {
	return findingKey{f.RuleID, f.Pos.Filename, f.Fingerprint()}
}

// fixKey identifies one fix of one finding across passes and attempts.
type fixKey struct {
	finding findingKey
	message string
}

// block records why a fix is not applied in later attempts.
type block struct {
	reason Reason
	detail string
}

// candidate is a preferred fix to apply in a pass.
type candidate struct {
	finding checker.Finding
	fix     checker.Fix
	key     fixKey
}

// applied is an applied fix with the count of its finding's key in the lint it was chosen
// from, to tell whether it resolved its finding.
type applied struct {
	candidate
	pass   int
	before int
}

// runner holds one Run.
type runner struct {
	ctx      context.Context
	lint     Linter
	opts     Options
	first    *Lint
	counts   map[findingKey]int // keys of the first lint
	eligible map[findingKey]bool
	problems map[string]int // load problems per file in the first lint
	blocked  map[fixKey]block
	lints    int
}

// Run applies the preferred fixes of first's findings (the lint of the files as they are) and
// returns the changed files, what was applied and skipped, and the lint of the result. It
// returns an error only when a lint fails or ctx is cancelled.
func Run(ctx context.Context, first *Lint, lint Linter, opts Options) (*Result, error) {
	if first == nil || lint == nil {
		return nil, errors.New("fix: no lint")
	}
	if opts.MaxPasses <= 0 {
		opts.MaxPasses = defaultMaxPasses
	}
	if opts.MaxAttempts <= 0 {
		opts.MaxAttempts = defaultMaxAttempts
	}
	r := &runner{ctx: ctx, lint: lint, opts: opts, first: first,
		counts: countKeys(first.Findings), eligible: map[findingKey]bool{},
		problems: countProblems(first.Problems), blocked: map[fixKey]block{}}
	for i := range first.Findings {
		f := &first.Findings[i]
		if opts.Eligible == nil || opts.Eligible(f) {
			r.eligible[keyOf(f)] = true
		}
	}
	for attempt := 1; ; attempt++ {
		at, err := r.attempt()
		if err != nil {
			return nil, err
		}
		culprits := r.culprits(at)
		if len(culprits) == 0 {
			return r.result(at), nil
		}
		if attempt == opts.MaxAttempts {
			return r.giveUp(at), nil
		}
		for k, b := range culprits {
			r.blocked[k] = b
		}
	}
}

// attemptState is the outcome of one attempt: the files after its passes, what it applied,
// the conflicts of its last pass, and the lint of the result.
type attemptState struct {
	overlay   map[string][]byte
	applied   []applied
	conflicts map[fixKey]string
	final     *Lint
	unsettled bool
}

// attempt runs lint-and-fix passes from the first lint until no allowed preferred fix is
// left to apply (or the pass limit).
func (r *runner) attempt() (*attemptState, error) {
	st := &attemptState{overlay: map[string][]byte{}, final: r.first}
	done := map[fixKey]bool{}
	for pass := 1; ; pass++ {
		cands := r.candidates(st.final, done)
		if len(cands) == 0 {
			return st, nil
		}
		if pass > r.opts.MaxPasses {
			st.unsettled = true
			return st, nil
		}
		chosen, edits, conflicts := r.choose(st.final, cands)
		st.conflicts = conflicts
		if len(chosen) == 0 {
			return st, nil
		}
		counts := countKeys(st.final.Findings)
		for name, es := range edits {
			content, _ := st.final.Content(name)
			out, err := applyEdits(content, es)
			if err != nil {
				// choose checked every edit; this is a bug, not bad input.
				return nil, fmt.Errorf("fix: apply edits to %s: %w", name, err)
			}
			st.overlay[name] = out
		}
		for _, c := range chosen {
			done[c.key] = true
			st.applied = append(st.applied, applied{candidate: c, pass: pass, before: counts[c.key.finding]})
		}
		if err := r.ctx.Err(); err != nil {
			return nil, err
		}
		next, err := r.lint(r.ctx, copyOverlay(st.overlay))
		r.lints++
		if err != nil {
			return nil, fmt.Errorf("fix: lint the fixed files: %w", err)
		}
		st.final = next
	}
}

// candidates returns the allowed preferred fixes of the eligible findings of l that are not
// blocked and were not applied before in this attempt, in finding order.
func (r *runner) candidates(l *Lint, done map[fixKey]bool) []candidate {
	var out []candidate
	counts := countKeys(l.Findings)
	for i := range l.Findings {
		f := &l.Findings[i]
		fx, ok := f.PreferredFix()
		if !ok || (fx.Safety != checker.Safe && !r.opts.Unsafe) {
			continue
		}
		k := keyOf(f)
		if !r.eligible[k] && counts[k] <= r.counts[k] {
			continue
		}
		fk := fixKey{k, fx.Message}
		if _, b := r.blocked[fk]; b || done[fk] {
			continue
		}
		out = append(out, candidate{finding: *f, fix: *fx, key: fk})
	}
	return out
}

// choose picks the candidates whose edits can be applied together: the first of two
// overlapping fixes wins (the other is a conflict, retried in the next pass). Fixes with
// edits that can never apply are blocked. It returns the chosen fixes and their edits by file.
func (r *runner) choose(l *Lint, cands []candidate) ([]candidate, map[string][]checker.TextEdit, map[fixKey]string) {
	type owned struct {
		edit  checker.TextEdit
		owner *candidate
	}
	taken := map[string][]owned{}
	conflicts := map[fixKey]string{}
	spans := map[string][]text.TemplateSpan{}
	parsed := map[string]int{}
	var chosen []candidate
	for i := range cands {
		c := &cands[i]
		if reason, detail := r.check(l, c.fix, spans); reason != 0 {
			r.blocked[c.key] = block{reason, detail}
			continue
		}
		var clash *candidate
		for _, e := range c.fix.Edits {
			for _, t := range taken[e.Pos.Filename] {
				if overlaps(e, t.edit) {
					clash = t.owner
					break
				}
			}
			if clash != nil {
				break
			}
		}
		if clash != nil {
			conflicts[c.key] = fmt.Sprintf("overlaps the fix of %s at %s", clash.finding.RuleID, clash.finding.Pos)
			continue
		}
		if detail, ok := r.breaks(l, c.fix, parsed); ok {
			r.blocked[c.key] = block{Breaks, detail}
			continue
		}
		for _, e := range c.fix.Edits {
			taken[e.Pos.Filename] = append(taken[e.Pos.Filename], owned{e, c})
		}
		chosen = append(chosen, *c)
	}
	edits := map[string][]checker.TextEdit{}
	for name, ts := range taken {
		for _, t := range ts {
			edits[name] = append(edits[name], t.edit)
		}
	}
	return chosen, edits, conflicts
}

// check returns why a fix can never apply to the files of l (0 when it can). spans caches
// the template placeholders of the files.
func (r *runner) check(l *Lint, fx checker.Fix, spans map[string][]text.TemplateSpan) (Reason, string) {
	if len(fx.Edits) == 0 {
		return Invalid, "the fix has no edits"
	}
	checked := map[string]bool{}
	for i, e := range fx.Edits {
		name := e.Pos.Filename
		content, ok := l.Content(name)
		if name == "" || !ok {
			return NotEditable, fmt.Sprintf("%s is not a file of the run", name)
		}
		if _, ok := spans[name]; !ok {
			spans[name] = text.TemplateSpans(content)
		}
		if !checked[name] {
			checked[name] = true
			if r.opts.Editable != nil {
				if err := r.opts.Editable(name); err != nil {
					return NotEditable, err.Error()
				}
			}
		}
		if e.End.Filename != "" && e.End.Filename != name {
			return Invalid, "an edit spans two files"
		}
		if e.Pos.Offset < 0 || e.End.Offset < e.Pos.Offset || e.End.Offset > len(content) {
			return Invalid, fmt.Sprintf("an edit lies outside %s", name)
		}
		for _, o := range fx.Edits[:i] {
			if o.Pos.Filename == name && o != e && overlaps(o, e) {
				return Invalid, "two edits of the fix overlap"
			}
		}
		if where, ok := checker.EditTouchesPlaceholder(content, spans[name], e); ok {
			return Placeholder, "an edit touches the template placeholder at " + l.position(name, where).String()
		}
	}
	return 0, ""
}

// breaks reports whether fix fx alone adds a load problem to a file it edits (Options.Parse),
// with a description. parsed caches the problem counts of the files as they are.
func (r *runner) breaks(l *Lint, fx checker.Fix, parsed map[string]int) (string, bool) {
	if r.opts.Parse == nil {
		return "", false
	}
	byFile := map[string][]checker.TextEdit{}
	var names []string
	for _, e := range fx.Edits {
		if _, ok := byFile[e.Pos.Filename]; !ok {
			names = append(names, e.Pos.Filename)
		}
		byFile[e.Pos.Filename] = append(byFile[e.Pos.Filename], e)
	}
	for _, name := range names {
		content, _ := l.Content(name)
		before, ok := parsed[name]
		if !ok {
			before = len(r.opts.Parse(name, content))
			parsed[name] = before
		}
		out, err := applyEdits(content, byFile[name])
		if err != nil {
			return "its edits do not apply", true
		}
		if after := r.opts.Parse(name, out); len(after) > before {
			return fmt.Sprintf("%s no longer decodes with it (%s)", name, after[len(after)-1].Message), true
		}
	}
	return "", false
}

// position returns the position of byte offset off of file name in l.
func (l *Lint) position(name string, off int) checker.Position {
	content, _ := l.Content(name)
	return text.NewLineIndex(content).Position(name, off)
}

// overlaps reports whether two edits of one file cannot both apply: their ranges share a
// byte, an insertion falls strictly inside the other's range, or both insert different text
// at the same place (their order would be a guess). Identical edits do not overlap: the same
// edit offered by two fixes is applied once.
func overlaps(a, b checker.TextEdit) bool { return a.Overlaps(b) }

// applyEdits applies the edits of one file, writing inserted line ends the way the file
// writes its own (CRLF files stay CRLF).
func applyEdits(content []byte, edits []checker.TextEdit) ([]byte, error) {
	if crlf(content) {
		es := make([]checker.TextEdit, len(edits))
		for i, e := range edits {
			e.NewText = toCRLF(e.NewText)
			es[i] = e
		}
		edits = es
	}
	return checker.ApplyEdits(content, edits)
}

// crlf reports whether every line of content ends with CRLF (and there is at least one).
func crlf(content []byte) bool {
	n := bytes.Count(content, []byte("\n"))
	return n > 0 && bytes.Count(content, []byte("\r\n")) == n
}

// toCRLF turns lone LFs into CRLFs.
func toCRLF(s string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// culprits returns the fixes of an attempt to roll back, with the reason: fixes that did not
// resolve their finding, fixes in files that no longer decode, and the fixes that caused a
// finding the first lint did not have. Nil means the attempt stands.
func (r *runner) culprits(at *attemptState) map[fixKey]block {
	if len(at.applied) == 0 {
		return nil
	}
	out := map[fixKey]block{}
	finalCounts := countKeys(at.final.Findings)
	for _, a := range at.applied {
		if finalCounts[a.key.finding] >= a.before {
			out[a.key] = block{Unresolved, "its finding is still reported after the fix"}
		}
	}
	probs := countProblems(at.final.Problems)
	for name := range at.overlay {
		if probs[name] > r.problems[name] {
			msg := problemIn(at.final.Problems, name)
			for _, a := range at.applied {
				if a.touches(name) {
					out[a.key] = block{Breaks, fmt.Sprintf("%s no longer decodes with the fixes applied (%s)", name, msg)}
				}
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	seen := map[findingKey]int{}
	for i := range at.final.Findings {
		f := &at.final.Findings[i]
		k := keyOf(f)
		seen[k]++
		if seen[k] <= r.counts[k] {
			continue
		}
		if f.Severity < checker.SeverityWarning {
			continue // advice that a fix uncovers is a follow-up, not a reason to undo it
		}
		detail := fmt.Sprintf("it introduces %s (%s) at %s: %s", f.RuleID, f.RuleName, f.Pos, f.Message)
		for _, a := range sameCluster(f, causes(f, at.applied)) {
			if _, ok := out[a.key]; !ok {
				out[a.key] = block{Introduces, detail}
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sameCluster keeps the fixes of f's cluster: a fix is verified in its own cluster, and what
// it changes elsewhere is a follow-up.
func sameCluster(f *checker.Finding, as []applied) []applied {
	var out []applied
	for _, a := range as {
		if a.finding.Cluster == f.Cluster {
			out = append(out, a)
		}
	}
	return out
}

// followUps lists the findings of the final lint that the first lint did not have and that
// no fix of their own cluster caused.
func (r *runner) followUps(at *attemptState) []checker.Finding {
	var out []checker.Finding
	seen := map[findingKey]int{}
	for i := range at.final.Findings {
		f := &at.final.Findings[i]
		k := keyOf(f)
		seen[k]++
		if seen[k] <= r.counts[k] {
			continue
		}
		if f.Severity < checker.SeverityWarning || len(sameCluster(f, causes(f, at.applied))) == 0 {
			out = append(out, *f)
		}
	}
	return out
}

// causes returns the applied fixes that most likely caused new finding f: the fixes that
// edit its file or the files of its related locations (all fixes when none does), narrowed to
// the earliest pass among them (later passes only fix what earlier ones uncovered) and, within
// it, to the unsafe ones (a safe fix keeps behaviour, so it rarely uncovers anything).
func causes(f *checker.Finding, as []applied) []applied {
	files := map[string]bool{f.Pos.Filename: true}
	for _, rel := range f.Related {
		files[rel.Pos.Filename] = true
	}
	var in []applied
	for _, a := range as {
		for name := range files {
			if a.touches(name) {
				in = append(in, a)
				break
			}
		}
	}
	if len(in) == 0 {
		in = as
	}
	first := in[0].pass
	for _, a := range in {
		first = min(first, a.pass)
	}
	var early, unsafe []applied
	for _, a := range in {
		if a.pass == first {
			early = append(early, a)
			if a.fix.Safety != checker.Safe {
				unsafe = append(unsafe, a)
			}
		}
	}
	if len(unsafe) > 0 {
		return unsafe
	}
	return early
}

// touches reports whether the fix edits file name.
func (a applied) touches(name string) bool {
	for _, e := range a.fix.Edits {
		if e.Pos.Filename == name {
			return true
		}
	}
	return false
}

// problemIn returns the message of the last load problem of file name.
func problemIn(ps []checker.LoadProblem, name string) string {
	msg := ""
	for _, p := range ps {
		if p.Pos.Filename == name {
			msg = p.Message
		}
	}
	return msg
}

// result builds the Result of a standing attempt.
func (r *runner) result(at *attemptState) *Result {
	res := &Result{Final: at.final, Lints: r.lints}
	names := make([]string, 0, len(at.overlay))
	for name := range at.overlay {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		old, _ := r.first.Content(name)
		if !bytes.Equal(old, at.overlay[name]) {
			res.Files = append(res.Files, FileChange{Name: name, Old: old, New: at.overlay[name]})
		}
	}
	for _, a := range at.applied {
		res.Applied = append(res.Applied, Applied{Finding: a.finding, Fix: a.fix, Pass: a.pass})
	}
	if len(at.applied) > 0 {
		res.FollowUps = r.followUps(at)
	}
	// What is left: the allowed preferred fixes of eligible findings of the end state.
	counts := countKeys(at.final.Findings)
	for i := range at.final.Findings {
		f := &at.final.Findings[i]
		fx, ok := f.PreferredFix()
		if !ok {
			continue
		}
		k := keyOf(f)
		if !r.eligible[k] && counts[k] <= r.counts[k] {
			continue
		}
		if fx.Safety != checker.Safe && !r.opts.Unsafe {
			res.Unsafe = append(res.Unsafe, *f)
			continue
		}
		fk := fixKey{k, fx.Message}
		s := Skipped{Finding: *f, Fix: *fx, Reason: Unsettled, Detail: fmt.Sprintf("fixing did not settle within %d passes", r.opts.MaxPasses)}
		if b, ok := r.blocked[fk]; ok {
			s.Reason, s.Detail = b.reason, b.detail
		} else if d, ok := at.conflicts[fk]; ok {
			s.Reason, s.Detail = Conflict, d
		}
		res.Skipped = append(res.Skipped, s)
	}
	return res
}

// giveUp is the result when rolling back did not settle: nothing is changed and every fix of
// the last attempt is reported as skipped.
func (r *runner) giveUp(at *attemptState) *Result {
	res := &Result{Final: r.first, Lints: r.lints}
	for _, a := range at.applied {
		res.Skipped = append(res.Skipped, Skipped{Finding: a.finding, Fix: a.fix, Reason: Unsettled,
			Detail: fmt.Sprintf("rolling back fixes did not settle within %d attempts", r.opts.MaxAttempts)})
	}
	return res
}

func countKeys(fs []checker.Finding) map[findingKey]int {
	m := make(map[findingKey]int, len(fs))
	for i := range fs {
		m[keyOf(&fs[i])]++
	}
	return m
}

// countProblems counts load problems per file; their messages may quote line numbers, which
// edits shift, so the count is what is compared.
func countProblems(ps []checker.LoadProblem) map[string]int {
	m := map[string]int{}
	for _, p := range ps {
		m[p.Pos.Filename]++
	}
	return m
}

func copyOverlay(m map[string][]byte) map[string][]byte {
	c := make(map[string][]byte, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
