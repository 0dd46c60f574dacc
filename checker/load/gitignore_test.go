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

// ignoreAtRoot is a single .gitignore at the walk root.
func ignoreAtRoot(content string) []ignoreFile {
	return []ignoreFile{{"", content}}
}

// ignFile and ignDir build checks for a regular file and a directory.
func ignFile(path string, want bool) ignoreCheck { return ignoreCheck{path, false, want} }
func ignDir(path string, want bool) ignoreCheck  { return ignoreCheck{path, true, want} }

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
				ignFile("a.yaml", false), ignDir("a", false), ignFile("a/b.yaml", false),
			},
		},
		{
			name:  "blank lines and comments",
			files: ignoreAtRoot("\n# a comment\n\n   \n#foo\nbar\n"),
			checks: []ignoreCheck{
				ignFile("bar", true), ignFile("#foo", false), ignFile("# a comment", false),
				ignFile("foo", false), ignFile("   ", false),
			},
		},
		{
			name:  "comment only at the start of the line",
			files: ignoreAtRoot(" #x\n"),
			checks: []ignoreCheck{
				ignFile(" #x", true), ignFile("#x", false),
			},
		},
		{
			name:  "escaped hash",
			files: ignoreAtRoot("\\#foo\n"),
			checks: []ignoreCheck{
				ignFile("#foo", true), ignFile("sub/#foo", true), ignFile("\\#foo", false),
			},
		},
		{
			name:  "trailing spaces trimmed unless escaped",
			files: ignoreAtRoot("foo   \nbar\\ \nbaz\\  \ntab\t\n"),
			checks: []ignoreCheck{
				ignFile("foo", true), ignFile("foo ", false), ignFile("foo   ", false),
				ignFile("bar ", true), ignFile("bar", false),
				ignFile("baz ", true), ignFile("baz", false), ignFile("baz  ", false),
				ignFile("tab\t", true), ignFile("tab", false),
			},
		},
		{
			name:  "negation: last matching pattern wins",
			files: ignoreAtRoot("*.log\n!important.log\n"),
			checks: []ignoreCheck{
				ignFile("debug.log", true), ignFile("important.log", false),
				ignFile("logs/debug.log", true), ignFile("logs/important.log", false),
				ignFile("notes.txt", false),
			},
		},
		{
			name:  "negation before the pattern it would override has no effect",
			files: ignoreAtRoot("!important.log\n*.log\n"),
			checks: []ignoreCheck{
				ignFile("important.log", true), ignFile("debug.log", true),
			},
		},
		{
			name:  "escaped exclamation mark",
			files: ignoreAtRoot("\\!important!.txt\n"),
			checks: []ignoreCheck{
				ignFile("!important!.txt", true), ignFile("important!.txt", false),
			},
		},
		{
			name:  "cannot re-include a file below an excluded directory",
			files: ignoreAtRoot("build/\n!build/keep.yaml\n!keep2.yaml\n"),
			checks: []ignoreCheck{
				ignDir("build", true), ignFile("build/keep.yaml", true),
				ignFile("build/keep2.yaml", true), ignFile("build/sub/x.yaml", true),
				ignFile("keep.yaml", false),
			},
		},
		{
			name:  "man page: exclude everything except directory foo/bar",
			files: ignoreAtRoot("/*\n!/foo\n/foo/*\n!/foo/bar\n"),
			checks: []ignoreCheck{
				ignDir("foo", false), ignDir("foo/bar", false), ignFile("foo/bar/x.yaml", false),
				ignFile("foo/bar/deep/y.yaml", false), ignFile("foo/baz", true), ignDir("foo/qux", true),
				ignFile("foo/qux/z", true), ignFile("top.yaml", true), ignDir("other", true),
				ignFile("other/x.yaml", true),
			},
		},
		{
			name:  "ignore all files but keep directories",
			files: ignoreAtRoot("*\n!*/\n!*.yaml\n"),
			checks: []ignoreCheck{
				ignDir("a", false), ignFile("a", true), ignFile("a/b.txt", true),
				ignDir("a/c", false), ignFile("a/c/d.yaml", false), ignFile("e.yaml", false),
			},
		},
		{
			name:  "trailing slash matches only directories, at any depth",
			files: ignoreAtRoot("frotz/\n"),
			checks: []ignoreCheck{
				ignDir("frotz", true), ignFile("frotz", false), ignDir("a/frotz", true),
				ignFile("a/frotz", false), ignFile("frotz/x.yaml", true), ignFile("a/frotz/b/x.yaml", true),
				ignDir("frotzz", false),
			},
		},
		{
			name:  "man page: doc/frotz/ is anchored, frotz/ is not",
			files: ignoreAtRoot("doc/frotz/\n"),
			checks: []ignoreCheck{
				ignDir("doc/frotz", true), ignFile("doc/frotz", false), ignDir("a/doc/frotz", false),
				ignFile("doc/frotz/x.yaml", true), ignFile("a/doc/frotz/x.yaml", false),
				ignDir("doc", false),
			},
		},
		{
			name:  "leading slash anchors to the .gitignore directory",
			files: ignoreAtRoot("/build\n"),
			checks: []ignoreCheck{
				ignDir("build", true), ignFile("build", true), ignDir("sub/build", false),
				ignFile("sub/build", false), ignFile("build/x.yaml", true), ignFile("builds", false),
			},
		},
		{
			name:  "no slash matches the basename at any depth",
			files: ignoreAtRoot("build\n"),
			checks: []ignoreCheck{
				ignDir("build", true), ignFile("build", true), ignDir("sub/build", true),
				ignFile("a/b/c/build", true), ignFile("a/build/x.yaml", true), ignFile("rebuild", false),
			},
		},
		{
			name:  "slash in the middle anchors",
			files: ignoreAtRoot("foo/bar\n"),
			checks: []ignoreCheck{
				ignFile("foo/bar", true), ignDir("foo/bar", true), ignFile("x/foo/bar", false),
				ignFile("foo/bar/baz", true), ignFile("foo/barx", false), ignDir("foo", false),
			},
		},
		{
			name:  "man page: hello.*",
			files: ignoreAtRoot("hello.*\n"),
			checks: []ignoreCheck{
				ignFile("hello.c", true), ignDir("hello.d", true), ignFile("a/b/hello.txt", true),
				ignFile("hello", false), ignFile("ahello.c", false), ignFile("hello.", true),
			},
		},
		{
			name:  "man page: foo/* matches one level below foo",
			files: ignoreAtRoot("foo/*\n"),
			checks: []ignoreCheck{
				ignFile("foo/test.json", true), ignDir("foo/bar", true),
				// The pattern itself does not match foo/bar/hello.c (see TestIgnorerPatternOnly)
				// but its parent foo/bar is excluded.
				ignFile("foo/bar/hello.c", true),
				ignDir("foo", false), ignFile("a/foo/test.json", false),
			},
		},
		{
			name:  "star, question mark and brackets do not match a slash",
			files: ignoreAtRoot("/a*c\n/d?f\n/g[/]i\n/j[!x]l\n/m[^x]o\n"),
			checks: []ignoreCheck{
				ignFile("abc", true), ignFile("ac", true), ignFile("ab/c", false), ignDir("ab", false),
				ignFile("def", true), ignFile("d/f", false), ignDir("d", false),
				ignFile("g/i", false), ignFile("gxi", false),
				ignFile("jkl", true), ignFile("jxl", false), ignFile("j/l", false),
				ignFile("mno", true), ignFile("mxo", false), ignFile("m/o", false),
			},
		},
		{
			name:  "bracket ranges and classes",
			files: ignoreAtRoot("file[0-9].txt\n[!0-9]x\n[]]y\n[[:upper:]]z\nv[a-c[:digit:]]w\n"),
			checks: []ignoreCheck{
				ignFile("file1.txt", true), ignFile("file9.txt", true), ignFile("filea.txt", false),
				ignFile("file10.txt", false), ignFile("ax", true), ignFile("1x", false),
				ignFile("]y", true), ignFile("ay", false), ignFile("Qz", true), ignFile("qz", false),
				ignFile("vbw", true), ignFile("v7w", true), ignFile("vdw", false),
			},
		},
		{
			name:  "case sensitive",
			files: ignoreAtRoot("*.LOG\nReadme\n"),
			checks: []ignoreCheck{
				ignFile("a.LOG", true), ignFile("a.log", false), ignFile("Readme", true), ignFile("README", false),
			},
		},
		{
			name:  "man page: leading **/",
			files: ignoreAtRoot("**/foo\n**/baz/bar\n"),
			checks: []ignoreCheck{
				ignFile("foo", true), ignDir("foo", true), ignFile("a/foo", true), ignDir("a/b/foo", true),
				ignFile("afoo", false), ignFile("baz/bar", true), ignFile("x/baz/bar", true),
				ignDir("x/y/baz/bar", true), ignFile("baz/x/bar", false), ignFile("bar", false),
			},
		},
		{
			name:  "man page: trailing /**",
			files: ignoreAtRoot("abc/**\n"),
			checks: []ignoreCheck{
				ignFile("abc/x", true), ignDir("abc/x", true), ignFile("abc/x/y", true),
				ignDir("abc", false), ignFile("abc", false), ignFile("sub/abc/x", false),
			},
		},
		{
			name:  "man page: /**/ in the middle",
			files: ignoreAtRoot("a/**/b\nfoo/**/bar\n"),
			checks: []ignoreCheck{
				ignFile("a/b", true), ignFile("a/x/b", true), ignFile("a/x/y/b", true),
				ignFile("a/xb", false), ignFile("x/a/b", false), ignFile("a/b/c", true),
				ignFile("foo/bar", true), ignFile("foo/x/y/z/bar", true), ignFile("foo/xbar", false),
				ignFile("foox/bar", false),
			},
		},
		{
			name:  "other consecutive asterisks are ordinary stars",
			files: ignoreAtRoot("/x**y\nfoo**bar\n"),
			checks: []ignoreCheck{
				ignFile("xy", true), ignFile("xaby", true), ignFile("xa/y", false), ignDir("xa", false),
				ignFile("fooXbar", true), ignFile("sub/foobazbar", true), ignFile("foo/bar", false),
			},
		},
		{
			name:  "a lone star matches everything",
			files: ignoreAtRoot("*\n"),
			checks: []ignoreCheck{
				ignFile("a", true), ignDir("a", true), ignFile("a/b/c.yaml", true),
			},
		},
		{
			name: "nested .gitignore: base patterns apply below their directory",
			files: []ignoreFile{
				{"", "*.yaml\n"},
				{"sub", "!keep.yaml\n"},
			},
			checks: []ignoreCheck{
				ignFile("keep.yaml", true), ignFile("sub/keep.yaml", false), ignFile("sub/x.yaml", true),
				ignFile("sub/deep/keep.yaml", false), ignFile("other/keep.yaml", true),
				ignFile("subother/keep.yaml", true),
			},
		},
		{
			name: "nested .gitignore: deeper positive overrides shallower negation",
			files: []ignoreFile{
				{"", "*.txt\n!notes.txt\n"},
				{"a/b", "notes.txt\n"},
			},
			checks: []ignoreCheck{
				ignFile("notes.txt", false), ignFile("a/notes.txt", false), ignFile("a/b/notes.txt", true),
				ignFile("a/b/c/notes.txt", true), ignFile("a/b/x.txt", true),
			},
		},
		{
			name: "nested .gitignore: falls back to the parent when nothing matches",
			files: []ignoreFile{
				{"", "*.log\n"},
				{"sub", "tmp/\n"},
			},
			checks: []ignoreCheck{
				ignFile("sub/a.log", true), ignDir("sub/tmp", true), ignDir("tmp", false),
				ignFile("sub/a.yaml", false),
			},
		},
		{
			name: "nested .gitignore: anchored patterns are relative to its directory",
			files: []ignoreFile{
				{"sub", "/gen\nx/y\n"},
			},
			checks: []ignoreCheck{
				ignDir("sub/gen", true), ignDir("gen", false), ignDir("sub/a/gen", false),
				ignFile("sub/x/y", true), ignFile("x/y", false), ignFile("sub/z/x/y", false),
			},
		},
		{
			name: "nested .gitignore does not apply to its own directory",
			files: []ignoreFile{
				{"sub", "sub\n*\n"},
			},
			checks: []ignoreCheck{
				ignDir("sub", false), ignFile("sub/a", true), ignDir("sub/sub", true),
			},
		},
		{
			name: "nested .gitignore cannot re-include below a directory excluded by a parent",
			files: []ignoreFile{
				{"", "vendor/\n"},
				{"vendor", "!*\n"},
			},
			checks: []ignoreCheck{
				ignDir("vendor", true), ignFile("vendor/a.yaml", true),
			},
		},
		{
			name: "several files for one directory: later ones win",
			files: []ignoreFile{
				{"", "*.log\n"},
				{"", "!keep.log\n"},
			},
			checks: []ignoreCheck{
				ignFile("a.log", true), ignFile("keep.log", false),
			},
		},
		{
			name:  "CRLF line endings",
			files: ignoreAtRoot("a.txt\r\nout/\r\n# comment\r\n\r\n!b.txt\r\n*.txt\r\n!c.txt"),
			checks: []ignoreCheck{
				ignFile("a.txt", true), ignFile("a.txt\r", false), ignDir("out", true), ignFile("out", false),
				ignFile("b.txt", true), ignFile("c.txt", false), ignFile("\r", false),
			},
		},
		{
			name:  "UTF-8 BOM and missing final newline",
			files: ignoreAtRoot("\xEF\xBB\xBFfirst\nsecond"),
			checks: []ignoreCheck{
				ignFile("first", true), ignFile("\xEF\xBB\xBFfirst", false), ignFile("second", true),
			},
		},
		{
			name:  "UTF-8 BOM before a comment",
			files: ignoreAtRoot("\xEF\xBB\xBF# comment\n"),
			checks: []ignoreCheck{
				ignFile("# comment", false), ignFile("\xEF\xBB\xBF# comment", false),
			},
		},
		{
			name:  "patterns that match nothing",
			files: ignoreAtRoot("!\n/\n!/\nfoo\\\n"),
			checks: []ignoreCheck{
				ignFile("foo", false), ignFile("foo\\", false), ignDir("a", false), ignFile("!", false),
			},
		},
		{
			name: "paths and directories are normalised",
			files: []ignoreFile{
				{"./sub/", "/x\n"},
				{".", "/y\n"},
			},
			checks: []ignoreCheck{
				ignFile("sub/x", true), ignFile("./sub/x", true), ignFile("sub//x", true),
				ignFile("y", true), ignFile("./y", true), ignDir("sub/x/", true),
				ignFile("", false), ignDir(".", false),
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
	ig := ignoreBenchIgnorer()
	paths := ignoreBenchPaths(2000)
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

// ignoreBenchIgnorer returns an Ignorer with a realistic set of rules: a root .gitignore and two
// nested ones.
func ignoreBenchIgnorer() *Ignorer {
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

// ignoreBenchPaths returns n file paths spread over a tree three to five levels deep.
func ignoreBenchPaths(n int) []string {
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
	ig := ignoreBenchIgnorer()
	paths := ignoreBenchPaths(20000)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		ig.Ignored(paths[i%len(paths)], false)
	}
}
