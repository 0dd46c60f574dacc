package load

import (
	"fmt"
	"sync"
	"testing"
)

// ignoreFile is one .gitignore: its directory relative to the walk root and its content.
type ignoreFile struct {
	dir, content string
}

// ignoreCheck is one Ignored query and its expected answer.
type ignoreCheck struct {
	path  string
	isDir bool
	want  bool
}

// atRoot is a single .gitignore at the walk root.
func atRoot(content string) []ignoreFile {
	return []ignoreFile{{"", content}}
}

// file and dir build checks for a regular file and a directory.
func file(path string, want bool) ignoreCheck { return ignoreCheck{path, false, want} }
func dir(path string, want bool) ignoreCheck  { return ignoreCheck{path, true, want} }

func TestIgnorerIgnored(t *testing.T) {
	tests := []struct {
		name   string
		files  []ignoreFile
		checks []ignoreCheck
	}{
		{
			name:  "no rules",
			files: nil,
			checks: []ignoreCheck{
				file("a.yaml", false), dir("a", false), file("a/b.yaml", false),
			},
		},
		{
			name:  "blank lines and comments",
			files: atRoot("\n# a comment\n\n   \n#foo\nbar\n"),
			checks: []ignoreCheck{
				file("bar", true), file("#foo", false), file("# a comment", false),
				file("foo", false), file("   ", false),
			},
		},
		{
			name:  "comment only at the start of the line",
			files: atRoot(" #x\n"),
			checks: []ignoreCheck{
				file(" #x", true), file("#x", false),
			},
		},
		{
			name:  "escaped hash",
			files: atRoot("\\#foo\n"),
			checks: []ignoreCheck{
				file("#foo", true), file("sub/#foo", true), file("\\#foo", false),
			},
		},
		{
			name:  "trailing spaces trimmed unless escaped",
			files: atRoot("foo   \nbar\\ \nbaz\\  \ntab\t\n"),
			checks: []ignoreCheck{
				file("foo", true), file("foo ", false), file("foo   ", false),
				file("bar ", true), file("bar", false),
				file("baz ", true), file("baz", false), file("baz  ", false),
				file("tab\t", true), file("tab", false),
			},
		},
		{
			name:  "negation: last matching pattern wins",
			files: atRoot("*.log\n!important.log\n"),
			checks: []ignoreCheck{
				file("debug.log", true), file("important.log", false),
				file("logs/debug.log", true), file("logs/important.log", false),
				file("notes.txt", false),
			},
		},
		{
			name:  "negation before the pattern it would override has no effect",
			files: atRoot("!important.log\n*.log\n"),
			checks: []ignoreCheck{
				file("important.log", true), file("debug.log", true),
			},
		},
		{
			name:  "escaped exclamation mark",
			files: atRoot("\\!important!.txt\n"),
			checks: []ignoreCheck{
				file("!important!.txt", true), file("important!.txt", false),
			},
		},
		{
			name:  "cannot re-include a file below an excluded directory",
			files: atRoot("build/\n!build/keep.yaml\n!keep2.yaml\n"),
			checks: []ignoreCheck{
				dir("build", true), file("build/keep.yaml", true),
				file("build/keep2.yaml", true), file("build/sub/x.yaml", true),
				file("keep.yaml", false),
			},
		},
		{
			name: "man page: exclude everything except directory foo/bar",
			files: atRoot("/*\n!/foo\n/foo/*\n!/foo/bar\n"),
			checks: []ignoreCheck{
				dir("foo", false), dir("foo/bar", false), file("foo/bar/x.yaml", false),
				file("foo/bar/deep/y.yaml", false), file("foo/baz", true), dir("foo/qux", true),
				file("foo/qux/z", true), file("top.yaml", true), dir("other", true),
				file("other/x.yaml", true),
			},
		},
		{
			name:  "ignore all files but keep directories",
			files: atRoot("*\n!*/\n!*.yaml\n"),
			checks: []ignoreCheck{
				dir("a", false), file("a", true), file("a/b.txt", true),
				dir("a/c", false), file("a/c/d.yaml", false), file("e.yaml", false),
			},
		},
		{
			name:  "trailing slash matches only directories, at any depth",
			files: atRoot("frotz/\n"),
			checks: []ignoreCheck{
				dir("frotz", true), file("frotz", false), dir("a/frotz", true),
				file("a/frotz", false), file("frotz/x.yaml", true), file("a/frotz/b/x.yaml", true),
				dir("frotzz", false),
			},
		},
		{
			name:  "man page: doc/frotz/ is anchored, frotz/ is not",
			files: atRoot("doc/frotz/\n"),
			checks: []ignoreCheck{
				dir("doc/frotz", true), file("doc/frotz", false), dir("a/doc/frotz", false),
				file("doc/frotz/x.yaml", true), file("a/doc/frotz/x.yaml", false),
				dir("doc", false),
			},
		},
		{
			name:  "leading slash anchors to the .gitignore directory",
			files: atRoot("/build\n"),
			checks: []ignoreCheck{
				dir("build", true), file("build", true), dir("sub/build", false),
				file("sub/build", false), file("build/x.yaml", true), file("builds", false),
			},
		},
		{
			name:  "no slash matches the basename at any depth",
			files: atRoot("build\n"),
			checks: []ignoreCheck{
				dir("build", true), file("build", true), dir("sub/build", true),
				file("a/b/c/build", true), file("a/build/x.yaml", true), file("rebuild", false),
			},
		},
		{
			name:  "slash in the middle anchors",
			files: atRoot("foo/bar\n"),
			checks: []ignoreCheck{
				file("foo/bar", true), dir("foo/bar", true), file("x/foo/bar", false),
				file("foo/bar/baz", true), file("foo/barx", false), dir("foo", false),
			},
		},
		{
			name:  "man page: hello.*",
			files: atRoot("hello.*\n"),
			checks: []ignoreCheck{
				file("hello.c", true), dir("hello.d", true), file("a/b/hello.txt", true),
				file("hello", false), file("ahello.c", false), file("hello.", true),
			},
		},
		{
			name:  "man page: foo/* matches one level below foo",
			files: atRoot("foo/*\n"),
			checks: []ignoreCheck{
				file("foo/test.json", true), dir("foo/bar", true),
				// The pattern itself does not match foo/bar/hello.c (see TestIgnorerPatternOnly)
				// but its parent foo/bar is excluded.
				file("foo/bar/hello.c", true),
				dir("foo", false), file("a/foo/test.json", false),
			},
		},
		{
			name:  "star, question mark and brackets do not match a slash",
			files: atRoot("/a*c\n/d?f\n/g[/]i\n/j[!x]l\n/m[^x]o\n"),
			checks: []ignoreCheck{
				file("abc", true), file("ac", true), file("ab/c", false), dir("ab", false),
				file("def", true), file("d/f", false), dir("d", false),
				file("g/i", false), file("gxi", false),
				file("jkl", true), file("jxl", false), file("j/l", false),
				file("mno", true), file("mxo", false), file("m/o", false),
			},
		},
		{
			name:  "bracket ranges and classes",
			files: atRoot("file[0-9].txt\n[!0-9]x\n[]]y\n[[:upper:]]z\nv[a-c[:digit:]]w\n"),
			checks: []ignoreCheck{
				file("file1.txt", true), file("file9.txt", true), file("filea.txt", false),
				file("file10.txt", false), file("ax", true), file("1x", false),
				file("]y", true), file("ay", false), file("Qz", true), file("qz", false),
				file("vbw", true), file("v7w", true), file("vdw", false),
			},
		},
		{
			name:  "case sensitive",
			files: atRoot("*.LOG\nReadme\n"),
			checks: []ignoreCheck{
				file("a.LOG", true), file("a.log", false), file("Readme", true), file("README", false),
			},
		},
		{
			name:  "man page: leading **/",
			files: atRoot("**/foo\n**/baz/bar\n"),
			checks: []ignoreCheck{
				file("foo", true), dir("foo", true), file("a/foo", true), dir("a/b/foo", true),
				file("afoo", false), file("baz/bar", true), file("x/baz/bar", true),
				dir("x/y/baz/bar", true), file("baz/x/bar", false), file("bar", false),
			},
		},
		{
			name:  "man page: trailing /**",
			files: atRoot("abc/**\n"),
			checks: []ignoreCheck{
				file("abc/x", true), dir("abc/x", true), file("abc/x/y", true),
				dir("abc", false), file("abc", false), file("sub/abc/x", false),
			},
		},
		{
			name:  "man page: /**/ in the middle",
			files: atRoot("a/**/b\nfoo/**/bar\n"),
			checks: []ignoreCheck{
				file("a/b", true), file("a/x/b", true), file("a/x/y/b", true),
				file("a/xb", false), file("x/a/b", false), file("a/b/c", true),
				file("foo/bar", true), file("foo/x/y/z/bar", true), file("foo/xbar", false),
				file("foox/bar", false),
			},
		},
		{
			name:  "other consecutive asterisks are ordinary stars",
			files: atRoot("/x**y\nfoo**bar\n"),
			checks: []ignoreCheck{
				file("xy", true), file("xaby", true), file("xa/y", false), dir("xa", false),
				file("fooXbar", true), file("sub/foobazbar", true), file("foo/bar", false),
			},
		},
		{
			name:  "a lone star matches everything",
			files: atRoot("*\n"),
			checks: []ignoreCheck{
				file("a", true), dir("a", true), file("a/b/c.yaml", true),
			},
		},
		{
			name: "nested .gitignore: base patterns apply below their directory",
			files: []ignoreFile{
				{"", "*.yaml\n"},
				{"sub", "!keep.yaml\n"},
			},
			checks: []ignoreCheck{
				file("keep.yaml", true), file("sub/keep.yaml", false), file("sub/x.yaml", true),
				file("sub/deep/keep.yaml", false), file("other/keep.yaml", true),
				file("subother/keep.yaml", true),
			},
		},
		{
			name: "nested .gitignore: deeper positive overrides shallower negation",
			files: []ignoreFile{
				{"", "*.txt\n!notes.txt\n"},
				{"a/b", "notes.txt\n"},
			},
			checks: []ignoreCheck{
				file("notes.txt", false), file("a/notes.txt", false), file("a/b/notes.txt", true),
				file("a/b/c/notes.txt", true), file("a/b/x.txt", true),
			},
		},
		{
			name: "nested .gitignore: falls back to the parent when nothing matches",
			files: []ignoreFile{
				{"", "*.log\n"},
				{"sub", "tmp/\n"},
			},
			checks: []ignoreCheck{
				file("sub/a.log", true), dir("sub/tmp", true), dir("tmp", false),
				file("sub/a.yaml", false),
			},
		},
		{
			name: "nested .gitignore: anchored patterns are relative to its directory",
			files: []ignoreFile{
				{"sub", "/gen\nx/y\n"},
			},
			checks: []ignoreCheck{
				dir("sub/gen", true), dir("gen", false), dir("sub/a/gen", false),
				file("sub/x/y", true), file("x/y", false), file("sub/z/x/y", false),
			},
		},
		{
			name: "nested .gitignore does not apply to its own directory",
			files: []ignoreFile{
				{"sub", "sub\n*\n"},
			},
			checks: []ignoreCheck{
				dir("sub", false), file("sub/a", true), dir("sub/sub", true),
			},
		},
		{
			name: "nested .gitignore cannot re-include below a directory excluded by a parent",
			files: []ignoreFile{
				{"", "vendor/\n"},
				{"vendor", "!*\n"},
			},
			checks: []ignoreCheck{
				dir("vendor", true), file("vendor/a.yaml", true),
			},
		},
		{
			name: "several files for one directory: later ones win",
			files: []ignoreFile{
				{"", "*.log\n"},
				{"", "!keep.log\n"},
			},
			checks: []ignoreCheck{
				file("a.log", true), file("keep.log", false),
			},
		},
		{
			name:  "CRLF line endings",
			files: atRoot("a.txt\r\nout/\r\n# comment\r\n\r\n!b.txt\r\n*.txt\r\n!c.txt"),
			checks: []ignoreCheck{
				file("a.txt", true), file("a.txt\r", false), dir("out", true), file("out", false),
				file("b.txt", true), file("c.txt", false), file("\r", false),
			},
		},
		{
			name:  "UTF-8 BOM and missing final newline",
			files: atRoot("\xEF\xBB\xBFfirst\nsecond"),
			checks: []ignoreCheck{
				file("first", true), file("\xEF\xBB\xBFfirst", false), file("second", true),
			},
		},
		{
			name:  "UTF-8 BOM before a comment",
			files: atRoot("\xEF\xBB\xBF# comment\n"),
			checks: []ignoreCheck{
				file("# comment", false), file("\xEF\xBB\xBF# comment", false),
			},
		},
		{
			name:  "patterns that match nothing",
			files: atRoot("!\n/\n!/\nfoo\\\n"),
			checks: []ignoreCheck{
				file("foo", false), file("foo\\", false), dir("a", false), file("!", false),
			},
		},
		{
			name: "paths and directories are normalised",
			files: []ignoreFile{
				{"./sub/", "/x\n"},
				{".", "/y\n"},
			},
			checks: []ignoreCheck{
				file("sub/x", true), file("./sub/x", true), file("sub//x", true),
				file("y", true), file("./y", true), dir("sub/x/", true),
				file("", false), dir(".", false),
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ig := NewIgnorer()
			for _, f := range tt.files {
				ig.AddFile(f.dir, []byte(f.content))
			}
			for _, c := range tt.checks {
				if got := ig.Ignored(c.path, c.isDir); got != c.want {
					t.Errorf("Ignored(%q, isDir=%v) = %v, want %v", c.path, c.isDir, got, c.want)
				}
			}
		})
	}
}

// TestIgnorerPatternOnly checks what patterns match on their own, without the rule that the
// contents of an excluded directory are excluded.
func TestIgnorerPatternOnly(t *testing.T) {
	ig := NewIgnorer()
	ig.AddFile("", []byte("foo/*\nabc/**\n"))
	tests := []struct {
		path  string
		isDir bool
		want  bool
	}{
		{"foo/test.json", false, true},
		{"foo/bar", true, true},
		{"foo/bar/hello.c", false, false},
		{"abc/x/y/z", false, true},
	}
	for _, tt := range tests {
		if got := ig.excluded(tt.path, tt.isDir); got != tt.want {
			t.Errorf("excluded(%q, %v) = %v, want %v", tt.path, tt.isDir, got, tt.want)
		}
	}
}

func TestIgnorerWildmatch(t *testing.T) {
	tests := []struct {
		pattern, text string
		want          bool
	}{
		{"foo", "foo", true},
		{"foo", "bar", false},
		{"", "", true},
		{"", "foo", false},
		{"???", "foo", true},
		{"??", "foo", false},
		{"*", "foo", true},
		{"f*", "foo", true},
		{"*f", "foo", false},
		{"*foo*", "foo", true},
		{"*ob*a*r*", "foobar", true},
		{"*ab", "aaaaaaabababab", true},
		{"foo\\*", "foo*", true},
		{"foo\\*bar", "foobar", false},
		{"f\\\\oo", "f\\oo", true},
		{"foo\\", "foo\\", false},
		{"*[al]?", "ball", true},
		{"[ten]", "ten", false},
		{"**[!te]", "ten", true},
		{"**[!ten]", "ten", false},
		{"t[a-g]n", "ten", true},
		{"t[!a-g]n", "ten", false},
		{"t[!a-g]n", "ton", true},
		{"t[^a-g]n", "ton", true},
		{"a[]]b", "a]b", true},
		{"a[]-]b", "a-b", true},
		{"a[]-]b", "a]b", true},
		{"a[]-]b", "aab", false},
		{"a[]a-]b", "aab", true},
		{"]", "]", true},
		{"a[", "a[", false},
		{"[!a", "b", false},
		{"\\[ab]", "[ab]", true},
		{"[[]ab]", "[ab]", true},
		{"[[:]ab]", "[ab]", true},
		{"[[::]ab]", "[ab]", false},
		{"[[:digit]ab]", "[ab]", true},
		{"[\\[:]ab]", "[ab]", true},
		{"\\??\\?b", "?a?b", true},
		{"\\a\\b\\c", "abc", true},
		{"[\\-_]", "-", true},
		{"[\\]]", "]", true},
		{"[a-c[:digit:]x-z]", "5", true},
		{"[a-c[:digit:]x-z]", "b", true},
		{"[a-c[:digit:]x-z]", "y", true},
		{"[a-c[:digit:]x-z]", "q", false},
		{"[[:alpha:]][[:digit:]][[:upper:]]", "a1B", true},
		{"[[:digit:][:upper:][:space:]]", "a", false},
		{"[[:digit:][:upper:][:space:]]", "A", true},
		{"[[:digit:][:upper:][:space:]]", " ", true},
		{"[[:digit:][:upper:][:spaci:]]", "1", false},
		{"[[:xdigit:]][[:punct:]][[:lower:]]", "f.q", true},
		{"foo*bar", "foo/baz/bar", false},
		{"foo**bar", "foo/baz/bar", false},
		{"foo**bar", "foobazbar", true},
		{"foo/**/bar", "foo/baz/bar", true},
		{"foo/**/**/bar", "foo/baz/bar", true},
		{"foo/**/bar", "foo/b/a/z/bar", true},
		{"foo/**/bar", "foo/bar", true},
		{"foo/**/**/bar", "foo/bar", true},
		{"foo?bar", "foo/bar", false},
		{"foo[/]bar", "foo/bar", false},
		{"foo[^a-z]bar", "foo/bar", false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo/bar", false},
		{"f[^eiu][^eiu][^eiu][^eiu][^eiu]r", "foo-bar", true},
		{"**/foo", "foo", true},
		{"**/foo", "XXX/foo", true},
		{"**/foo", "bar/baz/foo", true},
		{"*/foo", "bar/baz/foo", false},
		{"**/bar*", "foo/bar/baz", false},
		{"**/bar/*", "deep/foo/bar/baz", true},
		{"**/bar/*", "deep/foo/bar/baz/", false},
		{"**/bar/**", "deep/foo/bar/baz/", true},
		{"**/bar/*", "deep/foo/bar", false},
		{"**/bar/**", "deep/foo/bar/", true},
		{"**/bar**", "foo/bar/baz", false},
		{"*/bar/**", "foo/bar/baz/x", true},
		{"*/bar/**", "deep/foo/bar/baz/x", false},
		{"**/bar/*/*", "deep/foo/bar/baz/x", true},
		{"a/**/x*y", "a/b/x1/xy", true},
		{"**/t[o]", "foo/bar/baz/to", true},
		{"*/*/*", "foo/bba/arr", true},
		{"*/*/*", "foo/bb/aa/rr", false},
		{"**/**/**", "foo/bb/aa/rr", true},
		{"*X*i", "abcXdefXghi", true},
		{"*X*i", "ab/cXd/efXg/hi", false},
		{"*/*X*/*/*i", "ab/cXd/efXg/hi", true},
		{"**/*X*/**/*i", "ab/cXd/efXg/hi", true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txt", true},
		{"**/*a*b*g*n*t", "abcd/abcdefg/abcdefghijk/abcdefghijklmnop.txtz", false},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-m-70-iso8859-1", true},
		{"-*-*-*-*-*-*-12-*-*-*-m-*-*-*", "-adobe-courier-bold-o-normal--12-120-75-75-X-70-iso8859-1", false},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/m/70/iso8859/1", true},
		{"XXX/*/*/*/*/*/*/12/*/*/*/m/*/*/*", "XXX/adobe/courier/bold/o/normal//12/120/75/75/X/70/iso8859/1", false},
		{"*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
	}
	for _, tt := range tests {
		if got := wildmatch(tt.pattern, tt.text); got != tt.want {
			t.Errorf("wildmatch(%q, %q) = %v, want %v", tt.pattern, tt.text, got, tt.want)
		}
	}
}

func TestIgnorerTrimTrailingSpaces(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a", "a"},
		{"a  ", "a"},
		{"a b ", "a b"},
		{"a\\ ", "a\\ "},
		{"a\\  ", "a\\ "},
		{"a\\", "a\\"},
		{"a \\", "a \\"},
		{"a\t ", "a\t"},
		{"   ", ""},
	}
	for _, tt := range tests {
		if got := trimTrailingSpaces(tt.in); got != tt.want {
			t.Errorf("trimTrailingSpaces(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIgnorerNil(t *testing.T) {
	var ig *Ignorer
	if ig.Ignored("a", false) {
		t.Error("nil Ignorer ignores a path")
	}
}

// TestIgnorerConcurrent checks, under -race, that Ignored may be called from several
// goroutines once the rules are loaded.
func TestIgnorerConcurrent(t *testing.T) {
	ig := benchIgnorer()
	paths := benchPaths(2000)
	want := make([]bool, len(paths))
	for i, p := range paths {
		want[i] = ig.Ignored(p, false)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for i, p := range paths {
				if got := ig.Ignored(p, false); got != want[i] {
					t.Errorf("Ignored(%q) = %v, want %v", p, got, want[i])
				}
			}
		})
	}
	wg.Wait()
}

// benchIgnorer returns an Ignorer with a realistic set of rules: a root .gitignore and two
// nested ones.
func benchIgnorer() *Ignorer {
	ig := NewIgnorer()
	ig.AddFile("", []byte(`# build output
/bin/
/dist
*.log
*.tmp
*~
.DS_Store
node_modules/
vendor/
**/testdata/golden/*.out
docs/**/*.html
!docs/index.html
coverage.*
[Tt]humbs.db
*.sw[op]
`))
	ig.AddFile("team3", []byte("generated/\n!keep.log\n"))
	ig.AddFile("team7/svc2", []byte("/local-*.yaml\n"))
	return ig
}

// benchPaths returns n file paths spread over a tree three to five levels deep.
func benchPaths(n int) []string {
	exts := []string{".yaml", ".yml", ".json", ".log", ".md", ".yaml.tmp"}
	paths := make([]string, 0, n)
	for i := range n {
		p := fmt.Sprintf("team%d/svc%d/env%d/config-%d%s", i%10, i%7, i%3, i, exts[i%len(exts)])
		if i%4 == 0 {
			p = fmt.Sprintf("team%d/svc%d/overlays/prod/patch-%d%s", i%10, i%7, i, exts[i%len(exts)])
		}
		paths = append(paths, p)
	}
	return paths
}

func BenchmarkIgnored(b *testing.B) {
	ig := benchIgnorer()
	paths := benchPaths(20000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ig.Ignored(paths[i%len(paths)], false)
	}
}
