package rules

import (
	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Where findings about a kube-proxy's effective settings go (the config field, the flag, or
// where a default applies) and what the notes about them say.

// reportSetting reports a finding at the source of an effective setting: the config field,
// the flag, or (for a default) the workload's container or the config's kind line.
func reportSetting(p *checker.Pass, in *checker.Instance, s checker.Setting, sev checker.Severity, msg string, fixes ...checker.Fix) {
	switch {
	case s.Flag != nil:
		p.ReportFlag(s.Flag, sev, msg, fixes...)
	case s.Doc != nil:
		p.ReportValue(s.Doc, s.Path, sev, msg, fixes...)
	case in.Workload != nil:
		p.ReportKey(in.Workload, in.Container.Append("name"), sev, msg, fixes...)
	case in.Kind == checker.InstanceCommand:
		p.Report(checker.Finding{Severity: sev, Message: msg, Pos: in.Program, End: in.ProgramEnd, Fixes: fixes})
	}
}

// instanceRelated returns related locations that explain where an instance's configuration
// comes from.
// modeSetHere names the setting a mode note points at (", set by --proxy-mode=ipvs here"):
// the instance's label may name another line (a command line's program word, a workload),
// and the note must say what its own line holds. "" for a default mode, whose note points at
// the instance itself.
func modeSetHere(m checker.Setting) string {
	switch {
	case m.Flag != nil:
		return ", set by " + flagText(m.Flag) + " here"
	case m.Installer != nil && m.Installer.Key != "":
		return ", set by " + m.Installer.Key + " here"
	case m.Doc != nil && m.Origin == checker.OriginConfig:
		return ", set by " + m.Path.String() + ": " + m.Value + " here"
	}
	return ""
}

func instanceRelated(in *checker.Instance) []checker.Related {
	return append([]checker.Related(nil), in.ConfigVia...)
}
