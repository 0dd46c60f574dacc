package checker

// Note is an informational message of a run that is not a finding, such as a baseline entry
// that no longer matches anything. Notes never affect the exit code.
type Note struct {
	// Pos is where the note applies, when it applies to a place; only Filename may be set.
	Pos *Position `json:"pos,omitempty"`
	// RuleID names the rule the note is about, when there is one.
	RuleID  string `json:"ruleId,omitempty"`
	Message string `json:"message"`
}
