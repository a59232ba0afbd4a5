package cmd

import (
	"cmp"
	"context"
	"fmt"
	"net/url"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mooncakestore"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// poolEnv names the environment variable that gives --pool where the
// flag is not given, for every command with a --pool flag.
const poolEnv = "KVCTL_POOL"

// poolFlag is the --pool flag every command with a pool shares (the pool
// subcommands, holes, serve, bench); each command's options struct holds
// one as its Pool field.
type poolFlag struct {
	URL string
	// FromEnv says URL came from $KVCTL_POOL, not from --pool.
	FromEnv bool
	// MooncakeLib is --mooncake-lib: the Mooncake Store client library a
	// mooncake-store:// pool loads, where its URL names none.
	MooncakeLib string
	// flags are the command's flags, where --mooncake-config (a key flag)
	// may be.
	flags *pflag.FlagSet
}

// poolURLHelp lists the pool URL forms, for --pool's help.
const poolURLHelp = "pool URL: mem://?capacity=64GiB&snapshot=PATH, redis://host:6379/0, valkey://..., mooncake://host:9003, mooncake-store://host:50051?admin=host:9003, keylist:PATH"

// register binds --pool to p; without the flag and $KVCTL_POOL the
// command needs one.
func (p *poolFlag) register(fs *pflag.FlagSet) {
	p.registerDefault(fs, "")
}

// registerDefault binds --pool to p, naming in its help what the command
// does when neither the flag nor $KVCTL_POOL gives a pool ("": it needs
// one).
func (p *poolFlag) registerDefault(fs *pflag.FlagSet, otherwise string) {
	def := "default $" + poolEnv
	if otherwise != "" {
		def += ", else " + otherwise
	}
	p.flags = fs
	fs.StringVar(&p.URL, "pool", "", poolURLHelp+" ("+def+")")
	fs.StringVar(&p.MooncakeLib, "mooncake-lib", "", "Mooncake Store client library of a mooncake-store:// pool (default $"+mooncakestore.LibraryEnv+", else "+mooncakestore.DefaultLibrary+" from the loader's search path)")
}

// resolve fills in URL from $KVCTL_POOL where --pool was not given and
// returns it ("" when neither names a pool). It is the one place that
// reads the variable. A mooncake-store URL gets the library
// (--mooncake-lib, $KVCTL_MOONCAKE_LIB) and the Mooncake client JSON
// (--mooncake-config where the command has it, $MOONCAKE_CONFIG_PATH) as
// its lib= and config=, where it names none, so that the store reads its
// settings from the file the keys come from.
func (p *poolFlag) resolve(ios *IOStreams) string {
	if p.URL == "" {
		p.URL = ios.Getenv(poolEnv)
		p.FromEnv = p.URL != ""
	}
	p.URL = withStoreOption(p.URL, "lib", cmp.Or(p.MooncakeLib, ios.Getenv(mooncakestore.LibraryEnv)))
	p.URL = withStoreOption(p.URL, "config", cmp.Or(p.mooncakeConfig(), ios.Getenv(mooncakestore.ConfigEnv)))
	return p.URL
}

// mooncakeConfig is the command's --mooncake-config, "" where it has none.
func (p *poolFlag) mooncakeConfig() string {
	if p.flags == nil {
		return ""
	}
	if f := p.flags.Lookup("mooncake-config"); f != nil {
		return f.Value.String()
	}
	return ""
}

// withStoreOption adds name=value to a mooncake-store URL that has no
// option name; other URLs, and an empty value, leave it as it is.
func withStoreOption(rawURL, name, value string) string {
	u, err := url.Parse(rawURL)
	if err != nil || value == "" || u.Scheme != "mooncake-store" {
		return rawURL
	}
	q, err := url.ParseQuery(u.RawQuery)
	if err != nil || q.Has(name) {
		return rawURL
	}
	q.Set(name, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// open opens the pool the flag (or $KVCTL_POOL) names.
func (p *poolFlag) open(ctx context.Context, ios *IOStreams) (pool.Store, error) {
	if p.resolve(ios) == "" {
		return nil, usagef("--pool is required (or set %s)", poolEnv)
	}
	return pool.Open(ctx, p.URL)
}

// noteFromEnv says on stderr, unless quiet, that the pool came from
// $KVCTL_POOL, where a command would otherwise make its own embedded one.
func (p *poolFlag) noteFromEnv(ios *IOStreams, g *globalOptions) {
	if p.FromEnv && !g.Quiet {
		fmt.Fprintf(ios.ErrOut, "note: --pool from $%s: %s\n", poolEnv, redactedURL(p.URL))
	}
}

// redactedURL is a pool URL with any password replaced, for messages.
func redactedURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
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
