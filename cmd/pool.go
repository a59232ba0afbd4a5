package cmd

import (
	"context"
	"fmt"

	"github.com/kvctl/kvctl/pool"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// poolFlag is the --pool flag every pool subcommand (and holes) shares; each
// command's options struct holds one as its Pool field.
type poolFlag struct{ URL string }

// register binds --pool to p.
func (p *poolFlag) register(fs *pflag.FlagSet) {
	fs.StringVar(&p.URL, "pool", "", "pool URL: mem://?capacity=64GiB&snapshot=PATH, redis://host:6379/0, valkey://..., mooncake://host:9003, keylist:PATH (default $KVCTL_POOL)")
}

// resolved is the pool URL the flag names, else $KVCTL_POOL.
func (p *poolFlag) resolved(ios *IOStreams) string {
	if p.URL != "" {
		return p.URL
	}
	return ios.Getenv("KVCTL_POOL")
}

// open opens the pool the flag (or $KVCTL_POOL) names.
func (p *poolFlag) open(ctx context.Context, ios *IOStreams) (pool.Store, error) {
	u := p.resolved(ios)
	if u == "" {
		return nil, usagef("--pool is required (or set KVCTL_POOL)")
	}
	return pool.Open(ctx, u)
}

// poolExitCodes ends every pool command's Long help.
const poolExitCodes = `

Exit codes: 2 for a bad pool URL or arguments, 4 when the pool is unreachable
(the message names the address), 1 when a read-only pool is asked to write.`

// newPoolCmd builds the pool group; each subcommand is in its own
// pool_NAME.go (pool_stat.go, pool_ls.go, ...), with its options struct.
func newPoolCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	c := &cobra.Command{
		Use:   "pool",
		Short: "Operate a pool: stat, ls, exist, get, put, rm; replay a master's log",
		Long: `Operate a KV-cache pool directly. The pool is named by a URL (--pool or
$KVCTL_POOL): mem:// (embedded; add snapshot=PATH to keep it between runs),
redis:// or valkey:// (the shared pool), mooncake://host:9003 (a live Mooncake
master, read-only) or keylist:PATH (a captured key listing, read-only).
pool replay runs a recorded operation log against an embedded pool set up as
a Mooncake master was, and prints what it evicts.

See docs/pools.md for URLs and semantics.` + poolExitCodes,
	}
	c.AddCommand(
		newPoolStatCmd(ios, g), newPoolLsCmd(ios, g), newPoolExistCmd(ios, g),
		newPoolGetCmd(ios, g), newPoolPutCmd(ios, g), newPoolRmCmd(ios, g),
		newPoolReplayCmd(ios, g),
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
