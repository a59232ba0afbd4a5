package cmd

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// profiling is what --cpuprofile, --exectrace, --memprofile and
// --mutexprofile write: the first two while the command runs, the others
// when it has returned; run stops it once the command returned.
type profiling struct {
	cpu, trace, mem, mutex *os.File
}

// profilePaths are the files of the profiling flags; an empty one is not
// written.
type profilePaths struct {
	cpu, trace, mem, mutex string
}

// startProfiling starts a CPU profile, an execution trace and the
// sampling of contended locks and creates the files of the profiles
// written at the end, each only when its path is not empty; nil when all
// are. Those files are created now, so that a path that cannot be written
// is a usage error before the command runs, not after.
func startProfiling(paths profilePaths) (*profiling, error) {
	p := &profiling{}
	steps := []struct {
		path, flag string
		start      func(io.Writer) error
		file       **os.File
	}{
		{paths.cpu, "--cpuprofile", pprof.StartCPUProfile, &p.cpu},
		{paths.trace, "--exectrace", trace.Start, &p.trace},
		{paths.mem, "--memprofile", func(io.Writer) error { return nil }, &p.mem},
		{paths.mutex, "--mutexprofile", startMutexProfile, &p.mutex},
	}
	for _, s := range steps {
		if s.path == "" {
			continue
		}
		f, err := startOne(s.flag, s.path, s.start)
		if err != nil {
			p.stop()
			return nil, err
		}
		*s.file = f
	}
	if p.cpu == nil && p.trace == nil && p.mem == nil && p.mutex == nil {
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

// stop ends the profile and the trace, writes the memory profile and closes
// their files.
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
	if p.mem != nil {
		errs = append(errs, writeAllocs(p.mem), wrapClose("--memprofile", p.mem))
	}
	if p.mutex != nil {
		errs = append(errs, writeMutex(p.mutex), wrapClose("--mutexprofile", p.mutex))
	}
	return errors.Join(errs...)
}

// startMutexProfile has the runtime record every contended lock (pprof's
// "mutex" profile: sync.Mutex, sync.RWMutex and the runtime's own locks,
// each with the time the goroutines waiting for it were delayed), from now
// on.
func startMutexProfile(io.Writer) error {
	runtime.SetMutexProfileFraction(1)
	return nil
}

// writeMutex writes the contended locks since startMutexProfile to f and
// stops recording them.
func writeMutex(f *os.File) error {
	defer runtime.SetMutexProfileFraction(0)
	if err := pprof.Lookup("mutex").WriteTo(f, 0); err != nil {
		return fmt.Errorf("--mutexprofile %s: %w", f.Name(), err)
	}
	return nil
}

// writeAllocs writes the allocations of the whole run (pprof's "allocs"
// profile: every sampled allocation since the start, its space and objects,
// and what of it is still in use) to f. The runtime publishes its samples
// at the end of a collection, and serve may run with the collector off, so
// it collects once first, as `go test -memprofile` does.
func writeAllocs(f *os.File) error {
	runtime.GC()
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		return fmt.Errorf("--memprofile %s: %w", f.Name(), err)
	}
	return nil
}

func wrapClose(flag string, f *os.File) error {
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	return nil
}
