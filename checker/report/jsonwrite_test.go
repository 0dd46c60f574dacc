package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// referenceJSON is what writeJSON wrote before it spliced arrays: the whole value encoded at
// once (jsonArray marshals as a plain array when writeJSON did not bind it).
func referenceJSON(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

type spliceItem struct {
	Name  string            `json:"name"`
	Tags  []string          `json:"tags,omitempty"`
	Inner jsonArray[string] `json:"inner"`
	Map   map[string]int    `json:"map,omitempty"`
}

type spliceRun struct {
	Before string                `json:"before"`
	Items  jsonArray[spliceItem] `json:"items"`
	Empty  jsonArray[spliceItem] `json:"empty"`
	Nil    jsonArray[spliceItem] `json:"nil"`
	After  []int                 `json:"after"`
}

type spliceLog struct {
	Title string      `json:"title"`
	Runs  []spliceRun `json:"runs"`
	Ptr   *spliceRun  `json:"ptr,omitempty"`
}

// TestWriteJSONSameBytes: writeJSON, which writes big arrays element by element, writes the
// bytes encoding the whole value gives: arrays at the top, in structs, in a slice of structs,
// behind a pointer, empty and nil, with nested arrays, and text that escapes (HTML
// characters, line separators, NUL, a marker's shape).
func TestWriteJSONSameBytes(t *testing.T) {
	items := []spliceItem{
		{Name: "a <b> & c", Tags: []string{"x", "\u2028"}, Inner: jsonArray[string]{Items: []string{"1", "2"}}, Map: map[string]int{"z": 1, "a": 2}},
		{Name: "\x00kube-proxy-lint-array-0000000000000000-0", Inner: jsonArray[string]{Items: []string{}}},
		{Name: `"\u0000kube-proxy-lint-array-x-0"`},
		{Name: "tab\tquote\"backslash\\", Tags: []string{}},
	}
	run := spliceRun{Before: "[\n  ]", Items: jsonArray[spliceItem]{Items: items}, Empty: jsonArray[spliceItem]{Items: []spliceItem{}}, After: []int{1, 2}}
	cases := map[string]any{
		"top-level array":   jsonArray[spliceItem]{Items: items},
		"empty top level":   jsonArray[spliceItem]{Items: []spliceItem{}},
		"nil top level":     jsonArray[spliceItem]{},
		"nested":            spliceLog{Title: "t", Runs: []spliceRun{run, run}, Ptr: &run},
		"one element":       spliceRun{Items: jsonArray[spliceItem]{Items: items[:1]}},
		"pointer to struct": &spliceLog{Runs: []spliceRun{run}},
	}
	for name, v := range cases {
		var got bytes.Buffer
		if err := writeJSON(&got, v); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if want := referenceJSON(t, v); !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s: writeJSON wrote\n%s\nwant\n%s", name, got.Bytes(), want)
		}
	}
}

// TestWriteJSONLarge: an array larger than the write buffer is written whole and in order,
// as it is encoded (in writes of at most the buffer's size), not held until it is complete.
func TestWriteJSONLarge(t *testing.T) {
	items := make([]spliceItem, 5000)
	for i := range items {
		items[i] = spliceItem{Name: strings.Repeat("n", i%97), Tags: []string{"t"}}
	}
	v := spliceLog{Runs: []spliceRun{{Items: jsonArray[spliceItem]{Items: items}}}}
	got := &writeSizes{}
	if err := writeJSON(got, v); err != nil {
		t.Fatal(err)
	}
	if got.Len() <= jsonBufferSize || !bytes.Equal(got.Bytes(), referenceJSON(t, v)) {
		t.Errorf("a %d-byte report differs from the whole value's encoding", got.Len())
	}
	if got.largest > jsonBufferSize || got.writes < got.Len()/jsonBufferSize {
		t.Errorf("a %d-byte report written in %d writes of up to %d bytes: held, not streamed", got.Len(), got.writes, got.largest)
	}
}

// TestWriteJSONStreams: the report is written while its elements are encoded, not held
// until it is complete (issue 24: 14 MB at 20,000 files, the run's last allocation).
func TestWriteJSONStreams(t *testing.T) {
	items := make([]countedElem, 20000)
	encoded = 0
	w := &firstWrite{}
	if err := writeJSON(w, struct {
		A jsonArray[countedElem] `json:"a"`
	}{A: jsonArray[countedElem]{Items: items}}); err != nil {
		t.Fatal(err)
	}
	if w.at < 0 || w.at >= encoded {
		t.Errorf("first write after %d of %d encodings: the report was held until it was complete", w.at, encoded)
	}
}

// countedElem counts its encodings (encoded).
type countedElem struct{}

var encoded int

func (countedElem) MarshalJSON() ([]byte, error) {
	encoded++
	return []byte(`"an element of a report"`), nil
}

// firstWrite records how many elements were encoded (encoded) when it was first written to.
type firstWrite struct {
	bytes.Buffer
	at   int
	seen bool
}

func (w *firstWrite) Write(b []byte) (int, error) {
	if !w.seen {
		w.seen, w.at = true, encoded
	}
	return w.Buffer.Write(b)
}

// writeSizes is a bytes.Buffer that counts its writes and their largest size.
type writeSizes struct {
	bytes.Buffer
	writes, largest int
}

func (w *writeSizes) Write(b []byte) (int, error) {
	w.writes++
	w.largest = max(w.largest, len(b))
	return w.Buffer.Write(b)
}

type failingElem struct{}

func (failingElem) MarshalJSON() ([]byte, error) { return nil, errors.New("boom") }

// TestWriteJSONFailureWritesNothing: an element that fails to encode fails the report before
// any byte of it is written.
func TestWriteJSONFailureWritesNothing(t *testing.T) {
	v := struct {
		A jsonArray[json.Marshaler] `json:"a"`
	}{A: jsonArray[json.Marshaler]{Items: []json.Marshaler{json.RawMessage(`1`), failingElem{}}}}
	var got bytes.Buffer
	if err := writeJSON(&got, v); err == nil || got.Len() != 0 {
		t.Errorf("err %v, %d bytes written", err, got.Len())
	}
}
