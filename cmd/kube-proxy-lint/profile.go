package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"sync"
	"sync/atomic"
	"time"
)

// startProfiles starts the hidden --cpu-profile and writes --mem-profile when the returned
// stop runs, as golangci-lint's --cpu-profile-path and --mem-profile-path do: the files are
// for developers measuring the tool (see docs/performance.md), written only when asked.
//
// Their paths get the check of every output (checkOutputPath): no link inside the linted
// trees (roots), no missing directory.
func startProfiles(cpuPath, memPath, tracePath string, roots []string) (stop func(), err error) {
	for _, f := range []struct {
		flag string
		path *string
	}{{"--cpu-profile", &cpuPath}, {"--mem-profile", &memPath}, {"--mem-trace", &tracePath}} {
		if *f.path == "" {
			continue
		}
		dir, err := checkOutputPath(*f.path, roots)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", f.flag, *f.path, err)
		}
		*f.path = filepath.Join(dir, filepath.Base(*f.path))
	}
	var cpu *os.File
	if cpuPath != "" {
		cpu, err = os.Create(cpuPath)
		if err != nil {
			return nil, fmt.Errorf("--cpu-profile: %w", err)
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			_ = cpu.Close()
			return nil, fmt.Errorf("--cpu-profile: %w", err)
		}
	}
	var trace *memTracer
	if tracePath != "" {
		out, err := os.Create(tracePath)
		if err != nil {
			if cpu != nil {
				pprof.StopCPUProfile()
				_ = cpu.Close()
			}
			return nil, fmt.Errorf("--mem-trace: %w", err)
		}
		trace = startMemTrace(out)
	}
	return func() {
		trace.stop()
		if cpu != nil {
			pprof.StopCPUProfile()
			_ = cpu.Close()
		}
		if memPath != "" {
			f, err := os.Create(memPath)
			if err != nil {
				return
			}
			runtime.GC()
			_ = pprof.Lookup("allocs").WriteTo(f, 0)
			_ = f.Close()
		}
	}, nil
}

// The hidden --mem-trace writes where a run's memory goes over time: the runtime's memory
// classes sampled every memTraceEvery, each row with the run's phase (markPhase), and the
// peak. A heap profile shows what is live at one moment; the peak RSS of a Go program is
// set by what the heap holds besides (garbage up to the collector's goal, free slots in
// spans that live objects keep) at a moment nobody chose, which is what this shows
// (docs/performance.md, "Profiles").

// memTraceEvery is the sampling interval of --mem-trace.
const memTraceEvery = 10 * time.Millisecond

// memTraceMetrics are the columns of --mem-trace after the time and the phase; mapped is
// total less what was released to the system.
var memTraceMetrics = []struct{ column, name string }{
	{"mapped", "/memory/classes/total:bytes"},
	{"released", "/memory/classes/heap/released:bytes"},
	{"objects", "/memory/classes/heap/objects:bytes"},
	{"unused", "/memory/classes/heap/unused:bytes"},
	{"free", "/memory/classes/heap/free:bytes"},
	{"goal", "/gc/heap/goal:bytes"},
	{"live", "/gc/heap/live:bytes"},
}

type memTracer struct {
	out   *os.File
	start time.Time
	phase atomic.Pointer[string]
	done  chan struct{}
	wg    sync.WaitGroup
	// Owned by the goroutine that samples (the starting one takes the first sample, before
	// the run goes on, so that the trace always begins in the load phase).
	w         *bufio.Writer
	samples   []metrics.Sample
	peak      uint64
	peakAt    time.Duration
	peakPhase string
}

// curTrace is the run's tracer, for markPhase.
var curTrace atomic.Pointer[memTracer]

// markPhase names what the run does from now on in --mem-trace's rows.
func markPhase(name string) {
	if t := curTrace.Load(); t != nil {
		t.phase.Store(&name)
	}
}

func startMemTrace(out *os.File) *memTracer {
	t := &memTracer{out: out, start: time.Now(), done: make(chan struct{}), w: bufio.NewWriter(out)}
	load := "load"
	t.phase.Store(&load)
	t.samples = make([]metrics.Sample, len(memTraceMetrics))
	for i, m := range memTraceMetrics {
		t.samples[i].Name = m.name
	}
	fmt.Fprint(t.w, "seconds\tphase")
	for _, m := range memTraceMetrics[2:] {
		fmt.Fprintf(t.w, "\t%s_mib", m.column)
	}
	fmt.Fprint(t.w, "\tmapped_mib\n")
	t.sample()
	curTrace.Store(t)
	t.wg.Add(1)
	go t.run()
	return t
}

// sample writes one row (the time, the phase, the memory classes) and keeps the peak.
func (t *memTracer) sample() {
	metrics.Read(t.samples)
	at, phase := time.Since(t.start), *t.phase.Load()
	v := make([]uint64, len(t.samples))
	for i := range t.samples {
		if t.samples[i].Value.Kind() == metrics.KindUint64 {
			v[i] = t.samples[i].Value.Uint64()
		}
	}
	mapped := v[0] - v[1]
	if mapped > t.peak {
		t.peak, t.peakAt, t.peakPhase = mapped, at, phase
	}
	fmt.Fprintf(t.w, "%.3f\t%s", at.Seconds(), phase)
	for _, x := range v[2:] {
		fmt.Fprintf(t.w, "\t%.1f", float64(x)/(1<<20))
	}
	fmt.Fprintf(t.w, "\t%.1f\n", float64(mapped)/(1<<20))
}

func (t *memTracer) run() {
	defer t.wg.Done()
	tick := time.NewTicker(memTraceEvery)
	defer tick.Stop()
	for {
		select {
		case <-t.done:
			t.sample()
			fmt.Fprintf(t.w, "# peak: %.1f MiB mapped at %.3f s (%s)\n", float64(t.peak)/(1<<20), t.peakAt.Seconds(), t.peakPhase)
			_ = t.w.Flush()
			return
		case <-tick.C:
			t.sample()
		}
	}
}

// stop takes a last sample, writes the peak and closes the file (nothing for a nil tracer).
func (t *memTracer) stop() {
	if t == nil {
		return
	}
	curTrace.CompareAndSwap(t, nil)
	close(t.done)
	t.wg.Wait()
	_ = t.out.Close()
}
