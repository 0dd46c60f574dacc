package load

import "slices"

// words is a set of words the loader looks for in a document's text or a scalar (pruning and
// reduction: pruneKeep and the lists beside it), matched in one pass over the text: a search
// per word went over every prunable document's text once per word, about 30 times, and was a
// tenth of a large run's CPU (issue 24). The pass looks up each pair of adjacent bytes in a
// bit set of the words' first two bytes, and only where one begins compares the words that
// begin with its first byte. The word "::1" (IPv6 loopback) counts only as an address of its
// own (v6LoopbackAt).
type words struct {
	list []string
	// pairs has bit a<<8|b set when a word begins with the bytes a, b.
	pairs [1 << 16 / 64]uint64
	// byFirst lists the words by their first byte.
	byFirst [256][]string
}

// newWords returns the set of ws; each word has two bytes or more.
func newWords(ws ...string) *words {
	w := &words{list: slices.Clone(ws)}
	for _, s := range ws {
		if len(s) < 2 {
			panic("load: a word of fewer than two bytes: " + s)
		}
		p := uint16(s[0])<<8 | uint16(s[1])
		w.pairs[p>>6] |= 1 << (p & 63)
		w.byFirst[s[0]] = append(w.byFirst[s[0]], s)
	}
	return w
}

// without returns the words of w that other does not find in them.
func (w *words) without(other *words) *words {
	var out []string
	for _, s := range w.list {
		if !mentionsString(s, other) {
			out = append(out, s)
		}
	}
	return newWords(out...)
}

// mentions reports whether b holds one of w's words.
func mentions(b []byte, w *words) bool { return hasWord(b, w) }

// mentionsString reports whether s holds one of w's words.
func mentionsString(s string, w *words) bool { return hasWord(s, w) }

func hasWord[T string | []byte](b T, w *words) bool {
	for i := 0; i+1 < len(b); i++ {
		p := uint16(b[i])<<8 | uint16(b[i+1])
		if w.pairs[p>>6]&(1<<(p&63)) == 0 {
			continue
		}
		for _, s := range w.byFirst[b[i]] {
			if hasAt(b, i, s) && (s != v6Loopback || v6LoopbackAt(b, i)) {
				return true
			}
		}
	}
	return false
}

// hasAt reports whether b holds s at offset i.
func hasAt[T string | []byte](b T, i int, s string) bool {
	if len(b)-i < len(s) {
		return false
	}
	for k := 0; k < len(s); k++ {
		if b[i+k] != s[k] {
			return false
		}
	}
	return true
}

// v6Loopback is the IPv6 loopback address written short.
const v6Loopback = "::1"

// v6LoopbackAt reports whether the "::1" at offset i of b is an address of its own: neither a
// letter, a digit nor a colon precedes or follows it ("::1", "[::1]:80", "::1/128"; not
// "iam::123456789012", whose IAM ARNs are in most IRSA ServiceAccounts).
func v6LoopbackAt[T string | []byte](b T, i int) bool {
	tokenByte := func(c byte) bool {
		return c == ':' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	j := i + len(v6Loopback)
	return (i == 0 || !tokenByte(b[i-1])) && (j == len(b) || !tokenByte(b[j]))
}
