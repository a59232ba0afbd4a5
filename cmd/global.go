package cmd

// The flags every command shares (--output, --color, --quiet, profiling)
// and the checks on them.

import (
	"slices"
	"strings"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	Output string
	Color  string
	Quiet  bool
	// CPUProfile is --cpuprofile's file and ExecTrace --exectrace's; profile is
	// what is being written to them.
	CPUProfile string
	ExecTrace  string
	profile    *profiling
}

// checkOutput refuses an --output value the command does not offer.
func (g *globalOptions) checkOutput(allowed ...string) error {
	if slices.Contains(allowed, g.Output) {
		return nil
	}
	return usagef("--output %q is not offered here (want %s)", g.Output, strings.Join(allowed, ", "))
}

// isJSON reports whether the output is machine-readable (json or jsonl).
func (g *globalOptions) isJSON() bool { return g.Output == "json" || g.Output == "jsonl" }
