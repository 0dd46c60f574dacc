package checker

// Pass is what a rule's Run receives: the workspace, the target version and a way to report.
type Pass struct {
	Rule      *Rule
	Workspace *Workspace
	Target    Version
	// Registry is every rule the run knows, enabled or not, when the engine provides it (nil
	// otherwise); KP900 uses it to recognise the rules a suppression names.
	Registry []*Rule
	report   func(Finding)
}

// NewPass creates a pass that sends findings to report.
func NewPass(r *Rule, ws *Workspace, report func(Finding)) *Pass {
	return &Pass{Rule: r, Workspace: ws, Target: ws.Target.Version, report: report}
}

// Report records a finding, filling in the rule's ID, name and default severity.
func (p *Pass) Report(f Finding) {
	f.RuleID, f.RuleName = p.Rule.ID, p.Rule.Name
	if f.Severity == SeverityNone {
		f.Severity = p.Rule.Severity
	}
	if !f.End.IsValid() {
		f.End = f.Pos
	}
	p.report(f)
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
	p.Report(Finding{Severity: sev, Message: msg, Pos: f.Pos, End: f.End, Object: obj, Path: f.NodePath, Fixes: fixes})
}
