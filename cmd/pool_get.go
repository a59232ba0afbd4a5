package cmd

import (
	"context"
	"fmt"
	"os"
	"unicode"
	"unicode/utf8"

	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/size"
	"github.com/spf13/cobra"
)

// maxGetBytes bounds the buffer pool get grows to while looking for a
// value's size, on a store that cannot tell it (no pool.Sizer).
const maxGetBytes = 4 << 30

// poolGetOptions are pool get's flags and argument.
type poolGetOptions struct {
	Pool poolFlag
	To   string
	Key  string // the argument
}

func newPoolGetCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolGetOptions{}
	c := &cobra.Command{
		Use:   "get --pool URL KEY [--to FILE]",
		Short: "Print a stored value's bytes, or write them to a file",
		Long: "Print a stored value's bytes to stdout, or write them to --to FILE. A value that is not text is not\n" +
			"written to a terminal: pass --to FILE or pipe it. Exits 1 when the key is absent." + poolExitCodes,
		Example: "$ kvctl pool get --pool redis://127.0.0.1:6379/0 trtllm/m/w1r0/lg0/t32b65536/0123... --to page.bin",
		Args:    exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.checkOutput("table"); err != nil {
				return err // the value's bytes have one spelling
			}
			opts.Key = args[0]
			return runPoolGet(c.Context(), ios, g, opts)
		},
	}
	opts.Pool.register(c.Flags())
	c.Flags().StringVar(&opts.To, "to", "", "write the value to FILE instead of stdout")
	return c
}

// runPoolGet writes the key's value to stdout or to --to.
func runPoolGet(ctx context.Context, ios *IOStreams, _ *globalOptions, o *poolGetOptions) error {
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		val, err := getValue(ctx, st, o.Key)
		if err != nil {
			return err
		}
		if o.To == "" {
			if ios.OutTTY && !isText(val) {
				return fmt.Errorf("%q holds a binary value of %s; pass --to FILE or pipe it", o.Key, size.Human(int64(len(val))))
			}
			_, err = ios.Out.Write(val)
			return err
		}
		return os.WriteFile(o.To, val, 0o644)
	})
}

// isText reports whether b is UTF-8 text a terminal shows as it is: no
// control characters but tab, newline and carriage return.
func isText(b []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	for _, r := range string(b) {
		if unicode.IsControl(r) && r != '\t' && r != '\n' && r != '\r' {
			return false
		}
	}
	return true
}

// getValue reads one value: at its size when the store can tell it
// (pool.Sizer), else into a buffer grown until the value fits.
func getValue(ctx context.Context, st pool.Store, key string) ([]byte, error) {
	if sz, ok := st.(pool.Sizer); ok {
		return getSized(ctx, st, sz, key)
	}
	return getGrowing(ctx, st, key)
}

// getSized asks the value's size, then reads it once, into a buffer
// registered with the store where it takes registrations (registerValue).
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
	err := withRegistered(st, buf, func() error {
		return st.Get(ctx, []string{key}, [][]byte{buf}, n)
	})
	if err != nil {
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
