// Package cmd holds kvctl's cobra commands and the glue from flags to the
// packages that do the work. Each command lives in the file named for it
// (keys.go, holes.go; pool's subcommands in pool_stat.go, pool_ls.go, ...),
// with its helpers beside it in COMMAND_TOPIC.go files (keys_result.go,
// serve_http.go). A command with flags of its own binds them to an options
// struct (keysOptions, poolGetOptions), and its RunE checks them and calls a
// run function (runKeys, runPoolGet). The flags every command shares are
// globalOptions (global.go); the printers are in output.go, the IO streams
// in iostreams.go, the mapping from errors to exit codes in exitcode.go and
// what Ctrl-C does (stdin reads it ends, the interrupted message) in
// interrupt.go, the shell completion of flag values in completion.go, and
// the progress bar of long runs, through which stderr is written while it
// is on screen, in progress.go. Flags several commands share are registered
// in one place each: the key flags in keyflags.go (--attention-dp's value in
// attentiondp.go), --pool and $KVCTL_POOL in pool.go; old spellings and
// their warnings in deprecated.go (docs/flag-names.md lists them).
// Nothing below cmd prints.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// Execute runs kvctl with the process's arguments and streams and returns
// the exit code. Ctrl-C (SIGINT) and SIGTERM cancel the command's context.
func Execute() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return run(ctx, NewSystemIOStreams(), os.Args[1:])
}

// run executes kvctl with args over ios and returns the exit code.
// A cancelled ctx ends it with exit 130, also while it reads stdin and
// also when the command returned no error (serve --addr after its graceful
// shutdown): an interrupted run never exits 0.
func run(ctx context.Context, ios *IOStreams, args []string) int {
	in := *ios
	in.In = interruptible(ctx, ios.In)
	ios = &in
	g := &globalOptions{}
	root := newRootCmd(ios, g)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if perr := g.profile.stop(); err == nil && perr != nil {
		err = perr
	}
	if ctx.Err() != nil && !errors.Is(err, context.Canceled) {
		err = context.Canceled
	}
	if err == nil {
		return ExitOK
	}
	code := exitCode(err)
	if code == ExitInterrupted {
		fmt.Fprintf(ios.ErrOut, "kvctl: %s\n", interruptedMessage(err))
		return code
	}
	fmt.Fprintf(ios.ErrOut, "kvctl: %v\n", err)
	if code == ExitUsage {
		fmt.Fprintf(ios.ErrOut, "Run '%s --help' for usage.\n", commandPath(root, args))
	}
	return code
}

// commandPath names the subcommand args select, for the usage hint.
func commandPath(root *cobra.Command, args []string) string {
	c, _, err := root.Find(args)
	if err != nil || c == nil {
		return root.Name()
	}
	return c.CommandPath()
}

// NewRootCmd builds the kvctl command tree over ios.
func NewRootCmd(ios *IOStreams) *cobra.Command { return newRootCmd(ios, &globalOptions{}) }

func newRootCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	root := &cobra.Command{
		Use:   "kvctl",
		Short: "Operate and diagnose KV-cache pools for LLM serving",
		Long: `kvctl computes the pool keys TensorRT-LLM's Mooncake-store connector writes,
maps prefix holes in a pool, benchmarks GPU<->pool transfers and runs the whole
connector + scheduler loop embedded for end-to-end checks of a pool deployment.

Results go to stdout; progress, warnings and logs to stderr.

Exit codes: 0 ok, 1 failure, 2 usage error, 3 verification failed,
4 pool unreachable or refused, 5 GPU/CUDA unavailable, 130 interrupted.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(c *cobra.Command, _ []string) error {
			if err := g.validate(ios); err != nil {
				return err
			}
			warnDeprecated(c, ios, g)
			var err error
			g.profile, err = startProfiling(profilePaths{cpu: g.CPUProfile, trace: g.ExecTrace, mem: g.MemProfile, mutex: g.MutexProfile})
			return err
		},
	}
	root.SetIn(ios.In)
	root.SetOut(ios.Out)
	root.SetErr(ios.ErrOut)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return asUsage(err) })
	g.register(root.PersistentFlags())
	setVersionFlag(root)
	for _, c := range subcommands(ios, g) {
		root.AddCommand(c)
	}
	guardGroups(root)
	registerFlagValues(root)
	return root
}

// guardGroups makes c and every command group below it refuse an argument
// that names none of its subcommands with a usage error and a did-you-mean;
// a group run bare prints its help.
func guardGroups(c *cobra.Command) {
	if !c.HasSubCommands() {
		return
	}
	if c.Args == nil {
		c.Args = unknownSubcommand
	}
	if c.RunE == nil && c.Run == nil {
		c.RunE = func(c *cobra.Command, _ []string) error { return c.Help() }
	}
	if c.SuggestionsMinimumDistance <= 0 {
		c.SuggestionsMinimumDistance = 2
	}
	for _, s := range c.Commands() {
		guardGroups(s)
	}
}

// unknownSubcommand refuses arguments to a command group: the first one
// names none of its subcommands (cobra would have run it).
func unknownSubcommand(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	msg := fmt.Sprintf("unknown command %q for %q", args[0], c.CommandPath())
	if s := c.SuggestionsFor(args[0]); len(s) > 0 {
		msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t") + "\n"
	}
	return usagef("%s", msg)
}

// subcommands lists kvctl's commands.
func subcommands(ios *IOStreams, g *globalOptions) []*cobra.Command {
	return []*cobra.Command{
		newVersionCmd(ios, g),
		newKeysCmd(ios, g),
		newPoolCmd(ios, g),
		newHolesCmd(ios, g),
		newStatsCmd(ios, g),
		newBenchCmd(ios, g),
		newDevicesCmd(ios, g),
		newServeCmd(ios, g),
		newReportCmd(ios, g),
	}
}

// exactArgs is cobra.ExactArgs with a usage error.
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		switch {
		case len(args) == n:
		case len(args) == 0:
			return usagef("%s takes %d argument(s), got none", c.CommandPath(), n)
		default:
			return usagef("%s takes %d argument(s), got %d: %q", c.CommandPath(), n, len(args), args)
		}
		return nil
	}
}

// noArgs refuses positional arguments with a usage error.
func noArgs(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		return usagef("%s takes no arguments, got %q", c.CommandPath(), args)
	}
	return nil
}
