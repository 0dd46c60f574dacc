package checker

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Path is a field path inside a document: mapping keys and, for sequences, decimal indices.
type Path []string

// P builds a path from keys and indices.
func P(elems ...any) Path {
	return Path(nil).Append(elems...)
}

// Append returns a new path with elems (keys, indices and paths) added; p is not changed.
// Walks over whole documents should not call it at every node: they keep one path as a
// stack and copy it (Clone) only for what they keep.
func (p Path) Append(elems ...any) Path {
	n := len(p)
	for _, e := range elems {
		if v, ok := e.(Path); ok {
			n += len(v)
		} else {
			n++
		}
	}
	out := make(Path, len(p), n)
	copy(out, p)
	for _, e := range elems {
		switch v := e.(type) {
		case string:
			out = append(out, v)
		case int:
			out = append(out, strconv.Itoa(v))
		case Path:
			out = append(out, v...)
		}
	}
	return out
}

// Clone returns a copy of p that shares no memory with it (nil for an empty path).
func (p Path) Clone() Path {
	if len(p) == 0 {
		return nil
	}
	return append(make(Path, 0, len(p)), p...)
}

// String formats the path as spec.containers[0].args[2].
func (p Path) String() string {
	var b strings.Builder
	for i, e := range p {
		if IsCanonicalIndex(e) {
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
// Only an element in canonical decimal form ("0", "17", not "007" or "+1") is an index;
// everything else is a JSON string, escaped as JSON requires whatever it holds.
func (p Path) MarshalJSON() ([]byte, error) {
	b := []byte{'['}
	for i, e := range p {
		if i > 0 {
			b = append(b, ',')
		}
		if IsCanonicalIndex(e) {
			b = append(b, e...)
			continue
		}
		s, err := json.Marshal(e)
		if err != nil {
			return nil, err
		}
		b = append(b, s...)
	}
	return append(b, ']'), nil
}

// IsCanonicalIndex reports whether path element e is a sequence index as P writes it: decimal digits without
// sign or leading zero, small enough for an int. Mapping keys such as "007", "+1" or "1e3"
// are not.
func IsCanonicalIndex(e string) bool {
	if e == "" || len(e) > 18 || (len(e) > 1 && e[0] == '0') {
		return false
	}
	for i := 0; i < len(e); i++ {
		if e[i] < '0' || e[i] > '9' {
			return false
		}
	}
	return true
}
