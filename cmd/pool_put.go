package cmd

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
	"github.com/spf13/cobra"
)

// poolPutOptions are pool put's flags and argument.
type poolPutOptions struct {
	Pool         poolFlag
	From         string
	SoftPinTTLMS int64
	Group        string
	HardPin      bool
	Key          string // the argument
	// softPinWanted is whether --soft-pin-ttl-ms was given.
	softPinWanted bool
}

func newPoolPutCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolPutOptions{}
	c := &cobra.Command{
		Use:   "put --pool URL KEY --from FILE",
		Short: "Store a value if its key is absent",
		Long: `Store FILE's bytes under KEY if the key is absent. A put never overwrites: when
the key exists the command exits 0 and says on stderr that the stored value was
kept (Mooncake's OBJECT_ALREADY_EXISTS, which its client reports as success).
A mem:// pool without snapshot= ends with the command, and the value with it:
a note on stderr says so. -o json prints {"key", "bytes", "stored"}, stored
false when the key existed.` + poolExitCodes,
		Example: "$ kvctl pool put --pool mem://?snapshot=pool.snap k1 --from page.bin --soft-pin-ttl-ms 60000",
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			opts.Key = args[0]
			opts.softPinWanted = c.Flags().Changed("soft-pin-ttl-ms")
			if err := opts.validate(); err != nil {
				return err
			}
			return runPoolPut(c.Context(), ios, g, opts)
		},
	}
	fs := c.Flags()
	opts.Pool.register(fs)
	fs.StringVar(&opts.From, "from", "", "file with the value's bytes (- for stdin)")
	fs.Int64Var(&opts.SoftPinTTLMS, "soft-pin-ttl-ms", 0, fmt.Sprintf("soft-pin the value for this many milliseconds from publish, 1..%d", maxSoftPinTTLMS))
	fs.StringVar(&opts.Group, "group", "", "eviction group id")
	fs.BoolVar(&opts.HardPin, "hard-pin", false, "never evict the value (it stays removable)")
	return c
}

func (o *poolPutOptions) validate() error {
	if o.From == "" {
		return usagef("--from is required")
	}
	if o.softPinWanted && (o.SoftPinTTLMS <= 0 || o.SoftPinTTLMS > maxSoftPinTTLMS) {
		return usagef("--soft-pin-ttl-ms %d is outside 1..%d", o.SoftPinTTLMS, maxSoftPinTTLMS)
	}
	return nil
}

// putResult is pool put -o json.
type putResult struct {
	Key   string `json:"key"`
	Bytes int    `json:"bytes"`
	// Stored is false when the key existed and kept its value.
	Stored bool `json:"stored"`
}

// runPoolPut stores --from's bytes under the key; a key that exists keeps
// its value, with a note on stderr.
func runPoolPut(ctx context.Context, ios *IOStreams, g *globalOptions, o *poolPutOptions) error {
	item, err := o.putItem(ios)
	if err != nil {
		return err
	}
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		res := make([]pool.Code, 1)
		err := withRegistered(st, item.Value, func() error {
			return st.Put(ctx, []pool.PutItem{item}, res)
		})
		if err != nil {
			return err
		}
		if res[0] != pool.OK && res[0] != pool.ObjectAlreadyExists {
			return &pool.Error{Code: res[0], Op: "put", Key: o.Key}
		}
		if !g.Quiet {
			notePut(ios, o, res[0])
		}
		if g.Output == "json" {
			return writeJSON(ios.Out, putResult{Key: o.Key, Bytes: len(item.Value), Stored: res[0] == pool.OK})
		}
		return nil
	})
}

// notePut says on stderr that an existing key kept its value, or that a
// pool without a snapshot forgets the value when the command ends.
func notePut(ios *IOStreams, o *poolPutOptions, code pool.Code) {
	switch {
	case code == pool.ObjectAlreadyExists:
		fmt.Fprintf(ios.ErrOut, "note: %q already exists: the stored value was kept (a put never overwrites)\n", o.Key)
	case discardedAtExit(o.Pool.URL):
		fmt.Fprintf(ios.ErrOut, "note: %s has no snapshot=: the value is discarded when this command exits (add snapshot=PATH to keep it)\n", o.Pool.URL)
	}
}

// discardedAtExit reports whether rawURL names an embedded pool that keeps
// nothing after the process ends: mem:// without snapshot=.
func discardedAtExit(rawURL string) bool {
	u, err := url.Parse(rawURL)
	if err != nil || u.Scheme != "mem" {
		return false
	}
	opts, err := mem.ParseURL(u)
	return err == nil && opts.SnapshotPath == ""
}

// putItem reads --from and spells the put the flags ask for.
func (o *poolPutOptions) putItem(ios *IOStreams) (pool.PutItem, error) {
	name, r, err := openInput(ios, o.From)
	if err != nil {
		return pool.PutItem{}, asUsage(fmt.Errorf("--from: %w", err))
	}
	val, err := readValue(r)
	r.Close()
	if err != nil {
		return pool.PutItem{}, fmt.Errorf("reading %q: %w", name, err)
	}
	item := pool.PutItem{Key: o.Key, Value: val, Options: pool.PutOptions{GroupID: o.Group, HardPin: o.HardPin}}
	if o.softPinWanted {
		item.Options.SoftPin = pool.SoftPinEnable
		item.Options.SoftPinTTL = time.Duration(o.SoftPinTTLMS) * time.Millisecond
	}
	return item, nil
}
