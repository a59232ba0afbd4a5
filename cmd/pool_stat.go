package cmd

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mooncake"
	"github.com/kvctl/kvctl/size"
	"github.com/spf13/cobra"
)

// poolStatOptions are pool stat's flags.
type poolStatOptions struct {
	Pool poolFlag
}

func newPoolStatCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolStatOptions{}
	c := &cobra.Command{
		Use:   "stat --pool URL",
		Short: "Show a pool's capacity, usage, keys and eviction counters",
		Long: "Show a pool's capacity, usage, objects (keys) and their mean size, a Mooncake master's metadata memory\n" +
			"projected from the object count (an estimate), soft-pinned keys, evictions and segments. What the pool\n" +
			"warns of (a master that lost its metadata) goes to stderr." + poolExitCodes,
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
		for _, w := range s.Warnings {
			fmt.Fprintf(ios.ErrOut, "warning: %s\n", w)
		}
		if g.Output == "json" {
			return writeJSON(ios.Out, poolStatJSON{s, meanObjectBytes(s), mooncake.MetadataBytesEstimate(s.Keys)})
		}
		return printPoolStat(ios, s)
	})
}

// poolStatJSON is pool stat -o json: the pool's Stat and what follows from
// it.
type poolStatJSON struct {
	pool.Stat
	MeanObjectBytes             int64 `json:"mean_object_bytes"`
	MasterMetadataBytesEstimate int64 `json:"master_metadata_bytes_estimate"`
}

// meanObjectBytes is the mean bytes per object (0 for no objects).
func meanObjectBytes(s pool.Stat) int64 {
	if s.Keys <= 0 {
		return 0
	}
	return s.UsedBytes / s.Keys
}

func printPoolStat(ios *IOStreams, s pool.Stat) error {
	tp := newTablePrinter(ios, "field", "value")
	tp.addRow("backend", s.Backend)
	tp.addRow("address", s.Address)
	tp.addRow("read only", s.ReadOnly)
	tp.addRow("objects (keys)", s.Keys)
	tp.addRow("used", size.Human(s.UsedBytes))
	tp.addRow("capacity", capacityText(s.Backend, s.CapacityBytes))
	tp.addRow("mean bytes per object", size.Human(meanObjectBytes(s)))
	tp.addRow("master metadata (estimate)", fmt.Sprintf("~%s (%s per object)",
		size.Human(mooncake.MetadataBytesEstimate(s.Keys)), size.Human(mooncake.MetadataBytesPerObject)))
	tp.addRow("soft-pinned keys", s.SoftPinnedKeys)
	tp.addRow("evicted keys", s.EvictedKeys)
	tp.addRow("evicted bytes", size.Human(s.EvictedBytes))
	tp.addRow("eviction attempts", s.EvictionAttempts)
	if s.PutsExistingApproximate {
		tp.addRow("puts of existing keys", fmt.Sprintf("~%d (approximate: failed PutStarts less allocation failures)", s.PutsExisting))
	} else {
		tp.addRow("puts of existing keys", s.PutsExisting)
	}
	tp.addRow("allocation failures", s.AllocationFailure)
	for _, seg := range s.Segments {
		tp.addRow("segment "+seg.Name, fmt.Sprintf("%s of %s", size.Human(seg.UsedBytes), capacityText(s.Backend, seg.CapacityBytes)))
	}
	if t := s.Transport; t != nil {
		tp.addRow("transport", transportText(*t))
		tp.addRow("GPU memory registrable", t.DeviceMemory)
	}
	return tp.render()
}

// transportText is a transport's protocol, devices and local hostname.
func transportText(t pool.Transport) string {
	s := t.Protocol
	if t.Devices != "" {
		s += " on " + t.Devices
	}
	return s + ", local hostname " + t.LocalHostname
}
