package checker

import (
	"context"
	"strings"
	"sync"
)

// Pass is what a rule's Run receives: the workspace, the target versions and a way to report.
//
// Each file is checked at the target version of its own scope (Workspace.TargetOf). A rule
// binds the pass to what it is checking, At(file) or ForInstance(in), reads the version from
// the bound pass (Target) and reports through it, so that the version in a message and the
// version recorded with the finding (Finding.Target) are the same. An unbound pass records
// each finding at the target of the file it points at.
type Pass struct {
	Rule      *Rule
	Workspace *Workspace
	// Registry is every rule the run knows, enabled or not, when the engine provides it (nil
	// otherwise); KP900 uses it to recognise the rules a suppression names.
	Registry []*Rule
	// Ctx is the run's context, cancelled on SIGINT/SIGTERM; nil means context.Background.
	// Rules that loop over many documents or evaluate for long check Cancelled.
	Ctx    context.Context
	report func(Finding)
	bound  *Target
	// shared is what the pass and the passes bound from it (At, ForInstance) share: made by
	// NewPass, nil in a pass made otherwise.
	shared *passShared
}

// passShared is what Report shares between findings of one pass (issue 24: a rule reports
// tens of thousands of findings at 100,000 files, and each held a target and a message of
// its own): the target of the last file reported in by an unbound pass, and the messages
// reported so far, each kept once.
type passShared struct {
	mu     sync.Mutex
	file   string
	target *Target
	msgs   map[string]string
}

// maxSharedMessages bounds passShared.msgs: past it, messages are kept as they come.
const maxSharedMessages = 1 << 16

// Context returns the run's context.
func (p *Pass) Context() context.Context {
	if p.Ctx == nil {
		return context.Background()
	}
	return p.Ctx
}

// Cancelled reports whether the run was cancelled: a rule may stop early, its findings are
// discarded anyway.
func (p *Pass) Cancelled() bool { return p.Ctx != nil && p.Ctx.Err() != nil }

// NewPass creates a pass that sends findings to report.
func NewPass(r *Rule, ws *Workspace, report func(Finding)) *Pass {
	return &Pass{Rule: r, Workspace: ws, report: report, shared: &passShared{}}
}

// At returns the pass bound to the target of file (a Position.Filename).
func (p *Pass) At(file string) *Pass {
	t := p.Workspace.TargetOf(file)
	q := *p
	q.bound = &t
	return &q
}

// ForInstance returns the pass bound to the target of a kube-proxy instance
// (Workspace.InstanceTarget).
func (p *Pass) ForInstance(in *Instance) *Pass {
	t := p.Workspace.InstanceTarget(in)
	q := *p
	q.bound = &t
	return &q
}

// Target returns the version the pass checks at: the bound target, else the repository's
// (Workspace.Target), which only rules that speak about no file should use.
func (p *Pass) Target() Version {
	if p.bound != nil {
		return p.bound.Version
	}
	return p.Workspace.Target.Version
}

// Report records a finding, filling in the rule's ID, name and default severity, and the
// target it was checked at.
func (p *Pass) Report(f Finding) {
	f.RuleID, f.RuleName = p.Rule.ID, p.Rule.Name
	if f.Severity == SeverityNone {
		f.Severity = p.Rule.Severity
	}
	if !f.End.IsValid() {
		f.End = f.Pos
	}
	if f.Target == nil {
		// The target and cluster of the file as checked: a rendered file's rendering, before
		// the position moves to the values file that writes it. Nothing writes a finding's
		// target, so findings share the bound one (made for its pass) or the file's.
		f.Target = p.bound
		if f.Target == nil {
			f.Target = p.targetOf(f.Pos.Filename)
		}
	}
	if f.Cluster == "" {
		f.Cluster = f.Target.Scope
	}
	// A finding in a rendered chart points at the values file or template that writes it.
	if p.Workspace != nil {
		p.Workspace.MapFinding(&f)
		if of := p.Workspace.File(f.Pos.Filename); of != nil && len(of.ValueVias[f.Pos.Offset]) > 0 {
			// A value used elsewhere (a heredoc's $MODE): the note names the use.
			f.Related = append(append([]Related(nil), f.Related...), of.ValueVias[f.Pos.Offset]...)
		}
	}
	f.Fixes = p.dropPlaceholderFixes(f.Fixes)
	if len(f.Fixes) == 1 && !f.Fixes[0].Preferred {
		// A finding's only fix is its preferred fix; saying so keeps outputs explicit.
		f.Fixes = append([]Fix(nil), f.Fixes...)
		f.Fixes[0].Preferred = true
	}
	if strings.HasPrefix(f.RuleID, "KP") && NamesVersion(f.Message) && !hasClause(f.Message) {
		// A built-in message that names the release a problem arrives in also says which
		// cluster it is about and the release that cluster is at (arrival.go); the target is
		// then named once, in the clause.
		v := f.Target.Version.String()
		f.Message = strings.ReplaceAll(f.Message, " at target "+v, " at "+v)
		f.Message = strings.ReplaceAll(f.Message, " (target "+v+")", "")
		f.Message += " (" + f.Target.ClusterClause() + ")"
	}
	f.Message = p.message(f.Message)
	p.report(f)
}

// targetOf returns the target of file for a finding of an unbound pass: one for the findings
// reported in a file one after the other.
func (p *Pass) targetOf(file string) *Target {
	sh := p.shared
	if sh == nil {
		t := p.Workspace.TargetOf(file)
		return &t
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if sh.target == nil || sh.file != file {
		t := p.Workspace.TargetOf(file)
		sh.file, sh.target = file, &t
	}
	return sh.target
}

// message returns msg, or the equal message reported before in the pass: a rule's findings
// repeat a few messages (a chain's in every script that names it).
func (p *Pass) message(msg string) string {
	sh := p.shared
	if sh == nil {
		return msg
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if m, ok := sh.msgs[msg]; ok {
		return m
	}
	if sh.msgs == nil {
		sh.msgs = map[string]string{}
	}
	if len(sh.msgs) < maxSharedMessages {
		sh.msgs[msg] = msg
	}
	return msg
}

// ReportKey reports on the key at path in doc, or where it would be when absent.
func (p *Pass) ReportKey(doc *Document, path Path, sev Severity, msg string, fixes ...Fix) {
	pos, end, ok := doc.KeyPos(path)
	if !ok {
		pos, end = doc.AbsentPos(path)
	}
	p.Report(Finding{Severity: sev, Message: msg, Pos: pos, End: end, Object: doc.Ref(), Path: path, Fixes: fixes})
}

// ReportValue reports on the value at path in doc, or where it would be when absent.
func (p *Pass) ReportValue(doc *Document, path Path, sev Severity, msg string, fixes ...Fix) {
	pos, end, ok := doc.ValuePos(path)
	if !ok {
		pos, end = doc.AbsentPos(path)
	}
	p.Report(Finding{Severity: sev, Message: msg, Pos: pos, End: end, Object: doc.Ref(), Path: path, Fixes: fixes})
}

// ReportFlag reports on a command-line flag.
func (p *Pass) ReportFlag(f *Flag, sev Severity, msg string, fixes ...Fix) {
	var obj *ObjectRef
	if f.Doc != nil {
		obj = f.Doc.Ref()
	}
	p.Report(Finding{Severity: sev, Message: msg, Pos: f.Pos, End: f.End, Object: obj, Path: f.NodePath, Fixes: fixes, Related: append([]Related(nil), f.Via...)})
}

// dropPlaceholderFixes returns fixes without those that would touch a template placeholder
// or edit outside their file (see EditTouchesPlaceholder): the placeholder contract holds for
// every rule, Go or Rego, in this one place. When the preferred fix goes, all go: an
// alternative never becomes the fix --fix applies by default.
func (p *Pass) dropPlaceholderFixes(fixes []Fix) []Fix {
	if len(fixes) == 0 || p.Workspace == nil {
		return fixes
	}
	var kept []Fix
	for _, fx := range fixes {
		if p.editsOK(fx) {
			kept = append(kept, fx)
		} else if fx.Preferred || len(fixes) == 1 {
			return nil
		}
	}
	return kept
}

// editsOK reports whether every edit of fx lies within its file and leaves placeholders alone.
func (p *Pass) editsOK(fx Fix) bool {
	for _, e := range fx.Edits {
		file := p.Workspace.File(e.Pos.Filename)
		if file == nil {
			continue // not a file of the workspace: the fixer refuses it
		}
		content, err := file.TextOnce() // released once loaded: read again (checker/load: releaseContent)
		if err != nil || e.Pos.Offset < 0 || e.End.Offset < e.Pos.Offset || e.End.Offset > len(content) {
			return false
		}
		if _, bad := EditTouchesPlaceholder(content, file.TemplateSpans(), e); bad {
			return false
		}
	}
	return true
}
