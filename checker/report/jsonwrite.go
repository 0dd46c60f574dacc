package report

import (
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
// byte what encoding the whole value gives (TestWriteJSONSameBytes), and holds the output in
// fixed-size chunks until it is complete, so that a failed encoding still writes nothing.

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
// and writes it once it is completely encoded, so a failed encoding writes nothing. The
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
	out := &chunkWriter{}
	rest := skel.Bytes()
	var elem bytes.Buffer
	for k, a := range sp.arrays {
		m := sp.marker(k)
		i := bytes.Index(rest, m)
		if i < 0 {
			return fmt.Errorf("encode report: array %d not found", k)
		}
		line := rest[bytes.LastIndexByte(rest[:i], '\n')+1 : i]
		indent := line[:len(line)-len(bytes.TrimLeft(line, " "))]
		out.Write(rest[:i])
		rest = rest[i+len(m):]
		inner := string(indent) + "  "
		enc := newJSONEncoder(&elem, inner)
		out.WriteString("[\n")
		for j := range a.n {
			elem.Reset()
			if err := enc.Encode(a.elem(j)); err != nil {
				return fmt.Errorf("encode report: %w", err)
			}
			out.WriteString(inner)
			out.Write(bytes.TrimSuffix(elem.Bytes(), []byte("\n")))
			if j < a.n-1 {
				out.WriteString(",")
			}
			out.WriteString("\n")
		}
		out.Write(indent)
		out.WriteString("]")
	}
	out.Write(rest)
	for _, c := range out.chunks {
		if _, err := w.Write(c); err != nil {
			return fmt.Errorf("write report: %w", err)
		}
	}
	return nil
}

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

// chunkWriter holds what is written in chunks, of 4 KiB doubling up to jsonChunkSize (a small
// report allocates little): a large output is not copied as a growing buffer would copy it.
type chunkWriter struct{ chunks [][]byte }

const jsonChunkSize = 64 << 10

func (c *chunkWriter) Write(b []byte) {
	for len(b) > 0 {
		n := len(c.chunks)
		if n == 0 || len(c.chunks[n-1]) == cap(c.chunks[n-1]) {
			c.chunks = append(c.chunks, make([]byte, 0, min(jsonChunkSize, 4<<10<<min(n, 4))))
			n++
		}
		last := c.chunks[n-1]
		k := min(len(b), cap(last)-len(last))
		c.chunks[n-1] = append(last, b[:k]...)
		b = b[k:]
	}
}

func (c *chunkWriter) WriteString(s string) { c.Write([]byte(s)) }
