package cmd

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
		Use:   "ls --pool URL [--prefix P]",
		Short: "List a pool's keys, one per line",
		Long: "List a pool's readable keys, in no particular order: one per line (-o table, the default, or -o keys),\n" +
			"a JSON array of strings (-o json) or one JSON string per line (-o jsonl)." + poolExitCodes,
		Example: "$ kvctl pool ls --pool mooncake://10.0.0.5:9003 --prefix trtllm/llama/ > keys.txt\n$ kvctl pool ls --pool redis://127.0.0.1:6379/0 -o json",
		Args:    noArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := g.checkOutput("table", "keys", "json", "jsonl"); err != nil {
				return err
			}
			return runPoolLs(c.Context(), ios, g, opts)
		},
	}
	opts.Pool.register(c.Flags())
	c.Flags().StringVar(&opts.Prefix, "prefix", "", "list only keys that start with this prefix")
	return c
}

// runPoolLs writes the keys as the pool lists them, in the -o format.
func runPoolLs(ctx context.Context, ios *IOStreams, g *globalOptions, o *poolLsOptions) error {
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		l, ok := st.(pool.Lister)
		if !ok {
			return fmt.Errorf("pool %s cannot list its keys", o.Pool.URL)
		}
		w := bufio.NewWriterSize(ios.Out, 1<<16)
		kw := newKeyWriter(w, g.Output)
		err := l.List(ctx, o.Prefix, kw.write)
		if err == nil {
			err = kw.close()
		}
		if ferr := w.Flush(); err == nil {
			err = ferr
		}
		return err
	})
}

// keyWriter streams keys as lines (table, keys), JSON strings one per line
// (jsonl) or one JSON array of strings (json).
type keyWriter struct {
	w      io.Writer
	format string
	n      int
}

func newKeyWriter(w io.Writer, format string) *keyWriter {
	return &keyWriter{w: w, format: format}
}

// write writes one key.
func (kw *keyWriter) write(key string) error {
	var err error
	switch kw.format {
	case "json":
		sep := ",\n  "
		if kw.n == 0 {
			sep = "[\n  "
		}
		_, err = fmt.Fprintf(kw.w, "%s%s", sep, jsonString(key))
	case "jsonl":
		_, err = fmt.Fprintf(kw.w, "%s\n", jsonString(key))
	default:
		_, err = io.WriteString(kw.w, key+"\n")
	}
	kw.n++
	return err
}

// jsonString spells s as a JSON string, without escaping HTML characters
// (as writeJSON does not).
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(b.String(), "\n")
}

// close ends the JSON array; the other formats need no end.
func (kw *keyWriter) close() error {
	if kw.format != "json" {
		return nil
	}
	end := "\n]\n"
	if kw.n == 0 {
		end = "[]\n"
	}
	_, err := io.WriteString(kw.w, end)
	return err
}
