// Package report turns findings into output. Every format sits behind one Formatter interface
// and reads one Result, so the command line picks a format by name (New, Formats) and nothing
// else changes. Output is deterministic: the same Result gives the same bytes, so outputs can
// be diffed, cached and kept as goldens (fixtures/report).
//
// # Text
//
// For people, in the style of compilers:
//
//	deploy/kube-proxy.yaml:14:11: error: mode ipvs … (KP102 mode-ipvs)
//	    mode: ipvs
//	          ^~~~
//	  deploy/daemonset.yaml:30:13: note: this DaemonSet mounts the ConfigMap
//	  fix (unsafe): Set mode to nftables
//
//	3 findings (1 error, 2 warnings) · target 1.40 (from kube-proxy image tag in x.yaml:12)
//
// In detail:
//
//   - The first line is "path:line:col: severity: message (ID name)", which editors and CI log
//     matchers understand. Without a line it is "path: …"; without a file, "severity: …".
//   - The offending line follows, indented four spaces, with "^" under the first column of the
//     span and "~" under the rest of it on that line; a span that goes on to later lines is
//     underlined to the end of its first line. The line is shown only when Result.Source knows
//     the file. Columns count code points; tabs are expanded to 8-column stops, East Asian wide
//     characters take two cells and combining marks none, so the caret sits under the right
//     character in a terminal. Lines wider than 120 cells are cut around the span with "…".
//   - Control characters, bidirectional overrides and invalid UTF-8 in file content, paths
//     and messages are shown as visible escapes (\x1b, \u202e), and a line that would start
//     with "::" (a GitHub Actions workflow command) or hold "##[" is escaped too, so a linted
//     file can never drive the terminal or inject commands into a CI log (escape.go).
//   - Related locations follow as "  path:line:col: note: message"; the preferred fix's
//     description as "  fix (safe): message" or "  fix (unsafe): message" (what --fix, or
//     --fix --unsafe-fixes, applies), other fixes as "  alternative (safe|unsafe): message".
//   - After the findings come one blank line and a summary: the count by severity and the
//     target version with where it came from.
//   - A clean run prints nothing at all (quiet when clean): no summary, no load notices. Load
//     notices (Result.Problems) are never printed by this format; the JSON and SARIF formats
//     carry them, and the command line may show them on stderr.
//   - ANSI colours only when Options.Color.
//
// # JSON
//
// One document, indented two spaces, for scripts:
//
//	{
//	  "version": 1,
//	  "tool": {"name": "kube-proxy-lint", "version": "…"},
//	  "target": {"version": "1.40", "source": "…", "pos": {…}},
//	  "rules": [{"id", "name", "severity", "title", "url"}, …],
//	  "findings": [{…the fields of checker.Finding…, "fingerprint": "…"}, …],
//	  "problems": [{"pos": {…}, "message": "…", "manifest": false}, …]
//	}
//
// "version" (JSONVersion) changes only when a field is removed or changes meaning; fields may be
// added within a version. rules, findings and problems are always arrays, [] when empty, never
// null. A position is {"file", "offset", "line", "column"}: 1-based line and code-point column,
// 0-based byte offset, as in checker.Position. A field path is an array of keys and integer
// indices. "fingerprint" is checker.Finding.Fingerprint.
//
// Two more fields appear only when they have entries: "suppressed" lists the findings that
// suppression comments, ignore annotations or config exclusions hid (Result.Suppressed), in
// the form of "findings" plus "suppressions": [{"kind": "inSource"|"external",
// "justification", "pos"}]; "notes" lists the run's notes (Result.Notes: stale baseline
// entries) as {"pos", "ruleId", "message"}; "baselined" counts the findings the baseline hid.
// The text format lists none of them; its summary line counts them (HiddenCounts).
//
// # SARIF
//
// A SARIF 2.1.0 log with one run, valid against the OASIS schema, for GitHub code scanning and
// other SARIF consumers:
//
//   - Artifact URIs are relative to Result.SourceRoot, with forward slashes, percent-encoded,
//     with uriBaseId "%SRCROOT%"; run.originalUriBaseIds maps it to the root's file:// URI. A
//     path outside the root becomes an absolute file:// URI without a base.
//   - Regions use 1-based lines and code-point columns (run.columnKind "unicodeCodePoints");
//     endColumn is exclusive, as SARIF defines it. A finding without a line has no region.
//     (GitHub shows only results that have a location, so a finding without a file is in the
//     log but not on GitHub.)
//   - tool.driver.rules lists the rules that ran, with shortDescription (Doc.Title),
//     fullDescription (first paragraph of Doc.Why), help as text and Markdown (why,
//     remediation, before/after example, link), helpUri, the default level and tags; then a
//     bare descriptor for any rule that reported without being listed, so every result has a
//     valid ruleIndex.
//   - Levels: error → "error", warning → "warning", info → "note". Rules also carry GitHub's
//     "problem.severity" (info → "recommendation"); no "precision" and no
//     "security-severity", since these are configuration-correctness checks, not scored
//     vulnerabilities.
//   - partialFingerprints holds "primaryLocationLineHash" (GitHub's own algorithm, LineHashes)
//     when the file's content is known, and "kubeProxyLint/v1" (FingerprintKey),
//     checker.Finding.Fingerprint, which survives edits that move the finding.
//   - Fixes carry each edit as a replacement whose deletedRegion is given by line and column
//     (byte offset and length when no line is known); an empty insertedContent is omitted. The
//     description says whether the fix is safe (kube-proxy-lint --fix applies it) or unsafe
//     (--fix --unsafe-fixes), and marks alternatives; properties repeat it as "safety"
//     ("safe" or "unsafe") and "preferred".
//   - Load notices (Result.Problems) and findings that report a broken rule (Internal) are
//     toolExecutionNotifications of one invocation, present only when there are any, so that
//     a crashing rule never shows up as an alert in a repository.
//   - Suppressed findings (Result.Suppressed) are results too, after the others, with
//     "suppressions": [{"kind": "inSource" or "external", "justification", "location"}]; run
//     notes (Result.Notes) are "note" toolExecutionNotifications.
//   - Empty arrays and empty fields are omitted (no "index": -1 either), except run.results,
//     which SARIF requires, even empty, in a log that reports a real scan.
//
// # Formats for CI and review tools
//
//   - github: one GitHub Actions workflow command per finding, "::error file=…,line=…,col=…,
//     endLine=…,endColumn=…,title=ID name::message", escaped as @actions/core escapes them; info
//     is "notice"; endColumn is inclusive and given only for one-line spans, as GitHub wants.
//     Related locations and fixes ("fix (safe): …", "alternative (unsafe): …") follow the
//     message on lines of their own.
//   - rdjson, rdjsonl: reviewdog's Diagnostic Format (a DiagnosticResult, or one Diagnostic per
//     line), with columns in UTF-8 bytes as reviewdog defines them, exclusive ends, the rule as
//     code with its URL, related_locations, and the preferred fix, when it edits only the
//     diagnostic's file, as suggestions.
//   - checkstyle: Checkstyle 4.3 XML, files sorted by name, source "kube-proxy-lint.<ID>".
//   - markdown: a summary for pull-request comments and job summaries: counts by severity and
//     by rule, then findings grouped by file, linked to their lines when Options.LinkBase is
//     set, at most 200 listed. A clean run writes "No findings". Text is escaped so that it
//     cannot form markup, links, HTML, @-mentions or issue references; link destinations are
//     percent-encoded.
//
// Each kind of output has one escaping function (Terminal, GitHubData/GitHubProperty,
// Markdown/MarkdownURL, SARIFText; JSON, rdjson and Checkstyle rely on their encoders), tested
// together over one table of hostile names.
package report
