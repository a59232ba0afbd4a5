package cmd

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/spf13/cobra"
)

// poolRmOptions are pool rm's flags and arguments.
type poolRmOptions struct {
	Pool  poolFlag
	Force bool
	All   bool
	Keys  []string // the arguments
}

func newPoolRmCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolRmOptions{}
	c := &cobra.Command{
		Use:   "rm --pool URL (KEY... | --all) [--force]",
		Short: "Remove keys; leased keys only with --force",
		Long: "Remove keys. A key under an unexpired lease is refused (OBJECT_HAS_LEASE) unless --force, a key still being written always (REPLICA_IS_NOT_READY). Exits 1 when any key could not be removed.\n\n" +
			"--all removes every object whose lease has expired (every object with --force) but those still being written, as the Mooncake master's RemoveAll, and prints how many it removed; pools without it (all but mem://) refuse it." + poolExitCodes,
		Example: "$ kvctl pool rm --pool mem://?snapshot=pool.snap k1 k2 --force\n$ kvctl pool rm --pool mem://?snapshot=pool.snap --all",
		RunE: func(c *cobra.Command, args []string) error {
			switch {
			case opts.All && len(args) > 0:
				return usagef("give keys or --all, not both")
			case !opts.All && len(args) == 0:
				return usagef("give at least one key")
			}
			opts.Keys = args
			return runPoolRm(c.Context(), ios, g, opts)
		},
	}
	opts.Pool.register(c.Flags())
	c.Flags().BoolVar(&opts.Force, "force", false, "remove keys even under a lease")
	c.Flags().BoolVar(&opts.All, "all", false, "remove every object (Mooncake's RemoveAll)")
	return c
}

// runPoolRm removes the keys and names on stderr each one that stayed, or
// with --all runs the pool's RemoveAll.
func runPoolRm(ctx context.Context, ios *IOStreams, _ *globalOptions, o *poolRmOptions) error {
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		if o.All {
			return removeAll(ctx, ios, o.Pool.URL, st, o.Force)
		}
		res := make([]pool.Code, len(o.Keys))
		if err := st.Remove(ctx, o.Keys, o.Force, res); err != nil {
			return err
		}
		return reportRemoved(ios, o.Keys, res)
	})
}

// removeAll runs the pool's RemoveAll and prints how many objects went.
func removeAll(ctx context.Context, ios *IOStreams, url string, st pool.Store, force bool) error {
	ra, ok := st.(pool.AllRemover)
	if !ok {
		return fmt.Errorf("pool %s cannot remove all keys (RemoveAll)", url)
	}
	n, err := ra.RemoveAll(ctx, force)
	if err != nil {
		return err
	}
	fmt.Fprintf(ios.Out, "%d removed\n", n)
	return nil
}

func reportRemoved(ios *IOStreams, keyList []string, res []pool.Code) error {
	failed := 0
	for i, code := range res {
		if code != pool.OK {
			failed++
			fmt.Fprintf(ios.ErrOut, "%s: %s (%d)\n", keyList[i], code, int(code))
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d keys not removed", failed, len(keyList))
	}
	return nil
}
