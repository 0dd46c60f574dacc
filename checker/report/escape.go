package report

import (
	"strings"
	"unicode/utf8"
)

// Everything a report shows can come from the repository under test: file names, messages that
// quote values, source lines, policy metadata. Each kind of output has one escaping function
// here, and every formatter (and the command line's notices on stderr) goes through it, so
// that no file name or value can drive a terminal, inject GitHub workflow commands into a CI
// log, mention a user or forge a link in Markdown, or add links to a SARIF message.
// TestEscapingHostileNames runs all of them over one table of hostile names.

// Terminal makes s safe on one line of a terminal or a CI log (the text format, notices and
// errors on stderr): C0 and C1 control characters, DEL, bidirectional overrides and isolates,
// line and paragraph separators and invalid UTF-8 become visible escapes (\x1b, \u202e), and
// GitHub's older "##[command]" syntax, recognised anywhere on a log line, is broken up.
func Terminal(s string) string {
	if !needsTerminalEscape(s) {
		return s
	}
	return escapeRunes(s, func(b *strings.Builder, s string, i int, r rune) int {
		if r == '#' && strings.HasPrefix(s[i:], "##[") {
			b.WriteString(`#\x23[`)
			return 3
		}
		return 0
	})
}

// TerminalLine is Terminal for text that starts a line of output: a line whose first
// non-blank characters are "::" is a GitHub Actions workflow command (the runner trims leading
// whitespace), so that colon is escaped too.
func TerminalLine(s string) string {
	return guardLineStart(Terminal(s))
}

// guardLineStart escapes the first colon of an already escaped line that would otherwise read
// as a workflow command.
func guardLineStart(s string) string {
	rest := strings.TrimLeft(s, " \t")
	if strings.HasPrefix(rest, "::") {
		return s[:len(s)-len(rest)] + `\x3a` + rest[1:]
	}
	return s
}

// TerminalLines is TerminalLine for each line of a message that may span lines (an error
// joining several errors).
func TerminalLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = TerminalLine(strings.TrimSuffix(l, "\r"))
	}
	return strings.Join(lines, "\n")
}

// GitHubData escapes the message of a workflow command as @actions/core does (%, CR, LF),
// and makes other control and bidi characters visible, so that the annotation shows them
// instead of passing them to the log viewer.
func GitHubData(s string) string {
	return githubEscape(s, false)
}

// GitHubProperty escapes a workflow command property (file=, title=): the data escapes plus
// the ":" and "," that delimit properties.
func GitHubProperty(s string) string {
	return githubEscape(s, true)
}

func githubEscape(s string, property bool) string {
	return escapeRunes(s, func(b *strings.Builder, s string, i int, r rune) int {
		switch {
		case r == '%':
			b.WriteString("%25")
		case r == '\r':
			b.WriteString("%0D")
		case r == '\n':
			b.WriteString("%0A")
		case property && r == ':':
			b.WriteString("%3A")
		case property && r == ',':
			b.WriteString("%2C")
		case r == '#' && strings.HasPrefix(s[i:], "##["):
			b.WriteString(`#\x23[`)
			return 3
		default:
			return 0
		}
		return 1
	})
}

// Markdown makes text inert in GitHub-flavoured Markdown (job summaries, pull-request
// comments): punctuation that could start emphasis, code, links, HTML, tables or headings is
// backslash-escaped, "&" is an entity, an "@" (a mention) and a "#" before a digit (an issue
// reference) get a zero-width space after them, since GitHub links those in rendered text,
// escaped or not; line breaks become spaces and other controls visible escapes.
func Markdown(s string) string {
	return escapeRunes(s, func(b *strings.Builder, s string, i int, r rune) int {
		switch {
		case r == '@':
			b.WriteString("@&#8203;")
		case r == '#':
			b.WriteString(`\#`)
			if i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9' {
				b.WriteString("&#8203;")
			}
		case r == '&':
			b.WriteString("&amp;")
		case strings.ContainsRune("\\`*_[]<>|~!{}", r):
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n' || r == '\r' || r == '\t':
			b.WriteByte(' ')
		default:
			return 0
		}
		return 1
	})
}

// MarkdownURL makes a URL safe as a Markdown link destination: every byte but letters,
// digits and -._~/:?#=%+,;$ is percent-encoded, so "(", ")", spaces, "<", ">", "*", "@"
// and quotes can neither end the link nor start markup; "&" becomes the entity "&amp;",
// which Markdown decodes back, so that "&lt;" in a name stays text. Existing %XX escapes are
// kept.
func MarkdownURL(u string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(u); i++ {
		c := u[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9',
			strings.IndexByte("-._~/:?#=%+,;$", c) >= 0:
			b.WriteByte(c)
		case c == '&':
			b.WriteString("&amp;")
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// SARIFText escapes a SARIF plain-text message: "[" and "]" would start an embedded link
// (SARIF 3.11.6) and are backslash-escaped (with a backslash before them), and control and
// bidi characters other than line breaks become visible escapes.
func SARIFText(s string) string {
	return escapeRunes(s, func(b *strings.Builder, s string, i int, r rune) int {
		switch {
		case r == '[' || r == ']':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\\' && i+1 < len(s) && (s[i+1] == '[' || s[i+1] == ']'):
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteByte('\n')
		default:
			return 0
		}
		return 1
	})
}

// escapeRunes is the loop every escaper shares: for each rune of s, special may write its
// own escape and return how many bytes of s it stands for (0 when the rune is not special to
// it); otherwise an invalid byte becomes \xNN, an unsafe character (unsafeRune) a visible
// escape, and anything else is copied.
func escapeRunes(s string, special func(b *strings.Builder, s string, i int, r rune) int) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if n := special(&b, s, i, r); n > 0 {
			i += n
			continue
		}
		switch {
		case r == utf8.RuneError && size == 1:
			writeHexByte(&b, s[i])
		case unsafeRune(r):
			writeEscape(&b, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports characters that must never reach a terminal, log or rendered page as
// they are: C0 and C1 controls, DEL, the bidirectional formatting characters (Trojan Source,
// CVE-2021-42574), line and paragraph separators, and the byte order mark.
func unsafeRune(r rune) bool {
	switch {
	case r < 0x20, r >= 0x7f && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200e, r == 0x200f, r == 0x061c:
		return true
	case r == 0x2028, r == 0x2029, r == 0xfeff:
		return true
	}
	return false
}

func needsTerminalEscape(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c >= 0x7f || (c == '#' && strings.HasPrefix(s[i:], "##[")) {
			return true
		}
	}
	return false
}

// writeEscape writes r as \xNN (below 0x100) or \uNNNN.
func writeEscape(b *strings.Builder, r rune) {
	const hex = "0123456789abcdef"
	if r < 0x100 {
		writeHexByte(b, byte(r))
		return
	}
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hex[(r>>uint(shift))&15])
	}
}

func writeHexByte(b *strings.Builder, c byte) {
	const hex = "0123456789abcdef"
	b.WriteString(`\x`)
	b.WriteByte(hex[c>>4])
	b.WriteByte(hex[c&15])
}
