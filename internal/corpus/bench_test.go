package corpus_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kube-proxy-lint/kube-proxy-lint/checker/engine"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/load"
	"github.com/kube-proxy-lint/kube-proxy-lint/checker/report"
	"github.com/kube-proxy-lint/kube-proxy-lint/internal/corpus"
	"github.com/kube-proxy-lint/kube-proxy-lint/policy"
	"github.com/kube-proxy-lint/kube-proxy-lint/rules"
)

// The corpus benchmarks run on trees of the shared generator (see docs/performance.md):
//
//	KPL_BENCH_MAX    the largest tree, in files: 20000 by default; 100000 adds the
//	                 100,000-file tree (about 480 MB of files, minutes per run)
//	KPL_BENCH_CACHE  where generated trees are kept between runs (default: the user's
//	                 cache directory, kube-proxy-lint/bench-corpus)
//
// Without the shared generator (a clone without ../shared), they run on trees of this
// package's own generator instead, named corpus=internal so that results of the two never
// compare.

// benchSizes are the tree sizes up to KPL_BENCH_MAX.
func benchSizes(b *testing.B) []int {
	largest := 20000
	if s := os.Getenv("KPL_BENCH_MAX"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("KPL_BENCH_MAX=%q: want a number of files", s)
		}
		largest = n
	}
	var out []int
	for _, n := range []int{1000, 5000, 20000, 100000} {
		if n <= largest {
			out = append(out, n)
		}
	}
	return out
}

// repoRoot is the directory of go.mod above the package directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the package directory")
		}
		dir = parent
	}
}

var sharedGen = sync.OnceValues(func() (string, error) {
	root, err := repoRoot()
	if err != nil {
		return "", err
	}
	return corpus.SharedGenerator(root)
})

var noticeOnce sync.Once

// tree returns the tree of n files the corpus benchmarks use and the name of its generator.
func tree(b *testing.B, n int) (dir, gen string) {
	b.Helper()
	g, err := sharedGen()
	if err != nil {
		noticeOnce.Do(func() {
			b.Logf("corpus benchmarks use this package's generator (corpus=internal), not comparable with the shared corpus: %v", err)
		})
		dir := b.TempDir()
		if _, err := corpus.Generate(dir, n); err != nil {
			b.Fatal(err)
		}
		return dir, "internal"
	}
	cache := os.Getenv("KPL_BENCH_CACHE")
	if cache == "" {
		if cache, err = os.UserCacheDir(); err != nil {
			b.Fatalf("no cache directory for the benchmark trees (set KPL_BENCH_CACHE): %v", err)
		}
		cache = filepath.Join(cache, "kube-proxy-lint", "bench-corpus")
	}
	dir, err = corpus.Shared(cache, g, n, 1)
	if err != nil {
		b.Fatal(err)
	}
	return dir, "shared"
}

// BenchmarkCorpus is a default run in one process on trees of 1,000 to 20,000 files (see
// benchSizes): load, every rule enabled by default (Go and Rego), JSON report. It reports
// time and allocations per run and per file; -cpuprofile and -memprofile profile it.
func BenchmarkCorpus(b *testing.B) {
	all, err := engine.Select(policy.Merge(rules.All(), policy.Builtin()), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	f, err := report.New("json", report.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, n := range benchSizes(b) {
		dir, gen := tree(b, n)
		b.Run(fmt.Sprintf("corpus=%s/files=%d", gen, n), func(b *testing.B) {
			for b.Loop() {
				ws, err := load.Load(context.Background(), load.Options{Paths: []string{dir}, Root: dir})
				if err != nil {
					b.Fatal(err)
				}
				out, err := engine.Run(context.Background(), ws, all)
				if err != nil || out.InternalErrors > 0 {
					b.Fatalf("err %v, internal errors %d", err, out.InternalErrors)
				}
				if err := f.Format(io.Discard, &report.Result{Findings: out.Findings, Rules: all, Target: ws.Target}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/file")
		})
	}
}

// BenchmarkCorpusCLI runs the CLI binary, built once per benchmark run, as a new process per
// iteration: what a user waits for (start-up, loading, rules, report) and the peak memory
// the system gives it. startup is one kube-proxy ConfigMap; the trees are those of
// BenchmarkCorpus. The process gets the benchmark's GOMAXPROCS, so -cpu 1,2 compares one
// core with two. Metrics: wall time (ns/op), user+system CPU (cpu-ms/op), the largest peak
// resident set size of the iterations (peak-RSS-MiB, measured with GNU time: see timeCmd).
func BenchmarkCorpusCLI(b *testing.B) {
	root, err := repoRoot()
	if err != nil {
		b.Fatal(err)
	}
	bin := filepath.Join(b.TempDir(), "kube-proxy-lint")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./cmd/kube-proxy-lint")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build the CLI: %v\n%s", err, out)
	}
	one := filepath.Join(b.TempDir(), "kube-proxy.yaml")
	if err := os.WriteFile(one, []byte(startupFile), 0o644); err != nil {
		b.Fatal(err)
	}
	b.Run("startup", func(b *testing.B) { runCLI(b, bin, one, 1, false) })
	for _, n := range benchSizes(b) {
		dir, gen := tree(b, n)
		b.Run(fmt.Sprintf("corpus=%s/files=%d", gen, n), func(b *testing.B) { runCLI(b, bin, dir, n, true) })
	}
}

// startupFile is a one-file run: a kube-proxy ConfigMap in iptables mode.
const startupFile = `apiVersion: v1
kind: ConfigMap
metadata:
  name: kube-proxy
  namespace: kube-system
data:
  config.conf: |
    apiVersion: kubeproxy.config.k8s.io/v1alpha1
    kind: KubeProxyConfiguration
    mode: iptables
    clusterCIDR: 10.244.0.0/16
`

// timeCmd is GNU time, which measures a command's peak RSS correctly: the rusage of a
// process this one starts counts this process's own peak too (Linux starts children with
// vfork and records the shared address space's high-water mark at exec), while GNU time forks
// its small self. "" when there is none; the benchmarks then report no peak RSS.
var timeCmd = sync.OnceValue(func() string {
	const t = "/usr/bin/time"
	if err := exec.Command(t, "-f", "%M", "-o", os.DevNull, "true").Run(); err != nil {
		return ""
	}
	return t
})

// runCLI runs the CLI on path once per iteration. Under GNU time when wrap is set (its cost,
// a fork, is nothing beside a run over a tree), else plain, with one more run under GNU time
// for the peak RSS.
func runCLI(b *testing.B, bin, path string, files int, wrap bool) {
	var peak int64
	var cpu time.Duration
	procs := "GOMAXPROCS=" + strconv.Itoa(runtime.GOMAXPROCS(0))
	rssFile := filepath.Join(b.TempDir(), "rss")
	run := func(timed bool) {
		args := []string{bin, "--no-config", "--format", "json", "--output", os.DevNull, path}
		if timed {
			args = append([]string{timeCmd(), "-f", "%M", "-o", rssFile}, args...)
		}
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Env = append(os.Environ(), procs)
		out, err := cmd.CombinedOutput()
		// Exit code 1 means findings.
		if exit := (*exec.ExitError)(nil); err != nil && (!errors.As(err, &exit) || exit.ExitCode() != 1) {
			b.Fatalf("%s: %v\n%s", path, err, out)
		}
		cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		if timed {
			text, err := os.ReadFile(rssFile)
			if err != nil {
				b.Fatal(err)
			}
			// GNU time writes "Command exited with non-zero status 1" before the value.
			fields := strings.Fields(string(text))
			kib, err := strconv.ParseInt(fields[len(fields)-1], 10, 64)
			if err != nil {
				b.Fatalf("GNU time output %q: %v", text, err)
			}
			peak = max(peak, kib<<10)
		}
	}
	wrap = wrap && timeCmd() != ""
	for b.Loop() {
		run(wrap)
	}
	b.ReportMetric(cpu.Seconds()*1000/float64(b.N), "cpu-ms/op")
	if !wrap && timeCmd() != "" {
		run(true)
	}
	if peak > 0 {
		b.ReportMetric(float64(peak)/(1<<20), "peak-RSS-MiB")
	}
	if files > 1 {
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(files), "ns/file")
	}
}
