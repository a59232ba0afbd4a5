package cmd

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kvctl/kvctl/pool"
	"github.com/spf13/cobra"
)

// maxGetBytes bounds the buffer pool get grows to while looking for a
// value's size, on a store that cannot tell it (no pool.Sizer).
const maxGetBytes = 4 << 30

func newPoolGetCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	p := &poolFlag{}
	var to string
	c := &cobra.Command{
		Use:     "get --pool URL KEY [--to FILE]",
		Short:   "Print a stored value's bytes, or write them to a file",
		Long:    "Print a stored value's bytes to stdout, or write them to --to FILE. Exits 1 when the key is absent." + poolExitCodes,
		Example: "$ kvctl pool get --pool redis://127.0.0.1:6379/0 trtllm/m/w1r0/lg0/t32b65536/0123... --to page.bin",
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			return withPool(c.Context(), ios, p, func(st pool.Store) error {
				val, err := getValue(c.Context(), st, args[0])
				if err != nil {
					return err
				}
				if to == "" {
					_, err = ios.Out.Write(val)
					return err
				}
				return os.WriteFile(to, val, 0o644)
			})
		},
	}
	p.register(c.Flags())
	c.Flags().StringVar(&to, "to", "", "write the value to FILE instead of stdout")
	return c
}

// getValue reads one value: at its size when the store can tell it
// (pool.Sizer), else into a buffer grown until the value fits.
func getValue(ctx context.Context, st pool.Store, key string) ([]byte, error) {
	if sz, ok := st.(pool.Sizer); ok {
		return getSized(ctx, st, sz, key)
	}
	return getGrowing(ctx, st, key)
}

// getSized asks the value's size, then reads it once.
func getSized(ctx context.Context, st pool.Store, sz pool.Sizer, key string) ([]byte, error) {
	size := make([]int64, 1)
	if err := sz.Sizes(ctx, []string{key}, size); err != nil {
		return nil, err
	}
	if size[0] < 0 {
		return nil, &pool.Error{Code: pool.Code(size[0]), Op: "get", Key: key}
	}
	buf := make([]byte, size[0])
	n := make([]int64, 1)
	if err := st.Get(ctx, []string{key}, [][]byte{buf}, n); err != nil {
		return nil, err
	}
	switch {
	case n[0] >= 0:
		return buf[:n[0]], nil
	case pool.Code(n[0]) == pool.InvalidParams:
		return nil, &pool.Error{Code: pool.InvalidParams, Op: "get", Key: key, Err: fmt.Errorf("value of %d bytes not readable as bytes (a metadata-only pool, or a value replaced while read)", size[0])}
	}
	return nil, &pool.Error{Code: pool.Code(n[0]), Op: "get", Key: key}
}

// getGrowing reads one value into a buffer of 1 MiB, then 4 MiB, ... up to
// maxGetBytes, until it fits.
func getGrowing(ctx context.Context, st pool.Store, key string) ([]byte, error) {
	n := make([]int64, 1)
	for size := 1 << 20; size <= maxGetBytes; size *= 4 {
		buf := make([]byte, size)
		if err := st.Get(ctx, []string{key}, [][]byte{buf}, n); err != nil {
			return nil, err
		}
		switch {
		case n[0] >= 0:
			return buf[:n[0]], nil
		case pool.Code(n[0]) != pool.InvalidParams:
			return nil, &pool.Error{Code: pool.Code(n[0]), Op: "get", Key: key}
		}
	}
	return nil, &pool.Error{Code: pool.InvalidParams, Op: "get", Key: key, Err: fmt.Errorf("value larger than %d bytes or not readable as bytes", maxGetBytes)}
}

type poolPutOptions struct {
	From          string
	SoftPinTTLMS  int64
	Group         string
	HardPin       bool
	softPinWanted bool
}

func newPoolPutCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	p := &poolFlag{}
	o := &poolPutOptions{}
	c := &cobra.Command{
		Use:   "put --pool URL KEY --from FILE",
		Short: "Store a value if its key is absent",
		Long: `Store FILE's bytes under KEY if the key is absent. A put never overwrites: when
the key exists the command exits 0 and says on stderr that the stored value was
kept (Mooncake's OBJECT_ALREADY_EXISTS, which its client reports as success).` + poolExitCodes,
		Example: "$ kvctl pool put --pool mem://?snapshot=pool.snap k1 --from page.bin --soft-pin-ttl-ms 60000",
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.softPinWanted = c.Flags().Changed("soft-pin-ttl-ms")
			return runPoolPut(c, ios, g, p, o, args[0])
		},
	}
	p.register(c.Flags())
	fs := c.Flags()
	fs.StringVar(&o.From, "from", "", "file with the value's bytes (- for stdin)")
	fs.Int64Var(&o.SoftPinTTLMS, "soft-pin-ttl-ms", 0, "soft-pin the value for this many milliseconds from publish")
	fs.StringVar(&o.Group, "group", "", "eviction group id")
	fs.BoolVar(&o.HardPin, "hard-pin", false, "never evict the value (it stays removable)")
	return c
}

func runPoolPut(c *cobra.Command, ios *IOStreams, g *globalOptions, p *poolFlag, o *poolPutOptions, key string) error {
	if o.From == "" {
		return usagef("--from is required")
	}
	if o.softPinWanted && o.SoftPinTTLMS <= 0 {
		return usagef("--soft-pin-ttl-ms must be positive, got %d", o.SoftPinTTLMS)
	}
	name, r, err := openInput(ios, o.From)
	if err != nil {
		return asUsage(fmt.Errorf("--from: %w", err))
	}
	val, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return fmt.Errorf("reading %q: %w", name, err)
	}
	item := pool.PutItem{Key: key, Value: val, Options: pool.PutOptions{GroupID: o.Group, HardPin: o.HardPin}}
	if o.softPinWanted {
		item.Options.SoftPin = pool.SoftPinEnable
		item.Options.SoftPinTTL = time.Duration(o.SoftPinTTLMS) * time.Millisecond
	}
	return withPool(c.Context(), ios, p, func(st pool.Store) error {
		res := make([]pool.Code, 1)
		if err := st.Put(c.Context(), []pool.PutItem{item}, res); err != nil {
			return err
		}
		switch res[0] {
		case pool.OK:
			return nil
		case pool.ObjectAlreadyExists:
			if !g.Quiet {
				fmt.Fprintf(ios.ErrOut, "note: %q already exists: the stored value was kept (a put never overwrites)\n", key)
			}
			return nil
		}
		return &pool.Error{Code: res[0], Op: "put", Key: key}
	})
}

func newPoolRmCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	p := &poolFlag{}
	var force, all bool
	c := &cobra.Command{
		Use:   "rm --pool URL (KEY... | --all) [--force]",
		Short: "Remove keys; leased keys only with --force",
		Long: "Remove keys. A key under an unexpired lease is refused (OBJECT_HAS_LEASE) unless --force, a key still being written always (REPLICA_IS_NOT_READY). Exits 1 when any key could not be removed.\n\n" +
			"--all removes every object whose lease has expired (every object with --force) but those still being written, as the Mooncake master's RemoveAll, and prints how many it removed; pools without it (all but mem://) refuse it." + poolExitCodes,
		Example: "$ kvctl pool rm --pool mem://?snapshot=pool.snap k1 k2 --force\n$ kvctl pool rm --pool mem://?snapshot=pool.snap --all",
		RunE: func(c *cobra.Command, args []string) error {
			if all {
				if len(args) > 0 {
					return usagef("give keys or --all, not both")
				}
				return withPool(c.Context(), ios, p, func(st pool.Store) error { return removeAll(c.Context(), ios, p.URL, st, force) })
			}
			if len(args) == 0 {
				return usagef("give at least one key")
			}
			return withPool(c.Context(), ios, p, func(st pool.Store) error {
				res := make([]pool.Code, len(args))
				if err := st.Remove(c.Context(), args, force, res); err != nil {
					return err
				}
				return reportRemoved(ios, args, res)
			})
		},
	}
	p.register(c.Flags())
	c.Flags().BoolVar(&force, "force", false, "remove keys even under a lease")
	c.Flags().BoolVar(&all, "all", false, "remove every object (Mooncake's RemoveAll)")
	return c
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
