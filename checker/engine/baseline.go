package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker"
)

// BaselineVersion is the version of the baseline file format.
const BaselineVersion = 1

// Baseline lists known findings that a run does not report. Entries are keyed by
// checker.Finding.Fingerprint (rule, file, object, field path), which does not change when
// lines move; rule, file and message are there for people reading the file and reviewing its
// diffs.
type Baseline struct {
	Version int             `json:"version"`
	Tool    string          `json:"tool"`
	Entries []BaselineEntry `json:"findings"`
}

// BaselineEntry is one known finding.
type BaselineEntry struct {
	Fingerprint string `json:"fingerprint"`
	Rule        string `json:"rule"`
	File        string `json:"file"`
	Message     string `json:"message"`
}

// NewBaseline returns a baseline of findings, sorted by file, rule and fingerprint so that
// rewriting it gives small diffs. Internal findings (broken rules) are left out.
func NewBaseline(findings []checker.Finding) *Baseline {
	b := &Baseline{Version: BaselineVersion, Tool: "kube-proxy-lint", Entries: []BaselineEntry{}}
	for i := range findings {
		f := &findings[i]
		if f.Internal {
			continue
		}
		b.Entries = append(b.Entries, BaselineEntry{Fingerprint: f.Fingerprint(), Rule: f.RuleID, File: f.Pos.Filename, Message: f.Message})
	}
	sort.SliceStable(b.Entries, func(i, j int) bool {
		x, y := b.Entries[i], b.Entries[j]
		if x.File != y.File {
			return x.File < y.File
		}
		if x.Rule != y.Rule {
			return x.Rule < y.Rule
		}
		return x.Fingerprint < y.Fingerprint
	})
	return b
}

// Marshal encodes the baseline as indented JSON with a final newline.
func (b *Baseline) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(b); err != nil {
		return nil, fmt.Errorf("encode baseline: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseBaseline decodes a baseline file. Unknown fields are an error, so a file of another
// tool or a typo is not silently read as an empty baseline.
func ParseBaseline(data []byte) (*Baseline, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var b Baseline
	if err := dec.Decode(&b); err != nil {
		return nil, fmt.Errorf("decode baseline: %s", jsonError(err, dec.InputOffset()))
	}
	if b.Version != BaselineVersion {
		return nil, fmt.Errorf("decode baseline: unsupported version %d (want %d)", b.Version, BaselineVersion)
	}
	for i, e := range b.Entries {
		if e.Fingerprint == "" {
			return nil, errors.New("decode baseline: entry " + fmt.Sprint(i+1) + " has no fingerprint")
		}
	}
	return &b, nil
}

// jsonError describes a decoding error by kind and byte offset, without the text that
// encoding/json quotes (a field name, a character, a value): the file may not be what it
// claims to be, and its content must not reach a CI log.
func jsonError(err error, offset int64) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Sprintf("invalid JSON at byte %d", se.Offset)
	case errors.As(err, &te):
		return fmt.Sprintf("wrong type of value at byte %d (want %s)", te.Offset, te.Type)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "unexpected end of file"
	case strings.HasPrefix(err.Error(), "json: unknown field"):
		return "unknown field (a baseline has version, tool and findings with fingerprint, rule, file and message)"
	}
	return fmt.Sprintf("invalid baseline at byte %d", offset)
}

// applyBaseline drops the findings the baseline lists, each entry matching at most one
// finding (a second identical finding is new), and adds a note for every entry that matched
// nothing in a file the run covered, with a rule that ran: it is fixed, and the baseline can
// shrink.
func applyBaseline(st *state) error {
	b := st.proc.Baseline
	if b == nil {
		return nil
	}
	left := map[string]int{}
	for _, e := range b.Entries {
		left[e.Fingerprint]++
	}
	st.out.Findings = filter(st.out.Findings, func(f *checker.Finding) bool {
		if f.Internal {
			return true
		}
		fp := f.Fingerprint()
		if left[fp] > 0 {
			left[fp]--
			st.out.Baselined++
			return false
		}
		return true
	})
	covers := st.proc.BaselineCovers
	if covers == nil {
		files := map[string]bool{}
		for _, f := range st.ws.Files {
			if f.Parent == nil {
				files[f.Path] = true
			}
		}
		covers = func(name string) bool { return files[name] }
	}
	ran := map[string]bool{}
	for _, r := range st.rules {
		ran[r.ID] = true
	}
	for _, e := range b.Entries {
		if left[e.Fingerprint] == 0 || !ran[e.Rule] || !covers(e.File) {
			continue
		}
		left[e.Fingerprint]--
		pos := checker.Position{Filename: e.File}
		st.out.Notes = append(st.out.Notes, checker.Note{
			Pos:     &pos,
			RuleID:  e.Rule,
			Message: fmt.Sprintf("stale baseline entry %s %s: %s: no such finding any more; remove it or rewrite the baseline with --write-baseline", e.Rule, e.Fingerprint, e.Message),
		})
	}
	return nil
}
