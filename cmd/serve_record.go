package cmd

import (
	"fmt"
	"os"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/workload"
)

// runRecorded runs run on src, and with path (--write-requests) set, on a
// source that writes every request run pulls to the file at path: after
// an interrupt too, so the file holds the requests that were replayed.
func runRecorded(path string, src workload.Source, run func(workload.Source) (engine.Report, error)) (engine.Report, error) {
	if path == "" {
		return run(src)
	}
	f, err := os.Create(path)
	if err != nil {
		return engine.Report{}, fmt.Errorf("--write-requests: %w", err)
	}
	w := workload.NewRequestWriter(f)
	rep, err := run(workload.Recorded(src, w))
	if ferr := w.Flush(); ferr != nil && err == nil {
		err = fmt.Errorf("--write-requests %s: %w", path, ferr)
	}
	if cerr := f.Close(); cerr != nil && err == nil {
		err = fmt.Errorf("--write-requests: %w", cerr)
	}
	return rep, err
}
