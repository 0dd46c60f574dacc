package gitdiff

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const sampleDiff = `diff --git a/deploy/ds.yaml b/deploy/ds.yaml
index 1111111..2222222 100644
--- a/deploy/ds.yaml
+++ b/deploy/ds.yaml
@@ -3 +3 @@ metadata:
-  name: old
+  name: new
@@ -10,0 +11,2 @@ spec:
+--- not a header
++++ not a header either
@@ -20,3 +21,0 @@
--- removed line that looks like a header
-a
-b
diff --git a/gone.yaml b/gone.yaml
deleted file mode 100644
--- a/gone.yaml
+++ /dev/null
@@ -1,2 +0,0 @@
-x
-y
diff --git a/new.yaml b/new.yaml
new file mode 100644
--- /dev/null
+++ b/new.yaml
@@ -0,0 +1,3 @@
+a
+b
+c
\ No newline at end of file
diff --git a/old name.yaml b/moved/new name.yaml
similarity 100%
rename from old name.yaml
rename to moved/new name.yaml
diff --git "a/caf\303\251\tx.yaml" "b/caf\303\251\tx.yaml"
--- "a/caf\303\251\tx.yaml"
+++ "b/caf\303\251\tx.yaml"
@@ -1 +1 @@
-a
+b
`

func TestParse(t *testing.T) {
	c, err := Parse([]byte(sampleDiff))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Files(), []string{"café\tx.yaml", "deploy/ds.yaml", "new.yaml"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Files() = %q, want %q", got, want)
	}
	for _, tc := range []struct {
		file     string
		from, to int
		changed  bool
		edited   bool
	}{
		{"deploy/ds.yaml", 3, 3, true, true},
		{"deploy/ds.yaml", 2, 2, false, false},
		{"deploy/ds.yaml", 1, 2, false, false},
		{"deploy/ds.yaml", 11, 11, true, true},
		{"deploy/ds.yaml", 12, 12, true, true},
		{"deploy/ds.yaml", 13, 13, false, false},
		// Lines were removed after line 21: only Edited sees that.
		{"deploy/ds.yaml", 21, 21, false, true},
		{"deploy/ds.yaml", 22, 30, false, true},
		{"deploy/ds.yaml", 23, 30, false, false},
		{"deploy/ds.yaml", 0, 0, true, true},
		{"new.yaml", 3, 3, true, true},
		{"gone.yaml", 0, 0, false, false},
		{"moved/new name.yaml", 0, 0, false, false},
		{"café\tx.yaml", 1, 1, true, true},
		{"other.yaml", 0, 0, false, false},
	} {
		if got := c.Changed(tc.file, tc.from, tc.to); got != tc.changed {
			t.Errorf("Changed(%q, %d, %d) = %v, want %v", tc.file, tc.from, tc.to, got, tc.changed)
		}
		if got := c.Edited(tc.file, tc.from, tc.to); got != tc.edited {
			t.Errorf("Edited(%q, %d, %d) = %v, want %v", tc.file, tc.from, tc.to, got, tc.edited)
		}
	}
	c.WholeFiles = true
	if !c.Changed("deploy/ds.yaml", 40, 40) || c.Changed("other.yaml", 1, 1) {
		t.Error("WholeFiles: every line of a changed file counts, no line of another")
	}
}

func TestParseErrors(t *testing.T) {
	for _, bad := range []string{
		"+++ b/x\n@@ -1 +x @@ S3CR3T\n",
		"+++ b/x\n@@ -1,2 +1,2 @@\n-a\nS3CR3T\n",
		"+++ \"b/unterminated\n",
	} {
		_, err := Parse([]byte(bad))
		if err == nil {
			t.Errorf("Parse(%q) succeeded, want an error", bad)
		} else if strings.Contains(err.Error(), "S3CR3T") {
			t.Errorf("Parse(%q) error quotes the content: %v", bad, err)
		}
	}
}

// TestParseLongLines: a changed line longer than any scanner buffer (64 MB and more, as in
// minified JSON) is just a changed line.
func TestParseLongLines(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 65<<20)
	var diff bytes.Buffer
	diff.WriteString("diff --git a/big.json b/big.json\n--- a/big.json\n+++ b/big.json\n@@ -1,2 +1,2 @@\n-old\n+")
	diff.Write(long)
	diff.WriteString("\n ctx\n@@ -9 +9 @@\n-a\n+b\n")
	c, err := Parse(diff.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !c.Changed("big.json", 1, 1) || !c.Changed("big.json", 9, 9) || c.Changed("big.json", 5, 5) {
		t.Error("changed lines of big.json not recorded")
	}
}

// repo is a temporary Git repository for tests, isolated from the user's configuration.
type repo struct {
	t   *testing.T
	dir string
}

func newRepo(t *testing.T) *repo {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", os.DevNull)
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	r := &repo{t: t, dir: t.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *repo) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func (r *repo) write(name, content string) {
	r.t.Helper()
	p := filepath.Join(r.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		r.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

func (r *repo) commit(msg string) string {
	r.git("add", "-A")
	r.git("commit", "-q", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func TestComputeWorkTree(t *testing.T) {
	r := newRepo(t)
	r.write("a.yaml", "one\ntwo\nthree\nfour\n")
	r.write("sub/b.yaml", "x\ny\n")
	r.write(".gitignore", "ignored.yaml\n")
	base := r.commit("base")
	r.write("a.yaml", "one\nTWO\nthree\nfour\nfive\n")
	r.write("untracked.yaml", "u\n")
	r.write("ignored.yaml", "i\n")
	r.git("mv", "sub/b.yaml", "sub/c.yaml")
	r.git("add", "a.yaml") // staged and unstaged changes both count

	// Run from a subdirectory: names stay relative to the repository root.
	c, err := Compute(context.Background(), Options{Dir: filepath.Join(r.dir, "sub"), Base: base})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.Files(), []string{"a.yaml", "untracked.yaml"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Files() = %q, want %q (renames without edits and ignored files are not changes)", got, want)
	}
	if c.Changed("a.yaml", 1, 1) || !c.Changed("a.yaml", 2, 2) || !c.Changed("a.yaml", 5, 5) || c.Changed("a.yaml", 3, 4) {
		t.Error("a.yaml: want lines 2 and 5 changed only")
	}
	if !c.Changed("untracked.yaml", 1, 1) {
		t.Error("untracked files are new")
	}
}

func TestComputeRevisionsAndMergeBase(t *testing.T) {
	r := newRepo(t)
	r.write("a.yaml", "1\n2\n3\n")
	r.commit("base")
	r.git("checkout", "-q", "-b", "feature")
	r.write("a.yaml", "1\n2 feature\n3\n")
	feature := r.commit("feature")
	r.git("checkout", "-q", "main")
	r.write("a.yaml", "1 main\n2\n3\n")
	r.commit("main moves on")

	// Against main's tip, the feature also "changed" line 1 back; against the merge base,
	// only its own change shows, as in a pull request.
	direct, err := Compute(context.Background(), Options{Dir: r.dir, Base: "main", Head: feature})
	if err != nil {
		t.Fatal(err)
	}
	if !direct.Changed("a.yaml", 1, 1) {
		t.Error("diff against main: line 1 differs")
	}
	mb, err := Compute(context.Background(), Options{Dir: r.dir, Base: "main", Head: "feature", MergeBase: true})
	if err != nil {
		t.Fatal(err)
	}
	if mb.Changed("a.yaml", 1, 1) || !mb.Changed("a.yaml", 2, 2) {
		t.Error("diff against the merge base: only line 2 is the feature's")
	}

	for _, bad := range []Options{
		{Dir: r.dir, Base: "no-such-rev"},
		{Dir: r.dir, Base: "--output=/tmp/x"},
		{Dir: r.dir, Base: "main", Head: "nope"},
		{Dir: t.TempDir(), Base: "HEAD"},
	} {
		if _, err := Compute(context.Background(), bad); err == nil {
			t.Errorf("Compute(%+v) succeeded, want an error", bad)
		}
	}
}
