package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"runtime/trace"
)

// profiling is what --cpuprofile and --exectrace write while the command runs;
// run stops it once the command returned.
type profiling struct {
	cpu, trace *os.File
}

// startProfiling starts a CPU profile into cpuPath and an execution trace
// into tracePath, each only when its path is not empty; nil when both are.
func startProfiling(cpuPath, tracePath string) (*profiling, error) {
	p := &profiling{}
	if cpuPath != "" {
		f, err := startOne("--cpuprofile", cpuPath, pprof.StartCPUProfile)
		if err != nil {
			return nil, err
		}
		p.cpu = f
	}
	if tracePath != "" {
		f, err := startOne("--exectrace", tracePath, trace.Start)
		if err != nil {
			p.stop()
			return nil, err
		}
		p.trace = f
	}
	if p.cpu == nil && p.trace == nil {
		return nil, nil
	}
	return p, nil
}

// startOne creates path and starts writing to it with start; flag names
// the option in errors.
func startOne(flag, path string, start func(w io.Writer) error) (*os.File, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, asUsage(fmt.Errorf("%s: %w", flag, err))
	}
	if err := start(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s %s: %w", flag, path, err)
	}
	return f, nil
}

// stop ends the profile and the trace and closes their files.
func (p *profiling) stop() error {
	if p == nil {
		return nil
	}
	var errs []error
	if p.cpu != nil {
		pprof.StopCPUProfile()
		errs = append(errs, wrapClose("--cpuprofile", p.cpu))
	}
	if p.trace != nil {
		trace.Stop()
		errs = append(errs, wrapClose("--exectrace", p.trace))
	}
	return errors.Join(errs...)
}

func wrapClose(flag string, f *os.File) error {
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}
