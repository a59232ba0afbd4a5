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
	Keys  []string // the arguments
}

func newPoolRmCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolRmOptions{}
	c := &cobra.Command{
		Use:     "rm --pool URL KEY... [--force]",
		Short:   "Remove keys; leased keys only with --force",
		Long:    "Remove keys. A key under an unexpired lease is refused (OBJECT_HAS_LEASE) unless --force. Exits 1 when any key could not be removed." + poolExitCodes,
		Example: "$ kvctl pool rm --pool mem://?snapshot=pool.snap k1 k2 --force",
		RunE: func(c *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("give at least one key")
			}
			opts.Keys = args
			return runPoolRm(c.Context(), ios, g, opts)
		},
	}
	opts.Pool.register(c.Flags())
	c.Flags().BoolVar(&opts.Force, "force", false, "remove keys even under a lease")
	return c
}

// runPoolRm removes the keys and names on stderr each one that stayed.
func runPoolRm(ctx context.Context, ios *IOStreams, _ *globalOptions, o *poolRmOptions) error {
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		res := make([]pool.Code, len(o.Keys))
		if err := st.Remove(ctx, o.Keys, o.Force, res); err != nil {
			return err
		}
		return reportRemoved(ios, o.Keys, res)
	})
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
