package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
)

// startProfiles starts the hidden --cpu-profile and writes --mem-profile when the returned
// stop runs, as golangci-lint's --cpu-profile-path and --mem-profile-path do: the files are
// for developers measuring the tool (see docs/performance.md), written only when asked.
//
// Their paths get the check of every output (checkOutputPath): no link inside the linted
// trees (roots), no missing directory.
func startProfiles(cpuPath, memPath string, roots []string) (stop func(), err error) {
	for _, f := range []struct {
		flag string
		path *string
	}{{"--cpu-profile", &cpuPath}, {"--mem-profile", &memPath}} {
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
	return func() {
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
