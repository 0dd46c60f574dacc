package engine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

func registry() []*checker.Rule {
	ok := func(*checker.Pass) error { return nil }
	rs := []*checker.Rule{
		rule("KP001", "parse-error", ok),
		rule("KP101", "mode-unset", ok),
		rule("KP102", "mode-ipvs", ok),
		rule("KP201", "strict-extra", ok),
	}
	rs[3].Disabled = true
	return rs
}

func ids(rs []*checker.Rule) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.ID)
	}
	return strings.Join(s, ",")
}

func TestSelect(t *testing.T) {
	tests := []struct {
		name            string
		enable, disable []string
		want            string
	}{
		{"defaults", nil, nil, "KP001,KP101,KP102"},
		{"disabled by default runs when enabled", []string{"KP201"}, nil, "KP001,KP101,KP102,KP201"},
		{"by name, any case, spaces", []string{" Strict-Extra "}, nil, "KP001,KP101,KP102,KP201"},
		{"lowercase id", nil, []string{"kp101"}, "KP001,KP102"},
		{"disable by name", nil, []string{"mode-ipvs", "parse-error"}, "KP101"},
		{"all", []string{"all"}, nil, "KP001,KP101,KP102,KP201"},
		{"all minus one", []string{"all"}, []string{"KP001"}, "KP101,KP102,KP201"},
		{"only one", []string{"KP102"}, []string{"all"}, "KP102"},
		{"none", nil, []string{"ALL"}, ""},
		{"empty entries ignored", []string{""}, []string{"", " "}, "KP001,KP101,KP102"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Select(registry(), tt.enable, tt.disable)
			if err != nil {
				t.Fatal(err)
			}
			if ids(got) != tt.want {
				t.Errorf("Select = %s, want %s", ids(got), tt.want)
			}
		})
	}
}

func TestSelectErrors(t *testing.T) {
	tests := []struct {
		name            string
		enable, disable []string
		want            string
	}{
		{"typo in id", []string{"KP1O2"}, nil, `enable rules: unknown rule "KP1O2"; did you mean KP102 (mode-ipvs)?`},
		{"typo in name", nil, []string{"mode-ipsv"}, `disable rules: unknown rule "mode-ipsv"; did you mean KP102 (mode-ipvs)?`},
		{"nothing close", []string{"completely-unrelated-words"}, nil, `enable rules: unknown rule "completely-unrelated-words"`},
		{"both", []string{"KP102"}, []string{"mode-ipvs"}, "select rules: KP102 (mode-ipvs) is both enabled and disabled"},
		{"all both", []string{"all"}, []string{"all"}, `select rules: "all" is both enabled and disabled`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Select(registry(), tt.enable, tt.disable)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("err = %v, want %s", err, tt.want)
			}
		})
	}
	var u *UnknownRuleError
	if _, err := Select(registry(), []string{"KP10"}, nil); !errors.As(err, &u) || u.Suggestion == nil {
		t.Errorf("err = %#v, want *UnknownRuleError with a suggestion", err)
	}
}

func TestSelectEmptyRegistry(t *testing.T) {
	got, err := Select(nil, nil, nil)
	if err != nil || len(got) != 0 {
		t.Fatalf("Select(nil) = %v, %v", got, err)
	}
	if _, err := Select(nil, []string{"KP101"}, nil); err == nil || err.Error() != `enable rules: unknown rule "KP101"` {
		t.Fatalf("err = %v", err)
	}
}

func TestLint(t *testing.T) {
	rs := registry()
	for _, r := range rs {
		r.Run = func(p *checker.Pass) error {
			at(p, "a.yaml", 1, "hit")
			return nil
		}
	}
	out, err := Lint(context.Background(), workspace("a.yaml"), Options{Rules: rs, Disable: []string{"KP001"}})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Findings {
		got = append(got, f.RuleID)
	}
	if strings.Join(got, ",") != "KP101,KP102" {
		t.Errorf("rules reporting = %v", got)
	}
	if _, err := Lint(context.Background(), workspace(), Options{Rules: rs, Enable: []string{"nope"}}); err == nil {
		t.Error("unknown rule: no error")
	}
}

func TestLevenshtein(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		d    int
	}{{"", "", 0}, {"a", "", 1}, {"kp102", "kp1o2", 1}, {"kitten", "sitting", 3}, {"é", "e", 1}} {
		if d := checker.EditDistance(tt.a, tt.b); d != tt.d {
			t.Errorf("EditDistance(%q, %q) = %d, want %d", tt.a, tt.b, d, tt.d)
		}
	}
}
