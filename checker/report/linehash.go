package report

import (
	"strconv"
	"unicode/utf8"
)

// Parameters of the hash, as in fingerprints.ts.
const (
	hashBlockSize = 100
	hashMod       = 37
	hashEOF       = 65535
)

// LineHashes returns GitHub's primaryLocationLineHash of every line of content; element i is
// line i+1. GitHub code scanning uses the value to keep tracking an alert when unrelated lines
// above it move; when a SARIF result already carries it, the upload uses it as is.
//
// It is a port of the function hash in github/codeql-action src/fingerprints.ts, faithful to
// the TypeScript including what looks odd:
//
//   - the input is the file decoded as UTF-8 (each invalid sequence becomes one U+FFFD as in
//     Node's decoder; a BOM stays) and walked in UTF-16 code units, as charCodeAt does;
//   - spaces and tabs are skipped everywhere, and "\r\n" and "\r" count as "\n";
//   - the hash of a line is a rolling polynomial hash (base 37, modulo 2^64) over the 100
//     non-blank code units starting at the line's first one, so it runs on into later lines;
//   - an end-of-file marker 65535 is appended, which gives content ending in a line break one
//     more (empty) line, and the window is padded with zeros;
//   - each hash is printed in lowercase hex without leading zeros and suffixed with ":n", n
//     counting this and earlier lines of the content with the same hash.
func LineHashes(content []byte) []string {
	var (
		window      [hashBlockSize]uint64
		lineNumbers [hashBlockSize]int
		hashRaw     uint64
		index       int
		lineNumber  int
		lineStart   = true
		prevCR      bool
		counts      = map[uint64]int{}
		out         []string
	)
	// firstMod is MOD^BLOCK_SIZE: the weight of the value leaving the window.
	firstMod := uint64(1)
	for range hashBlockSize {
		firstMod *= hashMod
	}
	for i := range lineNumbers {
		lineNumbers[i] = -1
	}

	outputHash := func() {
		counts[hashRaw]++
		// Lines come out in order (lineNumbers[index] == len(out)+1), so appending keeps
		// out[n-1] for line n.
		out = append(out, strconv.FormatUint(hashRaw, 16)+":"+strconv.Itoa(counts[hashRaw]))
		lineNumbers[index] = -1
	}
	updateHash := func(current uint64) {
		begin := window[index]
		window[index] = current
		hashRaw = hashMod*hashRaw + current - firstMod*begin
		index = (index + 1) % hashBlockSize
	}
	processCharacter := func(current uint16) {
		if current == ' ' || current == '\t' || (prevCR && current == '\n') {
			prevCR = false
			return
		}
		if current == '\r' {
			current = '\n'
			prevCR = true
		} else {
			prevCR = false
		}
		if lineNumbers[index] != -1 {
			outputHash()
		}
		if lineStart {
			lineStart = false
			lineNumber++
			lineNumbers[index] = lineNumber
		}
		if current == '\n' {
			lineStart = true
		}
		updateHash(uint64(current))
	}

	decodeUTF16(content, processCharacter)
	processCharacter(hashEOF)
	for range hashBlockSize {
		if lineNumbers[index] != -1 {
			outputHash()
		}
		updateHash(0)
	}
	return out
}

// decodeUTF16 decodes content as UTF-8 the way Node's "utf8" stream decoding does (the WHATWG
// algorithm: each maximal ill-formed subsequence becomes one U+FFFD) and calls emit with each
// UTF-16 code unit.
func decodeUTF16(content []byte, emit func(uint16)) {
	for i := 0; i < len(content); {
		r, size := decodeWHATWG(content[i:])
		i += size
		if r >= 0x10000 {
			r -= 0x10000
			emit(uint16(0xD800 + (r >> 10)))
			emit(uint16(0xDC00 + (r & 0x3FF)))
			continue
		}
		emit(uint16(r))
	}
}

// decodeWHATWG decodes the first character of b, returning U+FFFD and the length of the maximal
// ill-formed prefix on error, as the WHATWG Encoding Standard's UTF-8 decoder does.
func decodeWHATWG(b []byte) (rune, int) {
	c := b[0]
	var need int
	lower, upper := byte(0x80), byte(0xBF)
	switch {
	case c < 0x80:
		return rune(c), 1
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c >= 0xE0 && c <= 0xEF:
		need = 2
		switch c {
		case 0xE0:
			lower = 0xA0
		case 0xED:
			upper = 0x9F
		}
	case c >= 0xF0 && c <= 0xF4:
		need = 3
		switch c {
		case 0xF0:
			lower = 0x90
		case 0xF4:
			upper = 0x8F
		}
	default:
		return utf8.RuneError, 1
	}
	n := 1
	for ; n <= need; n++ {
		if n >= len(b) || b[n] < lower || b[n] > upper {
			return utf8.RuneError, n
		}
		lower, upper = 0x80, 0xBF
	}
	r, _ := utf8.DecodeRune(b[:n])
	return r, n
}
