package engine

import (
	"fmt"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// AllKeyword is the keyword that stands for every rule in Enable and Disable lists.
const AllKeyword = "all"

// Select returns the rules of all that a run uses, in the order of all. The default set is
// every rule not marked Disabled. enable adds rules (by ID or name, case-insensitive), and
// "all" adds every rule, including the disabled-by-default ones; disable removes rules, and
// "all" in disable starts from an empty set. A rule named explicitly wins over "all", so
// "--disable all --enable KP102" runs KP102 alone. Naming the same rule in both lists, an
// unknown rule, or "all" in both lists is an error; an unknown rule's error suggests the
// closest ID or name. Empty entries are ignored.
func Select(all []*checker.Rule, enable, disable []string) ([]*checker.Rule, error) {
	en, enAll, err := resolve(all, enable)
	if err != nil {
		return nil, fmt.Errorf("enable rules: %w", err)
	}
	dis, disAll, err := resolve(all, disable)
	if err != nil {
		return nil, fmt.Errorf("disable rules: %w", err)
	}
	if enAll && disAll {
		return nil, fmt.Errorf("select rules: %q is both enabled and disabled", AllKeyword)
	}
	for r := range en {
		if dis[r] {
			return nil, fmt.Errorf("select rules: %s (%s) is both enabled and disabled", r.ID, r.Name)
		}
	}
	var out []*checker.Rule
	for _, r := range all {
		on := !r.Disabled && !disAll
		switch {
		case en[r]:
			on = true
		case dis[r]:
			on = false
		case enAll:
			on = true
		}
		if on {
			out = append(out, r)
		}
	}
	return out, nil
}

// resolve maps names to rules; isAll reports whether the keyword "all" was among them.
func resolve(all []*checker.Rule, names []string) (set map[*checker.Rule]bool, isAll bool, err error) {
	set = map[*checker.Rule]bool{}
	for _, n := range names {
		n = strings.TrimSpace(n)
		switch {
		case n == "":
			continue
		case strings.EqualFold(n, AllKeyword):
			isAll = true
			continue
		}
		r, err := Find(all, n)
		if err != nil {
			return nil, false, err
		}
		set[r] = true
	}
	return set, isAll, nil
}

// Find returns the rule with ID or name s (case-insensitive), or an *UnknownRuleError that
// suggests the closest ID or name.
func Find(all []*checker.Rule, s string) (*checker.Rule, error) {
	s = strings.TrimSpace(s)
	for _, r := range all {
		if strings.EqualFold(r.ID, s) || strings.EqualFold(r.Name, s) {
			return r, nil
		}
	}
	return nil, &UnknownRuleError{Name: s, Suggestion: suggest(all, s)}
}

// UnknownRuleError reports a rule ID or name that is not in the registry.
type UnknownRuleError struct {
	Name string
	// Suggestion is the closest rule, or nil when none is close enough.
	Suggestion *checker.Rule
}

func (e *UnknownRuleError) Error() string {
	msg := fmt.Sprintf("unknown rule %q", e.Name)
	if r := e.Suggestion; r != nil {
		msg += fmt.Sprintf("; did you mean %s (%s)?", r.ID, r.Name)
	}
	return msg
}

// suggest returns the rule whose ID or name is closest to s in edit distance, when the
// distance is small enough for the suggestion to be a likely typo rather than noise.
func suggest(all []*checker.Rule, s string) *checker.Rule {
	s = strings.ToLower(s)
	var best *checker.Rule
	bestD := -1
	for _, r := range all {
		for _, c := range []string{strings.ToLower(r.ID), r.Name} {
			d := checker.EditDistance(s, c)
			if bestD < 0 || d < bestD {
				best, bestD = r, d
			}
		}
	}
	if best == nil || bestD > max(2, len(s)/2) {
		return nil
	}
	return best
}
