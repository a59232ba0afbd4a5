package cmd

import (
	"bufio"
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/spf13/cobra"
)

// poolLsOptions are pool ls's flags.
type poolLsOptions struct {
	Pool   poolFlag
	Prefix string
}

func newPoolLsCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolLsOptions{}
	c := &cobra.Command{
		Use:     "ls --pool URL [--prefix P]",
		Short:   "List a pool's keys, one per line",
		Long:    "List a pool's readable keys, one per line, in no particular order." + poolExitCodes,
		Example: "$ kvctl pool ls --pool mooncake://10.0.0.5:9003 --prefix trtllm/llama/ > keys.txt",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return runPoolLs(c.Context(), ios, g, opts)
		},
	}
	opts.Pool.register(c.Flags())
	c.Flags().StringVar(&opts.Prefix, "prefix", "", "list only keys that start with this prefix")
	return c
}

// runPoolLs writes the keys as the pool lists them, one per line.
func runPoolLs(ctx context.Context, ios *IOStreams, _ *globalOptions, o *poolLsOptions) error {
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		l, ok := st.(pool.Lister)
		if !ok {
			return fmt.Errorf("pool %s cannot list its keys", o.Pool.URL)
		}
		w := bufio.NewWriterSize(ios.Out, 1<<16)
		err := l.List(ctx, o.Prefix, func(k string) error {
			_, err := w.WriteString(k + "\n")
			return err
		})
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		return err
	})
}
