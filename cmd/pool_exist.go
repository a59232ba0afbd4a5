package cmd

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/kvctl/kvctl/pool"
	"github.com/spf13/cobra"
)

// poolExistOptions are pool exist's flags and arguments.
type poolExistOptions struct {
	Pool     poolFlag
	KeysFrom string
	Keys     []string // the arguments
	// Leasing probes with the pool's leasing exist, as the connector does.
	Leasing bool

	// The page keys of a prompt (--tokens), as kvctl keys spells them.
	Tokens       string
	TokensFormat string
	Key          keyFlags
	Layout       probeLayout
}

// existEntry is one line of pool exist -o json.
type existEntry struct {
	Key    string `json:"key"`
	Status int    `json:"status"`
}

func newPoolExistCmd(ios *IOStreams, g *globalOptions) *cobra.Command {
	opts := &poolExistOptions{}
	c := &cobra.Command{
		Use:   "exist --pool URL (KEY... | --keys-from FILE | --tokens FILE) [flags]",
		Short: "Probe keys read-only: 1 present, 0 absent, negative a failed probe",
		Long: `Probe keys without granting a lease (read-only). Status per key as Mooncake's
batch_is_exist spells it: 1 present, 0 absent, negative = the probe failed
(a Mooncake error code). --leasing probes as the connector's batch_is_exist
does instead, leasing every key it finds (which changes what the pool
evicts); pools that cannot grant leases refuse it.

With --tokens it probes the page keys of a prompt, as kvctl keys spells them
(the same key flags), block by block, and prints the prompt's block map as
holes does: '#' present (every page of the block), '.' missing. Given no
layout flag, the layout is read from the pool's own keys (--layout auto, as in
holes --pool); a probe with an explicit layout that finds nothing says which
key segment the pool's pages differ in.` + poolExitCodes,
		Example: "$ kvctl pool exist --pool redis://127.0.0.1:6379/0 trtllm/m/w1r0/lg0/t32b65536/0123abcd...\n$ kvctl keys --tokens p.json --tokens-per-block 32 --model-key m -o keys | kvctl pool exist --pool mem:// --keys-from - -o json\n$ kvctl pool exist --pool redis://127.0.0.1:6379/0 --tokens p.json --model-key m",
		RunE: func(c *cobra.Command, args []string) error {
			if err := g.checkOutput("table", "json"); err != nil {
				return err
			}
			args, err := opts.checkPromptFlags(c, args)
			if err != nil {
				return err
			}
			if opts.Tokens != "" {
				return runPoolExistPrompt(c, ios, g, opts)
			}
			opts.Keys = args
			return runPoolExist(c.Context(), ios, g, opts)
		},
	}
	opts.Pool.register(c.Flags())
	c.Flags().StringVar(&opts.KeysFrom, "keys-from", "", "read keys from FILE, one per line (- for stdin)")
	c.Flags().BoolVar(&opts.Leasing, "leasing", false, "probe as the connector does, granting leases (changes eviction)")
	opts.registerPromptFlags(c.Flags())
	return c
}

// runPoolExist probes the keys given as arguments or in --keys-from and
// prints each one's status.
func runPoolExist(ctx context.Context, ios *IOStreams, g *globalOptions, o *poolExistOptions) error {
	keyList, err := gatherKeys(ios, o.Keys, o.KeysFrom)
	if err != nil {
		return err
	}
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		st, err := probingStore(st, o.Leasing, o.Pool.URL)
		if err != nil {
			return err
		}
		status := make([]int, len(keyList))
		if err := st.Exist(ctx, keyList, status); err != nil {
			return err
		}
		return printExist(ios, g, keyList, status)
	})
}

// gatherKeys takes keys from the arguments or from a file, not both.
func gatherKeys(ios *IOStreams, args []string, from string) ([]string, error) {
	if (len(args) > 0) == (from != "") {
		return nil, usagef("give keys as arguments or with --keys-from, not both or neither")
	}
	if from == "" {
		return args, nil
	}
	name, r, err := openInput(ios, from)
	if err != nil {
		return nil, asUsage(fmt.Errorf("--keys-from: %w", err))
	}
	defer r.Close()
	var out []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if k := strings.TrimRight(sc.Text(), "\r"); k != "" {
			out = append(out, k)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading keys from %q: %w", name, err)
	}
	return out, nil
}

func printExist(ios *IOStreams, g *globalOptions, keyList []string, status []int) error {
	if g.Output == "json" {
		out := make([]existEntry, len(keyList))
		for i, k := range keyList {
			out[i] = existEntry{Key: k, Status: status[i]}
		}
		return writeJSON(ios.Out, out)
	}
	tp := newTablePrinter(ios, "status", "key")
	for i, k := range keyList {
		tp.addRow(statusWord(status[i]), k)
	}
	return tp.render()
}

func statusWord(s int) string {
	switch {
	case s == 1:
		return "present"
	case s == 0:
		return "absent"
	default:
		return fmt.Sprintf("failed %s", pool.Code(s))
	}
}
