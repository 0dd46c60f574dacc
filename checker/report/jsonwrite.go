package report

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
)

// Writing a JSON report. The findings are nearly all of a report's bytes, and encoding the
// report as one value held them several times at once: encoding/json's compact encoding, its
// indented copy, and the growth of the buffer both were appended to (on the 20,000-file
// benchmark corpus 133 MB were allocated to write a 14 MB report, after the rules, when the
// heap is largest: the run's peak). writeJSON writes the big arrays (jsonArray) element by
// element into the output instead, each element encoded and indented on its own, byte for
// byte what encoding the whole value gives (TestWriteJSONSameBytes). So that a failed
// encoding still writes nothing, every element is encoded once before anything is written
// and again as it is written: holding the output until it was complete (14 MB at 20,000
// files) was the run's last allocation, where its memory peaked (issue 24).

// jsonArray is a JSON array that writeJSON writes element by element. It encodes and decodes
// as the array of its Items (null when Items is nil) everywhere else.
type jsonArray[T any] struct {
	Items []T
	// splice is set by writeJSON on the copy it encodes: MarshalJSON then writes a marker
	// and leaves the elements to it.
	splice *jsonSplicer
}

func (a jsonArray[T]) MarshalJSON() ([]byte, error) {
	if a.Items == nil {
		return []byte("null"), nil
	}
	if a.splice == nil || len(a.Items) == 0 {
		// As a plain array: without HTML escaping, as writeJSON encodes (json.Marshal
		// would escape <, > and &, and the encoder around it keeps those escapes).
		var b bytes.Buffer
		if err := newJSONEncoder(&b, "").Encode(a.Items); err != nil {
			return nil, err
		}
		return b.Bytes(), nil
	}
	return a.splice.add(len(a.Items), func(i int) any { return &a.Items[i] }), nil
}

func (a *jsonArray[T]) UnmarshalJSON(b []byte) error { return json.Unmarshal(b, &a.Items) }

// bindSplicer sets the splicer of an array found in the value writeJSON encodes.
func (a *jsonArray[T]) bindSplicer(s *jsonSplicer) { a.splice = s }

type splicable interface{ bindSplicer(*jsonSplicer) }

// jsonSplicer collects the arrays of one writeJSON call, in the order they are encoded, each
// standing in the encoded value as a JSON string no other text of a report holds: a random
// nonce per call, and a NUL byte, which encoding/json escapes in any string it writes.
type jsonSplicer struct {
	nonce  string
	arrays []splicedArray
}

type splicedArray struct {
	n    int
	elem func(i int) any
}

func (s *jsonSplicer) marker(k int) []byte {
	return fmt.Appendf(nil, `"\u0000kube-proxy-lint-array-%s-%d"`, s.nonce, k)
}

func (s *jsonSplicer) add(n int, elem func(i int) any) []byte {
	s.arrays = append(s.arrays, splicedArray{n, elem})
	return s.marker(len(s.arrays) - 1)
}

// writeJSON encodes v indented by two spaces, without HTML escaping, with a final newline,
// and writes it once every element is known to encode, so a failed encoding writes nothing. The
// jsonArray values in v (itself, its fields, and the elements of small slices of structs, to
// a few levels) are written element by element (see above).
func writeJSON(w io.Writer, v any) error {
	var nonce [8]byte
	_, _ = rand.Read(nonce[:])
	sp := &jsonSplicer{nonce: hex.EncodeToString(nonce[:])}
	cp := reflect.New(reflect.TypeOf(v)).Elem()
	cp.Set(reflect.ValueOf(v))
	bindSplicers(cp, sp, 0)

	var skel bytes.Buffer
	if err := newJSONEncoder(&skel, "").Encode(cp.Interface()); err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	// Every element encodes (what can fail is found before anything is written).
	var elem bytes.Buffer
	for _, a := range sp.arrays {
		enc := newJSONEncoder(&elem, "")
		for j := range a.n {
			elem.Reset()
			if err := enc.Encode(a.elem(j)); err != nil {
				return fmt.Errorf("encode report: %w", err)
			}
		}
	}
	out := bufio.NewWriterSize(w, jsonBufferSize)
	rest := skel.Bytes()
	for k, a := range sp.arrays {
		m := sp.marker(k)
		i := bytes.Index(rest, m)
		if i < 0 {
			return fmt.Errorf("encode report: array %d not found", k)
		}
		line := rest[bytes.LastIndexByte(rest[:i], '\n')+1 : i]
		indent := line[:len(line)-len(bytes.TrimLeft(line, " "))]
		_, _ = out.Write(rest[:i])
		rest = rest[i+len(m):]
		inner := string(indent) + "  "
		enc := newJSONEncoder(&elem, inner)
		_, _ = out.WriteString("[\n")
		for j := range a.n {
			elem.Reset()
			if err := enc.Encode(a.elem(j)); err != nil {
				return fmt.Errorf("encode report: %w", err)
			}
			_, _ = out.WriteString(inner)
			_, _ = out.Write(bytes.TrimSuffix(elem.Bytes(), []byte("\n")))
			if j < a.n-1 {
				_, _ = out.WriteString(",")
			}
			_, _ = out.WriteString("\n")
		}
		_, _ = out.Write(indent)
		_, _ = out.WriteString("]")
	}
	_, _ = out.Write(rest)
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	return nil
}

// jsonBufferSize is how much of a JSON report is written at once.
const jsonBufferSize = 64 << 10

// newJSONEncoder returns an encoder without HTML escaping that indents by two spaces after
// prefix.
func newJSONEncoder(w io.Writer, prefix string) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	return enc
}

// bindSplicers gives sp to the jsonArray values of v (settable): v itself, the fields of
// structs, the values of pointers and the elements of small slices of structs (the SARIF
// log's one run), to a depth of 4. The arrays' own elements are not visited.
func bindSplicers(v reflect.Value, sp *jsonSplicer, depth int) {
	if depth > 4 || !v.IsValid() {
		return
	}
	if v.CanAddr() {
		if s, ok := v.Addr().Interface().(splicable); ok {
			s.bindSplicer(sp)
			return
		}
	}
	// What is visited is copied first (pointees, slices): the caller's value is not changed.
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() && v.CanSet() {
			c := reflect.New(v.Type().Elem())
			c.Elem().Set(v.Elem())
			v.Set(c)
			bindSplicers(c.Elem(), sp, depth+1)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				bindSplicers(v.Field(i), sp, depth+1)
			}
		}
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Struct && v.Len() <= 8 && v.CanSet() {
			c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
			reflect.Copy(c, v)
			v.Set(c)
			for i := range c.Len() {
				bindSplicers(c.Index(i), sp, depth+1)
			}
		}
	}
}
