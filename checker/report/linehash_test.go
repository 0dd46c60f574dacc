package report

import (
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
)

// The expected values are the test vectors of github/codeql-action src/fingerprints.test.ts
// ("hash"), which pin GitHub's own implementation.
func TestLineHashesCodeQLVectors(t *testing.T) {
	tests := []struct {
		input string
		want  []string
	}{
		{"", []string{"c129715d7a2bc9a3:1"}},
		{" a\nb\n  \t\tc\n d", []string{
			"271789c17abda88f:1",
			"54703d4cd895b18:1",
			"180aee12dab6264:1",
			"a23a3dc5e078b07b:1",
		}},
		{" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End", []string{
			"8b7cf3e952e7aeb2:1",
			"b1ae1287ec4718d9:1",
			"bff680108adb0fcc:1",
			"c6805c5e1288b612:1",
			"b86d3392aea1be30:1",
			"e6ceba753e1a442:1",
		}},
		{" hello; \t\nworld!!!\n\n\n  \t\tGreetings\n End\n", helloEnd},
		{" hello; \t\nworld!!!\r\r\r  \t\tGreetings\r End\r", helloEnd},
		{" hello; \t\r\nworld!!!\r\n\r\n\r\n  \t\tGreetings\r\n End\r\n", helloEnd},
		{" hello; \t\nworld!!!\r\n\n\r  \t\tGreetings\r End\r\n", helloEnd},
		{strings.Repeat("Lorem ipsum dolor sit amet.\n", 10), []string{
			"a7f2ff13bc495cf2:1",
			"a7f2ff13bc495cf2:2",
			"a7f2ff13bc495cf2:3",
			"a7f2ff13bc495cf2:4",
			"a7f2ff13bc495cf2:5",
			"a7f2ff13bc495cf2:6",
			"a7f2ff1481e87703:1",
			"a9cf91f7bbf1862b:1",
			"55ec222b86bcae53:1",
			"cc97dc7b1d7d8f7b:1",
			"c129715d7a2bc9a3:1",
		}},
		{"x = 2\nx = 1\nprint(x)\nx = 3\nprint(x)\nx = 4\nprint(x)\n", []string{
			"e54938cc54b302f1:1",
			"bb609acbe9138d60:1",
			"1131fd5871777f34:1",
			"5c482a0f8b35ea28:1",
			"54517377da7028d2:1",
			"2c644846cb18d53e:1",
			"f1b89f20de0d133:1",
			"c129715d7a2bc9a3:1",
		}},
	}
	for _, tt := range tests {
		if got := LineHashes([]byte(tt.input)); !slices.Equal(got, tt.want) {
			t.Errorf("LineHashes(%q)\n got %q\nwant %q", tt.input, got, tt.want)
		}
	}
}

// Vectors for what the CodeQL tests do not cover (a BOM with CRLF, tabs and characters outside
// the BMP, invalid UTF-8), computed by running the hash function of fingerprints.ts verbatim
// under Node.js on files with these bytes, read as the action reads them.
func TestLineHashesNodeVectors(t *testing.T) {
	tests := []struct {
		input string
		want  []string
	}{
		{"\xef\xbb\xbfapiVersion: v1\r\nkind: ConfigMap\r\n", []string{
			"a45410889dff2233:1", "6fc67693a5104c3d:1", "c129715d7a2bc9a3:1",
		}},
		{"mode: \"ipvs\"\t# Z\xc3\xbcrich \xe6\x9d\xb1\xe4\xba\xac \xf0\x9f\x9a\x80\n", []string{
			"bb4b8d19c14f97fb:1", "c129715d7a2bc9a3:1",
		}},
		{"bad \xe2\x82 utf8 \xed\xa0\x80 \xff end\n\xf0\x9f\x9a", []string{
			"c093ee36f058a098:1", "8989dec65f08d110:1",
		}},
	}
	for _, tt := range tests {
		if got := LineHashes([]byte(tt.input)); !slices.Equal(got, tt.want) {
			t.Errorf("LineHashes(%q)\n got %q\nwant %q", tt.input, got, tt.want)
		}
	}
}

var helloEnd = []string{
	"e9496ae3ebfced30:1",
	"fb7c023a8b9ccb3f:1",
	"ce8ba1a563dcdaca:1",
	"e20e36e16fcb0cc8:1",
	"b3edc88f2938467e:1",
	"c8e28b0b4002a3a0:1",
	"c129715d7a2bc9a3:1",
}

// referenceHash is a direct, unoptimised reading of the algorithm: for each line, hash the 100
// code units starting at its first non-blank unit. It cross-checks LineHashes on non-ASCII text.
func referenceHash(units []uint16) []string {
	// Normalise as the original does: drop blanks and the LF of CRLF, turn CR into LF, mark the
	// start of each line, then append EOF.
	var seq []uint64
	var starts []int
	lineStart, prevCR := true, false
	for _, u := range append(units, 65535) {
		if u == ' ' || u == '\t' || (prevCR && u == '\n') {
			prevCR = false
			continue
		}
		if u == '\r' {
			u, prevCR = '\n', true
		} else {
			prevCR = false
		}
		if lineStart {
			starts = append(starts, len(seq))
			lineStart = false
		}
		if u == '\n' {
			lineStart = true
		}
		seq = append(seq, uint64(u))
	}
	counts := map[string]int{}
	var out []string
	for _, s := range starts {
		var h uint64
		for i := s; i < s+hashBlockSize; i++ {
			var c uint64
			if i < len(seq) {
				c = seq[i]
			}
			h = h*hashMod + c
		}
		key := strconv.FormatUint(h, 16)
		counts[key]++
		out = append(out, key+":"+strconv.Itoa(counts[key]))
	}
	return out
}

func TestLineHashesMatchesReference(t *testing.T) {
	inputs := []string{
		"mode: ipvs\n",
		"kind: ConfigMap\ndata:\n  config.conf: |\n    mode: \"ipvs\"\t# Zürich 東京\n",
		"\ufeffapiVersion: v1\r\nkind: Pod\r\n# 🚀 emoji outside the BMP\r\n",
		strings.Repeat("a", 250) + "\n" + strings.Repeat("b\n", 3),
	}
	for _, in := range inputs {
		want := referenceHash(utf16.Encode([]rune(in)))
		if got := LineHashes([]byte(in)); !slices.Equal(got, want) {
			t.Errorf("LineHashes(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

func TestDecodeUTF16InvalidUTF8(t *testing.T) {
	tests := []struct {
		in   string
		want []uint16
	}{
		// A truncated sequence is one U+FFFD (WHATWG), not one per byte.
		{"\xe2\x82A", []uint16{0xFFFD, 'A'}},
		{"\xffA", []uint16{0xFFFD, 'A'}},
		// Surrogates encoded in UTF-8 are invalid: ED A0 80 is three errors.
		{"\xed\xa0\x80", []uint16{0xFFFD, 0xFFFD, 0xFFFD}},
		{"\xf0\x9f\x9a\x80", []uint16{0xD83D, 0xDE80}},
		{"\xf0\x9f\x9a", []uint16{0xFFFD}},
		{"é", []uint16{0xE9}},
	}
	for _, tt := range tests {
		var got []uint16
		decodeUTF16([]byte(tt.in), func(u uint16) { got = append(got, u) })
		if !slices.Equal(got, tt.want) {
			t.Errorf("decodeUTF16(%q) = %x, want %x", tt.in, got, tt.want)
		}
	}
}
