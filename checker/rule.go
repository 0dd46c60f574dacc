package checker

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
)

// Rule is one check. Go rules and Rego rules share this type and one registry.
type Rule struct {
	// ID is stable and never reused, e.g. "KP102".
	ID string
	// Name is kebab-case, e.g. "mode-ipvs".
	Name string
	Doc  Doc
	// Severity is the default severity; Run may report others depending on the target version.
	Severity Severity
	// Disabled rules run only when enabled explicitly.
	Disabled bool
	// Kinds lists what the rule looks at, for documentation ("KubeProxyConfiguration", "DaemonSet").
	Kinds []string
	// DocURL is where the rule's documentation lives when it is not a generated page under
	// DocsBaseURL (user policies); URL returns it.
	DocURL string
	// External marks a rule that does not ship with kube-proxy-lint (a user policy): it has
	// no page under DocsBaseURL, so without a DocURL it has no documentation address.
	External bool
	// Run checks the workspace and reports through the pass. An error means the rule broke,
	// never that it found a problem.
	Run func(*Pass) error
	// SeverityAt is the severity of the rule's typical finding at a target version, for rules
	// whose severity depends on it (`rules` shows it at the resolved target); nil means
	// Severity at every target. Context may still change a finding's severity (a guarded
	// command, a scope without NodePort Services): Doc.SeverityText says how.
	SeverityAt func(Version) Severity
	// DocFacts, when set, is what the rule reads of one document, taken from its tree (issue
	// 24: facts, not trees). The loader computes it for the documents whose trees it drops
	// (load.Options.Facts: the application workloads that only KP302 reads) before it drops
	// them, and the rule reads it with Facts, which computes it from the tree when the loader
	// did not. It runs while files load, in parallel: it must not keep the document's nodes,
	// nor strings that point into them (they are the decoder's, among its garbage).
	DocFacts func(d *Document) any
	// Reads are the workload kinds (Pod, DaemonSet, Deployment, ...) of which the rule reads
	// every document's tree after loading, not only those that run kube-proxy: a built-in
	// Rego rule whose kinds list them without `workloads: kube-proxy` (KP603 reads every
	// DaemonSet). The loader then keeps of those documents the fields the rules read, rather
	// than their header and the rules' facts (DocFacts).
	Reads []string
	// Queries, for a rule that reads the PromQL queries of Grafana dashboards
	// (DashboardQueries: KP501), says whether it reads query expr. When the loader has the
	// run's rules (load.Options.Facts) it keeps of a dashboard the queries one of them reads,
	// not every query that names a kube-proxy metric.
	Queries func(expr string) bool
	// Shares names what the rule shares with the other rules of a run that name it too (the
	// Rego rules share their view of the workspace): the engine starts those rules before the
	// others and calls what they register with AfterRules once the last of them has returned,
	// so that what they share is not held while the other rules run.
	Shares string
}

// docFactsKey keys a rule's DocFacts of one document of a file (File.Memo).
type docFactsKey struct {
	rule  string
	index int
}

// Facts returns r's facts of d (DocFacts): those the loader kept when it dropped d's tree
// (d.Facts), else computed now from the tree. A header the loader kept no facts of for r has
// none.
func (r *Rule) Facts(d *Document) any {
	if r.DocFacts == nil {
		return nil
	}
	if !d.Facts {
		return r.DocFacts(d)
	}
	v, _ := d.File.memoLoad(docFactsKey{r.ID, d.Index})
	return v
}

// KeepFacts computes r's facts of d and keeps them (on d's file) for Facts: the loader calls
// it for every rule with DocFacts before it drops d's tree, then sets d.Facts.
func (r *Rule) KeepFacts(d *Document) {
	if r.DocFacts != nil {
		d.File.Memo(docFactsKey{r.ID, d.Index}, func() any { return r.DocFacts(d) })
	}
}

// SeverityFor returns the rule's severity at target t.
func (r *Rule) SeverityFor(t Version) Severity {
	if r.SeverityAt != nil {
		return r.SeverityAt(t)
	}
	return r.Severity
}

// ErrorFrom returns a SeverityAt that is a warning before minor version from and an error
// from it on.
func ErrorFrom(from int) func(Version) Severity {
	return func(t Version) Severity {
		if t.AtLeast(from) {
			return SeverityError
		}
		return SeverityWarning
	}
}

// Doc is the structured documentation of a rule; it feeds `explain`, generated docs and SARIF.
type Doc struct {
	Title string
	// Why explains the problem and the facts behind it (Markdown).
	Why string
	// Remediation says how to fix it (Markdown).
	Remediation string
	// Before and After are YAML snippets: a failing and a fixed example.
	Before, After string
	// Since is the kube-proxy-lint version that introduced the rule.
	Since string
	// SeverityText describes version-dependent severities, e.g. "warning; error at target >= 1.40".
	SeverityText string
	// Fixes lists the kinds of fixes the rule's findings carry, with their safety; empty
	// when the rule offers none.
	Fixes []FixDoc
}

// DocsBaseURL is where the generated rule docs are published.
const DocsBaseURL = "https://github.com/kube-proxy-lint/kube-proxy-lint/blob/main/docs/rules/"

// URL returns the rule's documentation address, or "" when it has none (a user policy without
// custom.url): no link is better than a link to a page that does not exist.
func (r *Rule) URL() string {
	if r.DocURL != "" {
		return r.DocURL
	}
	if r.External {
		return ""
	}
	return DocsBaseURL + r.ID + ".md"
}

var (
	idRe   = regexp.MustCompile(`^[A-Z]{2,8}[0-9]{3,4}$`)
	nameRe = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)
)

// ValidID reports whether id is a well-formed rule ID: 2-8 capital letters and 3-4 digits.
func ValidID(id string) bool { return idRe.MatchString(id) }

// ValidName reports whether name is a well-formed kebab-case rule name.
func ValidName(name string) bool { return nameRe.MatchString(name) }

// Validate checks a rule set: IDs and names well-formed and unique, docs complete.
func Validate(rules []*Rule) error {
	var errs []error
	ids := map[string]bool{}
	names := map[string]bool{}
	for _, r := range rules {
		if !idRe.MatchString(r.ID) {
			errs = append(errs, fmt.Errorf("rule %q: malformed ID", r.ID))
		}
		if !nameRe.MatchString(r.Name) {
			errs = append(errs, fmt.Errorf("rule %s: malformed name %q", r.ID, r.Name))
		}
		if ids[r.ID] {
			errs = append(errs, fmt.Errorf("rule %s: duplicate ID", r.ID))
		}
		if names[r.Name] {
			errs = append(errs, fmt.Errorf("rule %s: duplicate name %q", r.ID, r.Name))
		}
		ids[r.ID], names[r.Name] = true, true
		if r.Doc.Title == "" || r.Doc.Why == "" || r.Doc.Remediation == "" || r.Doc.Since == "" {
			errs = append(errs, fmt.Errorf("rule %s: doc needs title, why, remediation and since", r.ID))
		}
		preferred := 0
		for _, fd := range r.Doc.Fixes {
			if fd.Text == "" {
				errs = append(errs, fmt.Errorf("rule %s: a documented fix has no text", r.ID))
			}
			if fd.Preferred {
				preferred++
			}
		}
		if len(r.Doc.Fixes) > 0 && preferred == 0 {
			errs = append(errs, fmt.Errorf("rule %s: documented fixes but none is preferred", r.ID))
		}
		if r.Severity == SeverityNone {
			errs = append(errs, fmt.Errorf("rule %s: no default severity", r.ID))
		}
		if r.Run == nil {
			errs = append(errs, fmt.Errorf("rule %s: no Run function", r.ID))
		}
	}
	if !sort.SliceIsSorted(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID }) {
		errs = append(errs, errors.New("rules are not sorted by ID"))
	}
	return errors.Join(errs...)
}
