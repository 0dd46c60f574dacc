// Package rules holds the built-in Go rules, one file per rule (kp101_mode_unset.go), and the
// registry that lists them. Rules read the loaded checker.Workspace only: no I/O, no OPA.
package rules

import "github.com/kube-proxy-lint/kube-proxy-lint/checker"

// All returns every built-in Go rule, sorted by ID. The list is explicit so that adding a rule
// is a reviewed one-line change and the order never depends on init order; checker.Validate
// (run in TestAll and at startup) rejects an unsorted or inconsistent list.
//
// Each rule file adds exactly one line here, in ID order, naming its rule variable:
//
//	KP001,
//	KP002,
//	KP101,
func All() []*checker.Rule {
	return []*checker.Rule{
		KP001,
		KP002,
		KP003,
		KP101,
		KP102,
		KP103,
		KP104,
		KP105,
		KP106,
		KP201,
		KP202,
		KP203,
		KP205,
		KP301,
		KP302,
		KP303,
		KP401,
		KP402,
		KP501,
		KP502,
		KP602,
		KP900,
	}
}
