package cmd

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// cpuProfile is a CPU profile being written (--cpuprofile), stopped by
// run once the command returned.
type cpuProfile struct{ f *os.File }

// startCPUProfile starts profiling into path; nil when path is empty.
func startCPUProfile(path string) (*cpuProfile, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, asUsage(fmt.Errorf("--cpuprofile: %w", err))
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
	}
	return &cpuProfile{f: f}, nil
}

// stop ends the profile and closes its file.
func (p *cpuProfile) stop() error {
	if p == nil {
		return nil
	}
	pprof.StopCPUProfile()
	return p.f.Close()
}
