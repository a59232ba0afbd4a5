package cmd

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mooncake"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// poolFlag is the --pool flag shared by the pool subcommands.
type poolFlag struct{ URL string }

func (p *poolFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&p.URL, "pool", "", "pool URL: mem://?capacity=64GiB&snapshot=PATH, redis://host:6379/0, valkey://..., mooncake://host:9003, keylist:PATH (default $KVCTL_POOL)")
}

// open opens the pool the flag (or $KVCTL_POOL) names.
func (p *poolFlag) open(ctx context.Context, ios *IOStreams) (pool.Store, error) {
	u := p.URL
	if u == "" {
		u = ios.Getenv("KVCTL_POOL")
	}
	if u == "" {
		return nil, usagef("--pool is required (or set KVCTL_POOL)")
	}
	return pool.Open(ctx, u)
}

const poolExitCodes = `

Exit codes: 2 for a bad pool URL or arguments, 4 when the pool is unreachable
(the message names the address), 1 when a read-only pool is asked to write.`

func newPoolCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "pool",
		Short: "Operate a pool: stat, ls, exist, get, put, rm",
		Long: `Operate a KV-cache pool directly. The pool is named by a URL (--pool or
$KVCTL_POOL): mem:// (embedded; add snapshot=PATH to keep it between runs),
redis:// or valkey:// (the shared pool), mooncake://host:9003 (a live Mooncake
master, read-only) or keylist:PATH (a captured key listing, read-only).

See docs/pools.md for URLs and semantics.` + poolExitCodes,
	}
	c.AddCommand(
		newPoolStatCmd(ios, g), newPoolLsCmd(ios, g), newPoolExistCmd(ios, g),
		newPoolGetCmd(ios, g), newPoolPutCmd(ios, g), newPoolRmCmd(ios, g),
	)
	return c
}

// withPool opens the pool, runs fn and closes the pool, keeping fn's error
// first.
func withPool(ctx context.Context, ios *IOStreams, p *poolFlag, fn func(pool.Store) error) (err error) {
	st, err := p.open(ctx, ios)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := st.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("closing pool: %w", cerr)
		}
	}()
	return fn(st)
}

func newPoolStatCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	p := &poolFlag{}
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
			return withPool(c.Context(), ios, p, func(st pool.Store) error {
				s, err := st.Stat(c.Context())
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
		},
	}
	p.register(c.Flags())
	return c
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
	tp.addRow("used", humanBytes(s.UsedBytes))
	tp.addRow("capacity", humanBytes(s.CapacityBytes))
	tp.addRow("mean bytes per object", humanBytes(meanObjectBytes(s)))
	tp.addRow("master metadata (estimate)", fmt.Sprintf("~%s (%s per object)",
		humanBytes(mooncake.MetadataBytesEstimate(s.Keys)), humanBytes(mooncake.MetadataBytesPerObject)))
	tp.addRow("soft-pinned keys", s.SoftPinnedKeys)
	tp.addRow("evicted keys", s.EvictedKeys)
	tp.addRow("evicted bytes", humanBytes(s.EvictedBytes))
	tp.addRow("eviction attempts", s.EvictionAttempts)
	if s.PutsExistingApproximate {
		tp.addRow("puts of existing keys", fmt.Sprintf("~%d (approximate: failed PutStarts less allocation failures)", s.PutsExisting))
	} else {
		tp.addRow("puts of existing keys", s.PutsExisting)
	}
	tp.addRow("allocation failures", s.AllocationFailure)
	for _, seg := range s.Segments {
		tp.addRow("segment "+seg.Name, fmt.Sprintf("%s of %s", humanBytes(seg.UsedBytes), humanBytes(seg.CapacityBytes)))
	}
	return tp.render()
}
