package checker

import "fmt"

// Safety says whether applying a fix keeps what the running cluster does. It follows ruff's
// split of fixes into safe and unsafe ones: most fixes of kube-proxy-lint change the data
// plane, so a fix is unsafe unless the rule shows otherwise (the zero value is Unsafe).
type Safety int

// Safeties of a fix.
const (
	// Unsafe fixes change behaviour (the proxy mode, NodePort reach, an alert's metric):
	// `--fix` applies them only together with `--unsafe-fixes`.
	Unsafe Safety = iota
	// Safe fixes leave the running cluster exactly as it is: they delete settings kube-proxy
	// ignores or never reads, or write down the value that applies today. `--fix` applies them.
	Safe
)

// String returns "safe" or "unsafe", the word every output uses.
func (s Safety) String() string {
	if s == Safe {
		return "safe"
	}
	return "unsafe"
}

// MarshalText implements encoding.TextMarshaler.
func (s Safety) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText implements encoding.TextUnmarshaler.
func (s *Safety) UnmarshalText(b []byte) error {
	switch string(b) {
	case "safe":
		*s = Safe
	case "unsafe", "":
		*s = Unsafe
	default:
		return fmt.Errorf("unknown fix safety %q (want safe or unsafe)", b)
	}
	return nil
}

// PreferredFix returns the fix that `--fix` applies for the finding: the one marked
// Preferred, else the only fix. A finding with several fixes and none marked has no
// preferred fix: its fixes stay suggestions.
func (f *Finding) PreferredFix() (*Fix, bool) {
	for i := range f.Fixes {
		if f.Fixes[i].Preferred {
			return &f.Fixes[i], true
		}
	}
	if len(f.Fixes) == 1 {
		return &f.Fixes[0], true
	}
	return nil, false
}

// FixDoc documents one kind of fix a rule offers: what it does, whether it is safe, and
// whether it is the preferred one. Rules list them in Doc.Fixes; `explain`, the generated
// rule pages and the README's safe/unsafe table show them.
type FixDoc struct {
	// Text says what the fix does and when it is offered (Markdown, one sentence or two).
	Text      string
	Safety    Safety
	Preferred bool
}
