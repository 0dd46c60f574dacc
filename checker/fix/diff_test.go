package fix

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// diffCases are changes as fixes make them: a value replaced, lines deleted and inserted,
// several hunks, CRLF files, files without a final line end, a file emptied.
var diffCases = []struct{ name, old, new string }{
	{"value", "apiVersion: v1\nkind: ConfigMap\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: ipvs\n    ipvs:\n      scheduler: rr\n",
		"apiVersion: v1\nkind: ConfigMap\ndata:\n  config.conf: |\n    kind: KubeProxyConfiguration\n    mode: nftables\n    ipvs:\n      scheduler: rr\n"},
	{"delete-lines", "a: 1\nb: 2\nipvs:\n  strictARP: true\n  scheduler: lc\nc: 3\nd: 4\ne: 5\nf: 6\n",
		"a: 1\nb: 2\nc: 3\nd: 4\ne: 5\nf: 6\n"},
	{"insert-line", "apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nclusterCIDR: 10.0.0.0/8\n",
		"apiVersion: kubeproxy.config.k8s.io/v1alpha1\nkind: KubeProxyConfiguration\nmode: iptables\nclusterCIDR: 10.0.0.0/8\n"},
	{"two-hunks", lines(1, 30), strings.Replace(strings.Replace(lines(1, 30), "line 3\n", "line three\n", 1), "line 25\n", "", 1)},
	{"merged-hunks", lines(1, 20), strings.Replace(strings.Replace(lines(1, 20), "line 5\n", "line five\n", 1), "line 11\n", "line eleven\n", 1)},
	{"function-lines", "spec:\n  template:\n    spec:\n      containers:\n      - name: kube-proxy\n        command:\n        - kube-proxy\n        - --config=/var/lib/kube-proxy/config.conf\n        - --proxy-mode=ipvs\n        - --v=2\nstatus: {}\n",
		"spec:\n  template:\n    spec:\n      containers:\n      - name: kube-proxy\n        command:\n        - kube-proxy\n        - --config=/var/lib/kube-proxy/config.conf\n        - --v=2\nstatus: {}\n"},
	{"crlf", "kind: KubeProxyConfiguration\r\nmode: ipvs\r\nclusterCIDR: 10.0.0.0/8\r\n", "kind: KubeProxyConfiguration\r\nmode: nftables\r\nclusterCIDR: 10.0.0.0/8\r\n"},
	{"no-final-newline", "kind: KubeProxyConfiguration\nmode: ipvs", "kind: KubeProxyConfiguration\nmode: nftables"},
	{"append-at-eof-without-newline", "kind: ClusterConfiguration\nkubernetesVersion: v1.40.0", "kind: ClusterConfiguration\nkubernetesVersion: v1.40.0\n---\nkind: KubeProxyConfiguration\nmode: iptables\n"},
	{"emptied", "mode: ipvs\n", ""},
	{"long-function-line", "x" + strings.Repeat("y", 100) + ":\n" + lines(1, 8), "x" + strings.Repeat("y", 100) + ":\n" + strings.Replace(lines(1, 8), "line 7\n", "line 7!\n", 1)},
	{"function-line-kept", "top:\n" + lines(1, 40), "top:\n" + strings.Replace(strings.Replace(lines(1, 40), "line 10\n", "", 1), "line 30\n", "", 1)},
}

func lines(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		b.WriteString("  line " + strconv.Itoa(i) + "\n")
	}
	return b.String()
}

// TestDiffMatchesGit compares Diff with `git diff --no-index` on the same files and checks
// that `git apply` turns the old file into the new one with it.
func TestDiffMatchesGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	for _, c := range diffCases {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(sub, content string) {
				p := filepath.Join(dir, sub, "f.yaml")
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("a", c.old)
			write("b", c.new)
			cmd := exec.Command("git", "-c", "core.quotePath=true", "diff", "--no-index", "--no-color", "--no-ext-diff", "a/f.yaml", "b/f.yaml")
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir, "XDG_CONFIG_HOME="+dir)
			want, err := cmd.Output()
			var ee *exec.ExitError
			if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
				t.Fatalf("git diff: %v", err)
			}
			got := Diff([]FileChange{{Name: "f.yaml", Old: []byte(c.old), New: []byte(c.new)}})
			// git starts with "diff --git" and "index" lines that Diff does not write.
			w := string(want)
			if i := strings.Index(w, "--- "); i >= 0 {
				w = w[i:]
			}
			// git names the two files a/a/f.yaml and b/b/f.yaml (its prefix and the path).
			w = strings.Replace(strings.Replace(w, "--- a/a/", "--- a/", 1), "+++ b/b/", "+++ b/", 1)
			if string(got) != w {
				t.Errorf("diff differs from git diff --no-index\n--- got\n%s\n--- git\n%s", got, w)
			}
			// The patch applies in the tree and yields the new file.
			tree := filepath.Join(dir, "tree")
			if err := os.MkdirAll(tree, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(tree, "f.yaml"), []byte(c.old), 0o644); err != nil {
				t.Fatal(err)
			}
			ap := exec.Command("git", "apply", "--unsafe-paths", "-")
			ap.Dir = tree
			ap.Stdin = bytes.NewReader(got)
			if out, err := ap.CombinedOutput(); err != nil {
				t.Fatalf("git apply: %v: %s", err, out)
			}
			res, err := os.ReadFile(filepath.Join(tree, "f.yaml"))
			if err != nil && c.new != "" {
				t.Fatal(err)
			}
			if string(res) != c.new {
				t.Errorf("git apply gave %q, want %q", res, c.new)
			}
		})
	}
}

func TestDiffNoChange(t *testing.T) {
	if d := Diff([]FileChange{{Name: "a", Old: []byte("x\n"), New: []byte("x\n")}}); len(d) != 0 {
		t.Errorf("diff of equal files: %q", d)
	}
}

func TestQuotePath(t *testing.T) {
	for in, want := range map[string]string{
		"a/dir/f.yaml":    "a/dir/f.yaml",
		"a/with space":    "a/with space",
		"a/esc\x1b[31m":   `"a/esc\033[31m"`,
		"a/q\"b\\c":       `"a/q\"b\\c"`,
		"a/tab\there":     `"a/tab\there"`,
		"a/caf\xc3\xa9.y": `"a/caf\303\251.y"`,
	} {
		if got := quotePath(in); got != want {
			t.Errorf("quotePath(%q) = %s, want %s", in, got, want)
		}
	}
}

// TestMyersMinimal checks on random line lists that the changes turn a into z and are as
// few as a longest-common-subsequence table says.
func TestMyersMinimal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 500; n++ {
		gen := func() []string {
			l := make([]string, rng.IntN(12))
			for i := range l {
				l[i] = string(rune('a'+rng.IntN(4))) + "\n"
			}
			return l
		}
		a, z := gen(), gen()
		ch := diffLines(a, z)
		var out []string
		ai, cost := 0, 0
		for _, c := range ch {
			out = append(out, a[ai:c.a0]...)
			out = append(out, z[c.z0:c.z1]...)
			ai = c.a1
			cost += c.a1 - c.a0 + c.z1 - c.z0
		}
		out = append(out, a[ai:]...)
		if strings.Join(out, "") != strings.Join(z, "") {
			t.Fatalf("changes %v turn %q into %q, not %q", ch, a, out, z)
		}
		// Minimal cost: len(a) + len(z) - 2*LCS.
		lcs := make([][]int, len(a)+1)
		for i := range lcs {
			lcs[i] = make([]int, len(z)+1)
		}
		for i := len(a) - 1; i >= 0; i-- {
			for j := len(z) - 1; j >= 0; j-- {
				if a[i] == z[j] {
					lcs[i][j] = lcs[i+1][j+1] + 1
				} else {
					lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
				}
			}
		}
		if want := len(a) + len(z) - 2*lcs[0][0]; cost != want {
			t.Fatalf("changes %v between %q and %q cost %d, want %d", ch, a, z, cost, want)
		}
	}
}
