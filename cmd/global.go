package cmd

// The flags every command shares (--output, --color, --quiet, profiling)
// and the checks on them.

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"
)

// globalOptions are the flags every command shares.
type globalOptions struct {
	Output string
	Color  string
	Quiet  bool
	// CPUProfile is --cpuprofile's file, ExecTrace --exectrace's,
	// MemProfile --memprofile's and MutexProfile --mutexprofile's; profile
	// is what is being written to them.
	CPUProfile   string
	ExecTrace    string
	MemProfile   string
	MutexProfile string
	profile      *profiling
}

// checkOutput refuses an --output value the command does not offer.
func (g *globalOptions) checkOutput(allowed ...string) error {
	if slices.Contains(allowed, g.Output) {
		return nil
	}
	return usagef("--output %q is not offered here (want %s)", g.Output, strings.Join(allowed, ", "))
}

// register binds the shared flags to g.
func (g *globalOptions) register(pf *pflag.FlagSet) {
	pf.StringVarP(&g.Output, "output", "o", "table", "output format: table or json (and keys or jsonl where a command offers them)")
	pf.StringVar(&g.Color, "color", "auto", "colour: auto (terminal, NO_COLOR unset, TERM not dumb), always or never")
	pf.BoolVarP(&g.Quiet, "quiet", "q", false, "print no progress or notes on stderr")
	pf.StringVar(&g.CPUProfile, "cpuprofile", "", "write a CPU profile of the command to this file (go tool pprof)")
	pf.StringVar(&g.ExecTrace, "exectrace", "", "write an execution trace of the command to this file (go tool trace)")
	pf.StringVar(&g.MemProfile, "memprofile", "", "write a profile of the command's memory allocations to this file when it ends (go tool pprof -sample_index=alloc_space)")
	pf.StringVar(&g.MutexProfile, "mutexprofile", "", "write a profile of the command's contended locks, and how long waiters were delayed, to this file when it ends (go tool pprof)")
}

// The values of --color and --output, which validate checks and the shell
// completes (each command's checkOutput offers a part of outputFormats).
var (
	colorModes    = []string{"auto", "always", "never"}
	outputFormats = []string{"table", "json", "jsonl", "keys"}
)

// validate checks --color and --output and sets the streams' colour mode.
func (g *globalOptions) validate(ios *IOStreams) error {
	if !slices.Contains(colorModes, g.Color) {
		return usagef("--color %q: want auto, always or never", g.Color)
	}
	ios.ColorMode = g.Color
	if !slices.Contains(outputFormats, g.Output) {
		return usagef("--output %q: want one of %s", g.Output, strings.Join(outputFormats, ", "))
	}
	return nil
}
