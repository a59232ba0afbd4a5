package cmd

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/spf13/cobra"
)

// poolStatOptions are pool stat's flags.
type poolStatOptions struct {
	Pool poolFlag
}

func newPoolStatCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolStatOptions{}
	c := &cobra.Command{
		Use:     "stat --pool URL",
		Short:   "Show a pool's capacity, usage, keys and eviction counters",
		Long:    "Show a pool's capacity, usage, key count, soft-pinned keys, evictions and segments." + poolExitCodes,
		Example: "$ kvctl pool stat --pool redis://127.0.0.1:6379/0\n$ kvctl pool stat --pool mooncake://10.0.0.5:9003 -o json",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			return runPoolStat(c.Context(), ios, g, opts)
		},
	}
	opts.Pool.register(c.Flags())
	return c
}

func runPoolStat(ctx context.Context, ios *IOStreams, g *globalOptions, o *poolStatOptions) error {
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		s, err := st.Stat(ctx)
		if err != nil {
			return err
		}
		if g.Output == "json" {
			return writeJSON(ios.Out, s)
		}
		return printPoolStat(ios, s)
	})
}

func printPoolStat(ios *IOStreams, s pool.Stat) error {
	tp := newTablePrinter(ios, "field", "value")
	tp.addRow("backend", s.Backend)
	tp.addRow("address", s.Address)
	tp.addRow("read only", s.ReadOnly)
	tp.addRow("keys", s.Keys)
	tp.addRow("used", humanBytes(s.UsedBytes))
	tp.addRow("capacity", humanBytes(s.CapacityBytes))
	tp.addRow("soft-pinned keys", s.SoftPinnedKeys)
	tp.addRow("evicted keys", s.EvictedKeys)
	tp.addRow("evicted bytes", humanBytes(s.EvictedBytes))
	tp.addRow("eviction attempts", s.EvictionAttempts)
	tp.addRow("puts of existing keys", s.PutsExisting)
	tp.addRow("allocation failures", s.AllocationFailure)
	for _, seg := range s.Segments {
		tp.addRow("segment "+seg.Name, fmt.Sprintf("%s of %s", humanBytes(seg.UsedBytes), humanBytes(seg.CapacityBytes)))
	}
	return tp.render()
}
