package load

import (
	"bytes"
	"path"
	"strings"
)

// This file implements .gitignore matching with git's own semantics (see gitignore(5)).
// The parsing follows git's dir.c (add_patterns_from_buffer, trim_trailing_spaces,
// parse_path_pattern, match_basename, match_pathname, prep_exclude) and the glob matcher is
// a port of git's wildmatch.c, so edge cases behave as `git check-ignore` does with
// core.ignoreCase=false.

// Ignorer holds the .gitignore rules that apply while walking a tree.
//
// Rules are added with AddFile as .gitignore files are found and queried with Ignored. The
// zero value is not usable; call NewIgnorer. AddFile must not run concurrently with any other
// method; once all files are added, Ignored is safe for concurrent use.
type Ignorer struct {
	// lists maps the directory of each .gitignore (slash path relative to the walk root, ""
	// for the root) to its patterns, in file order.
	lists map[string][]ignorePattern
}

// ignorePattern is one compiled, non-empty line of a .gitignore file.
type ignorePattern struct {
	// text is the pattern without the "!" prefix, the trailing "/" and, for anchored
	// patterns, the leading "/". Escapes are kept: the glob matcher interprets them.
	text string
	// lit is the leading part of text free of glob metacharacters (*, ?, [ and \); rest is
	// the remainder. An anchored pattern compares lit literally before globbing rest.
	lit, rest string
	// negate is set for "!pattern": a match re-includes the path.
	negate bool
	// dirOnly is set for "pattern/": only directories match.
	dirOnly bool
	// base is set when the pattern has no "/" other than a trailing one: it is matched
	// against the last path element at any depth below the .gitignore's directory.
	// Otherwise it is matched against the whole path relative to that directory.
	base bool
	// suffix is set for a base pattern of the form "*literal"; it then matches any name
	// ending in text[1:].
	suffix bool
}

// NewIgnorer returns an Ignorer with no rules.
func NewIgnorer() *Ignorer {
	return &Ignorer{lists: make(map[string][]ignorePattern)}
}

// AddFile adds the patterns of a .gitignore file found in directory dir (slash path relative
// to the walk root, "" for the root). Content is the file's bytes.
//
// The patterns apply to paths below dir only. Patterns of a deeper directory take precedence
// over those of its ancestors; within one directory, later patterns (including those of a
// later AddFile call for the same dir) take precedence over earlier ones.
func (ig *Ignorer) AddFile(dir string, content []byte) {
	dir = cleanRel(dir)
	pats := ig.lists[dir]
	for _, line := range splitIgnoreLines(content) {
		if p, ok := compileIgnorePattern(line); ok {
			pats = append(pats, p)
		}
	}
	if pats != nil {
		ig.lists[dir] = pats
	}
}

// Ignored reports whether the slash path rel (relative to the walk root) is ignored; isDir
// tells whether it is a directory.
//
// As in git, a path inside an ignored directory is ignored too, whatever its own patterns
// say: a file cannot be re-included when one of its parent directories is excluded. The
// root itself ("" or ".") is never ignored.
func (ig *Ignorer) Ignored(rel string, isDir bool) bool {
	if ig == nil || len(ig.lists) == 0 {
		return false
	}
	rel = cleanRel(rel)
	if rel == "" {
		return false
	}
	// Leading directories first, outermost first, as git's prep_exclude does.
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && ig.excluded(rel[:i], true) {
			return true
		}
	}
	return ig.excluded(rel, isDir)
}

// excluded applies the rules to the path p itself, ignoring whether its parents are
// excluded: the .gitignore files of p's ancestor directories are consulted from the deepest
// up, and within a file from the last pattern up; the first pattern that matches decides.
func (ig *Ignorer) excluded(p string, isDir bool) bool {
	slash := strings.LastIndexByte(p, '/')
	name := p[slash+1:]
	for {
		var dir, rel string
		if slash < 0 {
			rel = p
		} else {
			dir, rel = p[:slash], p[slash+1:]
		}
		if pats, ok := ig.lists[dir]; ok {
			for i := len(pats) - 1; i >= 0; i-- {
				if pats[i].match(rel, name, isDir) {
					return !pats[i].negate
				}
			}
		}
		if slash < 0 {
			return false
		}
		slash = strings.LastIndexByte(p[:slash], '/')
	}
}

// match reports whether the pattern matches the path rel, relative to the directory of the
// pattern's .gitignore, whose last element is name.
func (p *ignorePattern) match(rel, name string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.base {
		switch {
		case p.rest == "":
			return name == p.text
		case p.suffix:
			return strings.HasSuffix(name, p.text[1:])
		default:
			return wildmatch(p.text, name)
		}
	}
	if !strings.HasPrefix(rel, p.lit) {
		return false
	}
	if p.rest == "" {
		return len(rel) == len(p.lit)
	}
	return wildmatch(p.rest, rel[len(p.lit):])
}

// cleanRel normalises a slash path relative to the walk root: "." and "/" become "", and
// redundant separators and "." elements are removed.
func cleanRel(p string) string {
	if p == "" {
		return ""
	}
	p = path.Clean(p)
	p = strings.TrimLeft(p, "/")
	if p == "." {
		return ""
	}
	return p
}

// utf8BOM is the byte order mark git skips at the start of a .gitignore.
var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// splitIgnoreLines returns the candidate pattern lines of a .gitignore as git reads them: a
// leading UTF-8 BOM is skipped, lines end at "\n" with one "\r" before it removed, empty
// lines and lines starting with "#" are dropped, and trailing spaces are trimmed.
func splitIgnoreLines(content []byte) []string {
	content = bytes.TrimPrefix(content, utf8BOM)
	var lines []string
	for len(content) > 0 {
		var line []byte
		if i := bytes.IndexByte(content, '\n'); i >= 0 {
			line, content = content[:i], content[i+1:]
		} else {
			line, content = content, nil
		}
		// git skips a line only when it is empty before the "\r" is removed; a lone "\r"
		// or a line of spaces becomes an empty pattern, which matches nothing anyway.
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		// git handles lines as C strings: a NUL byte ends the line.
		if i := bytes.IndexByte(line, 0); i >= 0 {
			line = line[:i]
		}
		lines = append(lines, trimTrailingSpaces(string(line)))
	}
	return lines
}

// trimTrailingSpaces removes unescaped trailing spaces (not tabs), as git does: "a\ " keeps
// its escaped space, and a line ending in a lone backslash is left untouched.
func trimTrailingSpaces(s string) string {
	lastSpace := -1
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ' ':
			if lastSpace < 0 {
				lastSpace = i
			}
		case '\\':
			i++
			if i == len(s) {
				return s
			}
			lastSpace = -1
		default:
			lastSpace = -1
		}
	}
	if lastSpace >= 0 {
		return s[:lastSpace]
	}
	return s
}

// compileIgnorePattern parses one line (already split, comment-filtered and trimmed) the way
// git's parse_path_pattern does. It reports false for a pattern that can never match.
func compileIgnorePattern(line string) (ignorePattern, bool) {
	var p ignorePattern
	if strings.HasPrefix(line, "!") {
		p.negate = true
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = line[:len(line)-1]
	}
	p.base = !strings.Contains(line, "/")
	if p.base {
		if line == "" {
			// "", "!", "/" and "!/" match nothing: names are never empty.
			return p, false
		}
		p.suffix = line[0] == '*' && literalLen(line[1:]) == len(line)-1
	} else if line[0] == '/' {
		// A leading slash only anchors the pattern, which every pattern containing a
		// slash already is; it is not part of the path.
		line = line[1:]
	}
	p.text = line
	n := literalLen(line)
	p.lit, p.rest = line[:n], line[n:]
	return p, true
}

// literalLen returns the length of the prefix of s free of glob metacharacters.
func literalLen(s string) int {
	for i := 0; i < len(s); i++ {
		if isGlobSpecial(s[i]) {
			return i
		}
	}
	return len(s)
}

// isGlobSpecial reports whether c has a meaning in a glob: git's is_glob_special.
func isGlobSpecial(c byte) bool {
	return c == '*' || c == '?' || c == '[' || c == '\\'
}

// Results of dowild, as in git's wildmatch.h. The two abort results prune the backtracking
// of enclosing "*" and "**".
const (
	wmMatch = iota
	wmNoMatch
	wmAbortAll
	wmAbortToStarStar
)

// wildmatch reports whether the glob pattern matches the whole of text with git's
// WM_PATHNAME semantics: "*", "?" and bracket expressions never match "/"; "**" matches
// across directories when it forms a whole path element ("**/x", "x/**", "x/**/y"), and is
// an ordinary "*" otherwise; "\" quotes the next character.
func wildmatch(pattern, text string) bool {
	return dowild(pattern, text) == wmMatch
}

// dowild is a port of git's wildmatch.c dowild with WM_PATHNAME set and WM_CASEFOLD unset.
func dowild(p, t string) int {
	pi, ti := 0, 0
	for ; pi < len(p); pi, ti = pi+1, ti+1 {
		pc := p[pi]
		if ti >= len(t) && pc != '*' {
			return wmAbortAll
		}
		var tc byte
		if ti < len(t) {
			tc = t[ti]
		}
		switch pc {
		case '\\':
			// Literal match with the following character; a trailing backslash matches
			// nothing.
			pi++
			if pi >= len(p) || tc != p[pi] {
				return wmNoMatch
			}
		case '?':
			if tc == '/' {
				return wmNoMatch
			}
		case '*':
			matchSlash := false
			pi++
			if pi < len(p) && p[pi] == '*' {
				prev := pi - 2 // the character before the run of stars
				for pi < len(p) && p[pi] == '*' {
					pi++
				}
				if (prev < 0 || p[prev] == '/') &&
					(pi == len(p) || p[pi] == '/' || (p[pi] == '\\' && pi+1 < len(p) && p[pi+1] == '/')) {
					// "**/" may match no directory at all: "a/**/b" matches "a/b".
					if pi < len(p) && p[pi] == '/' && dowild(p[pi+1:], t[ti:]) == wmMatch {
						return wmMatch
					}
					matchSlash = true
				}
			}
			if pi == len(p) {
				// A trailing "**" matches everything; a trailing "*" only what has no
				// slash left.
				if !matchSlash && strings.IndexByte(t[ti:], '/') >= 0 {
					return wmNoMatch
				}
				return wmMatch
			}
			if !matchSlash && p[pi] == '/' {
				// "*/" matches the rest of the current path element; the loop then
				// consumes the slash in both strings.
				k := strings.IndexByte(t[ti:], '/')
				if k < 0 {
					return wmNoMatch
				}
				ti += k
				continue
			}
			for ti < len(t) {
				if c := p[pi]; !isGlobSpecial(c) {
					// Skip ahead to the next occurrence of the literal that follows the
					// star; a single star cannot look past a slash.
					for ti < len(t) && (matchSlash || t[ti] != '/') && t[ti] != c {
						ti++
					}
					if ti >= len(t) || t[ti] != c {
						return wmNoMatch
					}
				}
				if m := dowild(p[pi:], t[ti:]); m != wmNoMatch {
					if !matchSlash || m != wmAbortToStarStar {
						return m
					}
				} else if !matchSlash && t[ti] == '/' {
					return wmAbortToStarStar
				}
				ti++
			}
			return wmAbortAll
		case '[':
			var ok bool
			pi, ok = matchBracket(p, pi, tc)
			if pi < 0 {
				return wmAbortAll
			}
			if !ok || tc == '/' {
				return wmNoMatch
			}
		default:
			if tc != pc {
				return wmNoMatch
			}
		}
	}
	if ti < len(t) {
		return wmNoMatch
	}
	return wmMatch
}

// matchBracket matches the byte c against the bracket expression starting at p[open] == '['.
// It returns the index of the closing ']' and whether c is in the set, or -1 when the
// expression is malformed (unterminated, or an unknown "[:class:]"), which aborts the match.
//
// As in git: "!" or "^" right after "[" negates the set; a "]" right after that is a member;
// "a-z" is a range; "\" quotes the next character; "[:alpha:]" and the other POSIX classes
// are supported; a "[:" without a closing ":]" is taken literally.
func matchBracket(p string, open int, c byte) (int, bool) {
	i := open + 1
	if i >= len(p) {
		return -1, false
	}
	negated := p[i] == '!' || p[i] == '^'
	if negated {
		i++
	}
	matched := false
	var prev byte // previous member, 0 after a range or a class
	for {
		if i >= len(p) {
			return -1, false
		}
		pc := p[i]
		switch {
		case pc == '\\':
			i++
			if i >= len(p) {
				return -1, false
			}
			pc = p[i]
			if c == pc {
				matched = true
			}
		case pc == '-' && prev != 0 && i+1 < len(p) && p[i+1] != ']':
			i++
			pc = p[i]
			if pc == '\\' {
				i++
				if i >= len(p) {
					return -1, false
				}
				pc = p[i]
			}
			if c >= prev && c <= pc {
				matched = true
			}
			pc = 0
		case pc == '[' && i+1 < len(p) && p[i+1] == ':':
			s := i + 2
			j := strings.IndexByte(p[s:], ']')
			if j < 0 {
				return -1, false
			}
			j += s
			if j == s || p[j-1] != ':' {
				// No ":]": the "[" is an ordinary member.
				if c == '[' {
					matched = true
				}
				break
			}
			in, known := inClass(p[s:j-1], c)
			if !known {
				return -1, false
			}
			if in {
				matched = true
			}
			i = j
			pc = 0
		default:
			if c == pc {
				matched = true
			}
		}
		prev = pc
		i++
		if i < len(p) && p[i] == ']' {
			return i, matched != negated
		}
	}
}

// inClass reports whether c belongs to the POSIX character class name in the C locale, and
// whether the class is known.
func inClass(name string, c byte) (in, known bool) {
	isUpper := c >= 'A' && c <= 'Z'
	isLower := c >= 'a' && c <= 'z'
	isDigit := c >= '0' && c <= '9'
	isAlpha := isUpper || isLower
	isGraph := c > ' ' && c < 0x7f
	switch name {
	case "alnum":
		return isAlpha || isDigit, true
	case "alpha":
		return isAlpha, true
	case "blank":
		return c == ' ' || c == '\t', true
	case "cntrl":
		return c < ' ' || c == 0x7f, true
	case "digit":
		return isDigit, true
	case "graph":
		return isGraph, true
	case "lower":
		return isLower, true
	case "print":
		return isGraph || c == ' ', true
	case "punct":
		return isGraph && !isAlpha && !isDigit, true
	case "space":
		// git's own isspace: no vertical tab or form feed.
		return c == ' ' || c == '\t' || c == '\n' || c == '\r', true
	case "upper":
		return isUpper, true
	case "xdigit":
		return isDigit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'), true
	}
	return false, false
}
