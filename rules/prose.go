package rules

import (
	"embed"
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// The Why and Remediation of every rule are Markdown files beside the rule's Go file
// (kp102_mode_ipvs.md next to kp102_mode_ipvs.go), embedded here, so that the prose is
// written, read and reviewed as Markdown rather than as Go strings around backticks.
// `make docs`, `explain` and SARIF render them like any other documentation.
//
//go:embed *.md
var proseFiles embed.FS

// The headings of a prose file, in this order, and nothing else at that level.
const (
	whyHeading         = "## Why"
	remediationHeading = "## Remediation"
)

// withProse returns doc with its Why and Remediation read from the embedded Markdown file.
// A missing or malformed file is a programmer error: the rules' tests load every rule.
func withProse(file string, doc checker.Doc) checker.Doc {
	why, remediation, err := readProse(file)
	if err != nil {
		panic(err)
	}
	doc.Why, doc.Remediation = why, remediation
	return doc
}

// readProse reads and splits one prose file.
func readProse(file string) (why, remediation string, err error) {
	b, err := proseFiles.ReadFile(file)
	if err != nil {
		return "", "", fmt.Errorf("rules/%s: %w", file, err)
	}
	why, remediation, err = parseProse(string(b))
	if err != nil {
		return "", "", fmt.Errorf("rules/%s: %w", file, err)
	}
	return why, remediation, nil
}

// parseProse splits a prose file into its two sections. An HTML comment may come first.
func parseProse(s string) (why, remediation string, err error) {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if strings.HasPrefix(s, "<!--") {
		end := strings.Index(s, "-->")
		if end < 0 {
			return "", "", fmt.Errorf("unterminated comment")
		}
		s = s[end+len("-->"):]
	}
	s = strings.TrimSpace(s)
	rest, ok := strings.CutPrefix(s, whyHeading+"\n")
	if !ok {
		return "", "", fmt.Errorf("want a %q section first", whyHeading)
	}
	why, remediation, ok = strings.Cut(rest, "\n"+remediationHeading+"\n")
	if !ok {
		return "", "", fmt.Errorf("want a %q section after %q", remediationHeading, whyHeading)
	}
	why, remediation = strings.TrimSpace(why), strings.TrimSpace(remediation)
	for _, sec := range []string{why, remediation} {
		if sec == "" {
			return "", "", fmt.Errorf("empty section")
		}
		if strings.HasPrefix(sec, "## ") || strings.Contains(sec, "\n## ") {
			return "", "", fmt.Errorf("a level-2 heading inside a section (use ### for subsections)")
		}
	}
	return why, remediation, nil
}
