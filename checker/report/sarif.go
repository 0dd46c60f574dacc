package report

import (
	"encoding/json"
	"io"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// Keys of SARIF result.partialFingerprints.
const (
	// FingerprintKey holds checker.Finding.Fingerprint: a position-independent identity (rule,
	// file, object, field path), under a versioned name as SARIF recommends.
	FingerprintKey = "kubeProxyLint/v1"
	// LineHashKey holds LineHashes for the primary location's line. GitHub code scanning
	// computes it when it is absent; filling it in spares the upload reading the files again.
	LineHashKey = "primaryLocationLineHash"
)

const (
	sarifVersion = "2.1.0"
	// sarifSchema is the OASIS SARIF 2.1.0 schema (errata 01), the id of the schema file.
	sarifSchema = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
	// srcRoot is the uriBaseId every relative artifact URI is resolved against.
	srcRoot = "%SRCROOT%"
	// maxTags is GitHub's limit on tags per rule.
	maxTags = 20
)

// sarifFormatter writes the "sarif" format described in the package documentation.
type sarifFormatter struct{}

type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool               sarifTool                        `json:"tool"`
	Invocations        []sarifInvocation                `json:"invocations,omitempty"`
	OriginalURIBaseIDs map[string]sarifArtifactLocation `json:"originalUriBaseIds,omitempty"`
	Results            jsonArray[sarifResult]           `json:"results"`
	ColumnKind         string                           `json:"columnKind"`
	Properties         *sarifRunProps                   `json:"properties,omitempty"`
}

// sarifRunProps is the run's property bag: the repository's target version and that of each
// scope.
type sarifRunProps struct {
	Target  sarifTarget   `json:"target"`
	Targets []sarifTarget `json:"targets,omitempty"`
}

type sarifTarget struct {
	Scope   *string `json:"scope,omitempty"`
	Version string  `json:"version"`
	Source  string  `json:"source,omitempty"`
}

// sarifResultProps is a result's property bag: the target version its scope was checked at.
// Scopes are directories relative to %SRCROOT%, "." for the repository root (SARIF property
// values should not be empty strings).
type sarifResultProps struct {
	// Cluster names the finding's cluster; "" for a shared file.
	Cluster       string `json:"cluster,omitempty"`
	TargetVersion string `json:"targetVersion"`
	TargetSource  string `json:"targetSource,omitempty"`
	TargetScope   string `json:"targetScope"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	Version        string      `json:"version,omitempty"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules,omitempty"`
}

type sarifRule struct {
	ID                   string              `json:"id"`
	Name                 string              `json:"name,omitempty"`
	ShortDescription     *sarifMultiformat   `json:"shortDescription,omitempty"`
	FullDescription      *sarifMultiformat   `json:"fullDescription,omitempty"`
	Help                 *sarifMultiformat   `json:"help,omitempty"`
	HelpURI              string              `json:"helpUri,omitempty"`
	DefaultConfiguration *sarifConfiguration `json:"defaultConfiguration,omitempty"`
	Properties           *sarifRuleProps     `json:"properties,omitempty"`
}

type sarifMultiformat struct {
	Text     string `json:"text"`
	Markdown string `json:"markdown,omitempty"`
}

type sarifConfiguration struct {
	Level string `json:"level"`
}

type sarifRuleProps struct {
	Tags            []string `json:"tags,omitempty"`
	ProblemSeverity string   `json:"problem.severity,omitempty"`
}

type sarifInvocation struct {
	ExecutionSuccessful        bool                `json:"executionSuccessful"`
	ToolExecutionNotifications []sarifNotification `json:"toolExecutionNotifications,omitempty"`
}

type sarifNotification struct {
	Level          string              `json:"level"`
	Message        sarifMessage        `json:"message"`
	Locations      []sarifLocation     `json:"locations,omitempty"`
	AssociatedRule *sarifDescriptorRef `json:"associatedRule,omitempty"`
}

type sarifDescriptorRef struct {
	ID    string `json:"id"`
	Index *int   `json:"index,omitempty"`
}

type sarifResult struct {
	RuleID              string             `json:"ruleId,omitempty"`
	RuleIndex           *int               `json:"ruleIndex,omitempty"`
	Level               string             `json:"level"`
	Message             sarifMessage       `json:"message"`
	Locations           []sarifLocation    `json:"locations,omitempty"`
	RelatedLocations    []sarifLocation    `json:"relatedLocations,omitempty"`
	PartialFingerprints map[string]string  `json:"partialFingerprints,omitempty"`
	Fixes               []sarifFix         `json:"fixes,omitempty"`
	Suppressions        []sarifSuppression `json:"suppressions,omitempty"`
	Properties          *sarifResultProps  `json:"properties,omitempty"`
}

// sarifSuppression says why a result is suppressed: kind "inSource" for comments and
// annotations, "external" for config exclusions.
type sarifSuppression struct {
	Kind          string         `json:"kind"`
	Justification string         `json:"justification,omitempty"`
	Location      *sarifLocation `json:"location,omitempty"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifLocation struct {
	ID               int                    `json:"id,omitempty"`
	PhysicalLocation *sarifPhysicalLocation `json:"physicalLocation,omitempty"`
	Message          *sarifMessage          `json:"message,omitempty"`
}

type sarifPhysicalLocation struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Region           *sarifRegion          `json:"region,omitempty"`
}

type sarifArtifactLocation struct {
	URI       string `json:"uri"`
	URIBaseID string `json:"uriBaseId,omitempty"`
}

type sarifRegion struct {
	StartLine   int  `json:"startLine,omitempty"`
	StartColumn int  `json:"startColumn,omitempty"`
	EndLine     int  `json:"endLine,omitempty"`
	EndColumn   int  `json:"endColumn,omitempty"`
	ByteOffset  *int `json:"byteOffset,omitempty"`
	ByteLength  *int `json:"byteLength,omitempty"`
}

type sarifFix struct {
	Description     *sarifMessage         `json:"description,omitempty"`
	ArtifactChanges []sarifArtifactChange `json:"artifactChanges"`
	Properties      *sarifFixProperties   `json:"properties,omitempty"`
}

// sarifFixProperties say what kube-proxy-lint --fix does with a fix.
type sarifFixProperties struct {
	Safety    checker.Safety `json:"safety"`
	Preferred bool           `json:"preferred"`
}

type sarifArtifactChange struct {
	ArtifactLocation sarifArtifactLocation `json:"artifactLocation"`
	Replacements     []sarifReplacement    `json:"replacements"`
}

type sarifReplacement struct {
	DeletedRegion   sarifRegion           `json:"deletedRegion"`
	InsertedContent *sarifArtifactContent `json:"insertedContent,omitempty"`
}

type sarifArtifactContent struct {
	Text string `json:"text"`
}

// sarifBuilder holds what converting one Result needs.
type sarifBuilder struct {
	root string // SourceRoot made absolute; "" when unknown
	src  *sources
}

// Format writes the SARIF log.
func (sarifFormatter) Format(w io.Writer, r *Result) error {
	b := &sarifBuilder{src: newSources(r.Source)}
	if r.SourceRoot != "" {
		if root, err := filepath.Abs(r.SourceRoot); err == nil {
			b.root = root
		}
	}
	rules := newRuleTable(r)
	run := sarifRun{
		Tool: sarifTool{Driver: sarifDriver{
			Name:           ToolName,
			Version:        r.ToolVersion,
			InformationURI: InformationURI,
		}},
		Results:    jsonArray[sarifResult]{Items: make([]sarifResult, 0, len(r.Findings))},
		ColumnKind: "unicodeCodePoints",
	}
	for _, rule := range rules.rules {
		run.Tool.Driver.Rules = append(run.Tool.Driver.Rules, sarifRuleOf(rule))
	}
	if b.root != "" {
		run.OriginalURIBaseIDs = map[string]sarifArtifactLocation{srcRoot: {URI: fileURI(b.root, true)}}
	}
	if r.Target.Version != (checker.Version{}) {
		props := &sarifRunProps{Target: sarifTarget{Version: r.Target.Version.String(), Source: r.Target.Source}}
		for _, t := range r.Targets {
			s := scopeName(t.Scope)
			props.Targets = append(props.Targets, sarifTarget{Scope: &s, Version: t.Version.String(), Source: t.Source})
		}
		run.Properties = props
	}
	var notes []sarifNotification
	for i := range r.Findings {
		f := &r.Findings[i]
		if f.Internal {
			notes = append(notes, b.internal(f, rules))
			continue
		}
		run.Results.Items = append(run.Results.Items, b.result(f, rules))
	}
	for i := range r.Suppressed {
		f := &r.Suppressed[i]
		res := b.result(f, rules)
		for _, s := range f.Suppressions {
			ss := sarifSuppression{Kind: s.Kind, Justification: s.Justification}
			if s.Pos != nil && s.Pos.Filename != "" {
				ss.Location = &sarifLocation{PhysicalLocation: b.physical(*s.Pos, *s.Pos)}
			}
			res.Suppressions = append(res.Suppressions, ss)
		}
		run.Results.Items = append(run.Results.Items, res)
	}
	for _, n := range r.Notes {
		sn := sarifNotification{Level: "note", Message: sarifMessage{Text: SARIFText(n.Message)}}
		if n.Pos != nil && n.Pos.Filename != "" {
			sn.Locations = []sarifLocation{{PhysicalLocation: b.physical(*n.Pos, *n.Pos)}}
		}
		if n.RuleID != "" {
			sn.AssociatedRule = &sarifDescriptorRef{ID: n.RuleID}
			if i, ok := rules.index[n.RuleID]; ok {
				sn.AssociatedRule.Index = &i
			}
		}
		notes = append(notes, sn)
	}
	if len(r.Problems) > 0 || len(notes) > 0 {
		// executionSuccessful stays true as in CodeQL's logs: the run finished and reported;
		// the notifications say what went wrong on the way.
		inv := sarifInvocation{ExecutionSuccessful: true, ToolExecutionNotifications: notes}
		for _, p := range r.Problems {
			n := sarifNotification{Level: "note", Message: sarifMessage{Text: SARIFText(p.Message)}}
			if p.Manifest {
				n.Level = "warning"
			}
			if p.Pos.Filename != "" {
				n.Locations = []sarifLocation{{PhysicalLocation: b.physical(p.Pos, p.Pos)}}
			}
			inv.ToolExecutionNotifications = append(inv.ToolExecutionNotifications, n)
		}
		run.Invocations = []sarifInvocation{inv}
	}
	return writeJSON(w, sarifLog{Schema: sarifSchema, Version: sarifVersion, Runs: []sarifRun{run}})
}

// internal turns a finding that reports a broken rule into an error notification tied to the
// rule: it is a fault of the tool, not an alert about the repository.
func (b *sarifBuilder) internal(f *checker.Finding, rules *ruleTable) sarifNotification {
	n := sarifNotification{Level: "error", Message: sarifMessage{Text: SARIFText(f.Message)}}
	if f.Pos.Filename != "" {
		n.Locations = []sarifLocation{{PhysicalLocation: b.physical(f.Pos, f.End)}}
	}
	if f.RuleID != "" {
		n.AssociatedRule = &sarifDescriptorRef{ID: f.RuleID}
		if i, ok := rules.index[f.RuleID]; ok {
			n.AssociatedRule.Index = &i
		}
	}
	return n
}

func (b *sarifBuilder) result(f *checker.Finding, rules *ruleTable) sarifResult {
	res := sarifResult{
		RuleID:  f.RuleID,
		Level:   sarifLevel(f.Severity),
		Message: sarifMessage{Text: resultMessage(f)},
	}
	if i, ok := rules.index[f.RuleID]; ok {
		res.RuleIndex = &i
	}
	if t := f.Target; t != nil {
		res.Properties = &sarifResultProps{Cluster: f.Cluster, TargetVersion: t.Version.String(), TargetSource: t.Source, TargetScope: scopeName(t.Scope)}
	}
	if f.Pos.Filename != "" {
		res.Locations = []sarifLocation{{PhysicalLocation: b.physical(f.Pos, f.End)}}
	}
	for i, rel := range f.Related {
		loc := sarifLocation{ID: i + 1}
		if rel.Pos.Filename != "" {
			loc.PhysicalLocation = b.physical(rel.Pos, rel.End)
		}
		if rel.Message != "" {
			loc.Message = &sarifMessage{Text: SARIFText(rel.Message)}
		}
		res.RelatedLocations = append(res.RelatedLocations, loc)
	}
	res.PartialFingerprints = map[string]string{FingerprintKey: f.Fingerprint()}
	if f.Pos.IsValid() {
		if h := b.src.lineHash(f.Pos.Filename, f.Pos.Line); h != "" {
			res.PartialFingerprints[LineHashKey] = h
		}
	}
	seen := map[string]bool{}
	preferred, _ := f.PreferredFix()
	for i, fix := range f.Fixes {
		sf, ok := b.fix(fix, preferred == &f.Fixes[i])
		if !ok {
			continue
		}
		// SARIF wants fixes unique; a rule that offers the same fix twice must not make the
		// log invalid.
		key, _ := json.Marshal(sf)
		if seen[string(key)] {
			continue
		}
		seen[string(key)] = true
		res.Fixes = append(res.Fixes, sf)
	}
	return res
}

// resultMessage is a result's message text. GitHub code scanning shows a result's related
// locations only where its message links them, so the evidence in other files (the
// ConfigMap, the volume, the mount) is appended as SARIF embedded links, "[text](id)", to the
// relatedLocations by id. Literal brackets are escaped (SARIFText), as links require (SARIF
// 3.11.6).
func resultMessage(f *checker.Finding) string {
	msg := SARIFText(f.Message)
	var links []string
	for i, rel := range f.Related {
		text := rel.Message
		if text == "" {
			text = rel.Pos.String()
		}
		links = append(links, "["+SARIFText(text)+"]("+strconv.Itoa(i+1)+")")
	}
	if len(links) == 0 {
		return msg
	}
	return msg + "; evidence: " + strings.Join(links, "; ")
}

// physical converts a span to a physical location; without a line it names the file only.
func (b *sarifBuilder) physical(pos, end checker.Position) *sarifPhysicalLocation {
	pl := &sarifPhysicalLocation{ArtifactLocation: b.artifact(pos.Filename)}
	if pos.IsValid() {
		e := span(pos, end)
		r := &sarifRegion{StartLine: pos.Line, EndLine: e.Line}
		if pos.Column >= 1 && e.Column >= 1 {
			r.StartColumn, r.EndColumn = pos.Column, e.Column
		}
		pl.Region = r
	}
	return pl
}

// fix converts a fix; edits are grouped by file in order of first appearance and sorted by
// offset within a file.
func (b *sarifBuilder) fix(fix checker.Fix, preferred bool) (sarifFix, bool) {
	sf := sarifFix{Properties: &sarifFixProperties{Safety: fix.Safety, Preferred: preferred}}
	// The description says what --fix does with the fix.
	how := "safe fix: kube-proxy-lint --fix applies it"
	if fix.Safety != checker.Safe {
		how = "unsafe fix, it changes behaviour: kube-proxy-lint --fix --unsafe-fixes applies it"
	}
	if !preferred {
		how = fix.Safety.String() + " alternative, a suggestion that kube-proxy-lint --fix does not apply"
	}
	text := fix.Message
	if text == "" {
		text = "Fix"
	}
	sf.Description = &sarifMessage{Text: SARIFText(text) + " (" + how + ")"}
	byFile := map[string][]checker.TextEdit{}
	var order []string
	for _, e := range fix.Edits {
		if e.Pos.Filename == "" {
			continue
		}
		if _, ok := byFile[e.Pos.Filename]; !ok {
			order = append(order, e.Pos.Filename)
		}
		byFile[e.Pos.Filename] = append(byFile[e.Pos.Filename], e)
	}
	for _, name := range order {
		edits := byFile[name]
		sort.SliceStable(edits, func(i, j int) bool { return edits[i].Pos.Offset < edits[j].Pos.Offset })
		ch := sarifArtifactChange{ArtifactLocation: b.artifact(name)}
		for _, e := range edits {
			rep := sarifReplacement{DeletedRegion: b.editRegion(e)}
			if e.NewText != "" {
				rep.InsertedContent = &sarifArtifactContent{Text: e.NewText}
			}
			ch.Replacements = append(ch.Replacements, rep)
		}
		sf.ArtifactChanges = append(sf.ArtifactChanges, ch)
	}
	return sf, len(sf.ArtifactChanges) > 0
}

// editRegion gives an edit's deleted span by line and column, computing them from the byte
// offsets when the edit lacks them and the file is known, else by byte offset and length.
func (b *sarifBuilder) editRegion(e checker.TextEdit) sarifRegion {
	pos, end := e.Pos, e.End
	if (!pos.IsValid() || !end.IsValid() || pos.Column < 1 || end.Column < 1) && end.Offset >= pos.Offset {
		if f := b.src.file(pos.Filename); f != nil {
			pos = f.index.Position(pos.Filename, pos.Offset)
			end = f.index.Position(pos.Filename, end.Offset)
		}
	}
	if pos.IsValid() && end.IsValid() && pos.Column >= 1 && end.Column >= 1 {
		return sarifRegion{StartLine: pos.Line, StartColumn: pos.Column, EndLine: end.Line, EndColumn: end.Column}
	}
	off, n := e.Pos.Offset, max(0, e.End.Offset-e.Pos.Offset)
	return sarifRegion{ByteOffset: &off, ByteLength: &n}
}

// artifact names a file: relative to the source root with uriBaseId %SRCROOT%, or an absolute
// file URI when it lies outside the root.
func (b *sarifBuilder) artifact(name string) sarifArtifactLocation {
	if filepath.IsAbs(name) || path.IsAbs(filepath.ToSlash(name)) {
		if b.root != "" {
			if rel, err := filepath.Rel(b.root, name); err == nil && rel != ".." &&
				!strings.HasPrefix(filepath.ToSlash(rel), "../") {
				return sarifArtifactLocation{URI: escapeURIPath(filepath.ToSlash(rel), false), URIBaseID: srcRoot}
			}
		}
		return sarifArtifactLocation{URI: fileURI(name, false)}
	}
	rel := path.Clean(filepath.ToSlash(name))
	if (rel == ".." || strings.HasPrefix(rel, "../")) && b.root != "" {
		// Above the root: name the file itself rather than climb out of the base.
		return sarifArtifactLocation{URI: fileURI(filepath.Join(b.root, name), false)}
	}
	return sarifArtifactLocation{URI: escapeURIPath(rel, false), URIBaseID: srcRoot}
}

// fileURI makes an absolute file:// URI of an absolute path; dir adds the trailing slash that
// a base URI needs.
func fileURI(p string, dir bool) string {
	p = filepath.ToSlash(p)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // Windows: C:/x → /C:/x
	}
	if dir && !strings.HasSuffix(p, "/") {
		p += "/"
	}
	return "file://" + escapeURIPath(p, true)
}

// escapeURIPath percent-encodes a slash-separated path for use in a URI: everything but
// unreserved characters, "/" and the sub-delimiters and "@" that RFC 3986 allows in a path is
// encoded, bytes of non-ASCII characters included. A colon is kept only in absolute paths: in
// a relative reference it would read as a scheme.
func escapeURIPath(p string, keepColon bool) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~/!$&'()*+,;=@", c) >= 0, c == ':' && keepColon:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

func sarifLevel(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return "error"
	case checker.SeverityWarning:
		return "warning"
	case checker.SeverityInfo:
		return "note"
	default:
		return "none"
	}
}

// problemSeverity is GitHub's rule property for non-security alerts.
func problemSeverity(s checker.Severity) string {
	switch s {
	case checker.SeverityError:
		return "error"
	case checker.SeverityWarning:
		return "warning"
	case checker.SeverityInfo:
		return "recommendation"
	default:
		return ""
	}
}

// sarifRuleOf describes a rule from its Doc.
func sarifRuleOf(rule *checker.Rule) sarifRule {
	sr := sarifRule{ID: rule.ID, Name: rule.Name}
	doc := rule.Doc
	if doc.Title != "" {
		sr.ShortDescription = &sarifMultiformat{Text: doc.Title}
	}
	if p := firstParagraph(doc.Why); p != "" {
		sr.FullDescription = &sarifMultiformat{Text: p}
	} else if doc.Title != "" {
		sr.FullDescription = &sarifMultiformat{Text: doc.Title}
	}
	if doc.Why != "" || doc.Remediation != "" {
		text, md := ruleHelp(rule)
		sr.Help = &sarifMultiformat{Text: text, Markdown: md}
	}
	if rule.Doc.Title != "" {
		// A descriptor synthesised for an unlisted rule has no page to point at, nor has a
		// user policy without custom.url (URL is empty).
		sr.HelpURI = rule.URL()
	}
	if rule.Severity != checker.SeverityNone {
		sr.DefaultConfiguration = &sarifConfiguration{Level: sarifLevel(rule.Severity)}
	}
	sr.Properties = &sarifRuleProps{Tags: ruleTags(rule), ProblemSeverity: problemSeverity(rule.Severity)}
	return sr
}

// ruleTags are "kube-proxy", "kubernetes" and the kinds the rule looks at, unique, at most
// GitHub's 20.
func ruleTags(rule *checker.Rule) []string {
	tags := []string{"kube-proxy", "kubernetes"}
	seen := map[string]bool{"kube-proxy": true, "kubernetes": true}
	for _, k := range rule.Kinds {
		if k == "" || seen[k] || len(tags) == maxTags {
			continue
		}
		seen[k] = true
		tags = append(tags, k)
	}
	return tags
}

// firstParagraph returns the first paragraph of Markdown text, its lines joined by spaces.
func firstParagraph(md string) string {
	md = strings.TrimSpace(strings.ReplaceAll(md, "\r\n", "\n"))
	var lines []string
	for _, l := range strings.Split(md, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			break
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, " ")
}

// ruleHelp renders a rule's documentation: why, remediation, a before/after example and a
// link to its page, as plain text and as Markdown.
func ruleHelp(rule *checker.Rule) (text, markdown string) {
	doc := rule.Doc
	var t, m strings.Builder
	why := strings.TrimSpace(doc.Why)
	rem := strings.TrimSpace(doc.Remediation)
	if why != "" {
		t.WriteString(why + "\n")
		m.WriteString(why + "\n")
	}
	if rem != "" {
		t.WriteString("\nRemediation:\n" + rem + "\n")
		m.WriteString("\n## Remediation\n\n" + rem + "\n")
	}
	if len(doc.Fixes) > 0 {
		// Which fixes kube-proxy-lint --fix applies, and which need --unsafe-fixes.
		t.WriteString("\nFixes:\n")
		m.WriteString("\n## Fixes\n\n")
		for _, fd := range doc.Fixes {
			how := "kube-proxy-lint --fix"
			switch {
			case !fd.Preferred:
				how = "alternative, a suggestion only"
			case fd.Safety != checker.Safe:
				how = "kube-proxy-lint --fix --unsafe-fixes"
			}
			line := fd.Safety.String() + " (" + how + "): " + strings.Join(strings.Fields(fd.Text), " ")
			t.WriteString("- " + line + "\n")
			m.WriteString("- " + line + "\n")
		}
	}
	before := strings.TrimRight(doc.Before, "\n\r\t ")
	after := strings.TrimRight(doc.After, "\n\r\t ")
	if before != "" || after != "" {
		m.WriteString("\n## Example\n")
	}
	if before != "" {
		t.WriteString("\nBefore:\n" + indent(before, "    ") + "\n")
		m.WriteString("\nBefore:\n\n" + fence(before) + "\n")
	}
	if after != "" {
		t.WriteString("\nAfter:\n" + indent(after, "    ") + "\n")
		m.WriteString("\nAfter:\n\n" + fence(after) + "\n")
	}
	if doc.Title != "" && rule.URL() != "" {
		t.WriteString("\nDocumentation: " + rule.URL() + "\n")
		m.WriteString("\n[" + rule.ID + " " + rule.Name + "](" + rule.URL() + ")\n")
	}
	return strings.TrimSpace(t.String()), strings.TrimSpace(m.String())
}

func indent(s, prefix string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

// fence wraps a YAML snippet in a code fence longer than any backtick run inside it.
func fence(s string) string {
	ticks := "```"
	for strings.Contains(s, ticks) {
		ticks += "`"
	}
	return ticks + "yaml\n" + s + "\n" + ticks
}
