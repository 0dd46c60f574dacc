// Package checker is the API shared by every part of kube-proxy-lint: rules, findings,
// positions, the loaded workspace and the registry. It performs no I/O.
package checker

import (
	"fmt"
	"strings"
)

// Severity ranks a finding. The zero value is SeverityNone, used only as a threshold.
type Severity int

// Severities from lowest to highest.
const (
	SeverityNone Severity = iota
	SeverityInfo
	SeverityWarning
	SeverityError
)

// String returns the lowercase name used in every output format.
func (s Severity) String() string {
	switch s {
	case SeverityInfo:
		return "info"
	case SeverityWarning:
		return "warning"
	case SeverityError:
		return "error"
	default:
		return "none"
	}
}

// MarshalText implements encoding.TextMarshaler.
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// ParseSeverity parses "error", "warning", "info" or "none".
func ParseSeverity(s string) (Severity, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "error":
		return SeverityError, nil
	case "warning", "warn":
		return SeverityWarning, nil
	case "info":
		return SeverityInfo, nil
	case "none":
		return SeverityNone, nil
	}
	return SeverityNone, fmt.Errorf("unknown severity %q (want error, warning, info or none)", s)
}
