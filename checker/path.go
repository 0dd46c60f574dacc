package checker

import (
	"strconv"
	"strings"
)

// Path is a field path inside a document: mapping keys and, for sequences, decimal indices.
type Path []string

// P builds a path from keys and indices.
func P(elems ...any) Path {
	p := make(Path, 0, len(elems))
	for _, e := range elems {
		switch v := e.(type) {
		case string:
			p = append(p, v)
		case int:
			p = append(p, strconv.Itoa(v))
		case Path:
			p = append(p, v...)
		}
	}
	return p
}

// Append returns a new path with elems added.
func (p Path) Append(elems ...any) Path {
	return P(append([]any{append(Path(nil), p...)}, elems...)...)
}

// String formats the path as spec.containers[0].args[2].
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		if _, err := strconv.Atoi(e); err == nil && e != "" {
			b.WriteString("[" + e + "]")
			continue
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e)
	}
	return b.String()
}

// MarshalJSON encodes the path as an array of keys and integer indices, the form Rego uses.
func (p Path) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	b.WriteByte('[')
	for i, e := range p {
		if i > 0 {
			b.WriteByte(',')
		}
		if _, err := strconv.Atoi(e); err == nil {
			b.WriteString(e)
		} else {
			b.WriteString(strconv.Quote(e))
		}
	}
	b.WriteByte(']')
	return []byte(b.String()), nil
}
