package cmd

import (
	"context"
	"fmt"
	"slices"

	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/stats"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// promptKeyEntry is one page key of pool exist --tokens -o json.
type promptKeyEntry struct {
	Block  int    `json:"block"`
	Key    string `json:"key"`
	Status int    `json:"status"`
}

// promptExistReport is pool exist --tokens -o json: the prompt's block
// map, as holes maps a request, and each page key's status.
type promptExistReport struct {
	Pool   string             `json:"pool"`
	Layout string             `json:"layout"`
	Prompt stats.RequestHoles `json:"prompt"`
	Keys   []promptKeyEntry   `json:"keys"`
	// Diagnosis says why nothing was found, as holes' does.
	Diagnosis string `json:"diagnosis,omitempty"`
}

// registerPromptFlags registers the flags of pool exist --tokens: the
// prompt, the key and engine flags of kvctl keys, and --layout.
func (o *poolExistOptions) registerPromptFlags(fs *pflag.FlagSet) {
	fs.StringVar(&o.Tokens, "tokens", "", "probe the page keys of a prompt: its token ids in a file, or - for stdin (as kvctl keys --tokens reads them)")
	fs.StringVar(&o.TokensFormat, "tokens-format", "auto", "format of --tokens: auto, json, text or i64 (raw little-endian int64)")
	o.Key.register(fs, true)
	o.Key.Engines.register(fs)
	o.Layout.register(fs)
}

// promptFlagNames are the flags registerPromptFlags registers.
func promptFlagNames() []string {
	fs := pflag.NewFlagSet("prompt", pflag.ContinueOnError)
	new(poolExistOptions).registerPromptFlags(fs)
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return names
}

// checkPromptFlags refuses the flags of --tokens without it, and --tokens
// with keys given otherwise; it returns the arguments left once the old
// form "--attention-dp N" took its count.
func (o *poolExistOptions) checkPromptFlags(c *cobra.Command, args []string) ([]string, error) {
	if o.Tokens == "" {
		if i := slices.IndexFunc(promptFlagNames(), c.Flags().Changed); i >= 0 {
			return nil, usagef("--%s is for --tokens (the page keys of a prompt)", promptFlagNames()[i])
		}
		return args, nil
	}
	rest, err := o.Key.AttentionDP.takeOldCount(c.Flags().Changed("attention-dp"), args)
	if err != nil {
		return nil, err
	}
	if len(rest) > 0 || o.KeysFrom != "" {
		return nil, usagef("give keys as arguments, with --keys-from, or a prompt with --tokens: one of them")
	}
	if o.Key.GroupKeys {
		return nil, usagef("--group-keys is for kvctl keys: pool exist probes page keys, not eviction group keys")
	}
	return rest, nil
}

// promptSettings resolves the key settings of --tokens, the layout a
// placeholder where it is to be read from the pool.
func (o *poolExistOptions) promptSettings(c *cobra.Command, ios *IOStreams) (keys.Settings, error) {
	if err := o.Layout.decide(c, &o.Key); err != nil {
		return keys.Settings{}, err
	}
	s, err := o.Key.resolve(c, ios.Getenv)
	if err != nil {
		return s, err
	}
	return s, checkProbeSettings(s)
}

// runPoolExistPrompt probes the page keys of the prompt in --tokens and
// prints each one's status and the prompt's block map.
func runPoolExistPrompt(c *cobra.Command, ios *IOStreams, g *globalOptions, o *poolExistOptions) error {
	s, err := o.promptSettings(c, ios)
	if err != nil {
		return err
	}
	name, tokens, err := readTokensFlag(ios, o.Tokens, o.TokensFormat)
	if err != nil {
		return err
	}
	ctx := c.Context()
	return withPool(ctx, ios, &o.Pool, func(st pool.Store) error {
		rep, err := o.probePrompt(ctx, ios, st, s, tokens)
		if err != nil {
			return err
		}
		rep.Prompt.ID = name
		return printPromptExist(ios, g, rep)
	})
}

// probePrompt reads the layout from the pool where --layout says to,
// probes the prompt's page keys (with leases under --leasing) and explains
// a probe that found nothing.
func (o *poolExistOptions) probePrompt(ctx context.Context, ios *IOStreams, st pool.Store, s keys.Settings, tokens []int64) (promptExistReport, error) {
	if err := o.Layout.apply(ctx, ios, st, &s); err != nil {
		return promptExistReport{}, err
	}
	probe, err := probingStore(st, o.Leasing, o.Pool.URL)
	if err != nil {
		return promptExistReport{}, err
	}
	pp, err := holes.ProbePrompt(ctx, probe, s, tokens)
	if err != nil {
		return promptExistReport{}, err
	}
	rep := promptExistReport{Pool: o.Pool.URL, Layout: probedLayout(s), Prompt: pp.Holes, Keys: make([]promptKeyEntry, len(pp.Keys))}
	for i, k := range pp.Keys {
		rep.Keys[i] = promptKeyEntry{Block: i / pp.KeysPerBlock, Key: k, Status: pp.Status[i]}
	}
	rep.Diagnosis = o.Layout.explainMiss(ctx, ios, st, s, pp.Holes.HitBlocks, pp.Holes.Blocks)
	return rep, nil
}

// printPromptExist prints a prompt's probe as JSON, or as a table of its
// page keys and a line with its block map.
func printPromptExist(ios *IOStreams, g *globalOptions, rep promptExistReport) error {
	if g.Output == "json" {
		return writeJSON(ios.Out, rep)
	}
	tp := newTablePrinter(ios, "block", "status", "key")
	for _, e := range rep.Keys {
		tp.addRow(e.Block, statusWord(e.Status), e.Key)
	}
	if err := tp.render(); err != nil {
		return err
	}
	p := rep.Prompt
	_, err := fmt.Fprintf(ios.Out, "prompt %s: %d tokens, %d blocks %s, %d hit, %d holes of %d blocks, %d blocks stored behind a hole (%d tokens recomputed)\n",
		p.ID, p.PromptTokens, p.Blocks, compressMap(p.Map, mapWidth(ios)), p.HitBlocks, p.Holes, p.HoleBlocks, p.BehindHoleBlocks, p.RecomputedTokens)
	return err
}
