package cmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kvctl/kvctl/keys"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// keysDiff is the JSON shape of keys --diff (docs/json.md): the two
// settings, the inputs in which they differ, and the first block whose
// hash or keys differ.
type keysDiff struct {
	A            diffSide      `json:"a"`
	B            diffSide      `json:"b"`
	Differences  []diffInput   `json:"differences"`
	SharedBlocks int           `json:"shared_blocks"`
	FirstDiff    *diffDivision `json:"first_diff,omitempty"`
}

// diffSide is one side of keys --diff: its flags as given, its engine
// and its blocks.
type diffSide struct {
	Flags     string `json:"flags"`
	Engine    string `json:"engine"`
	NumBlocks int    `json:"num_blocks"`
	blocks    []diffBlock
}

// diffInput is one input in which the sides differ, named by its flag.
type diffInput struct {
	Input string `json:"input"`
	A     string `json:"a"`
	B     string `json:"b"`
}

// diffBlock is one block as a side hashes and keys it.
type diffBlock struct {
	Start int      `json:"start"`
	End   int      `json:"end"`
	Hash  string   `json:"hash"`
	Keys  []string `json:"keys,omitempty"`
}

// diffDivision is the first block in which the sides differ: what differs
// (hash, keys, or blocks: one side has no such block) and each side's.
type diffDivision struct {
	Index int        `json:"index"`
	What  string     `json:"what"`
	A     *diffBlock `json:"a,omitempty"`
	B     *diffBlock `json:"b,omitempty"`
}

// settingFlags names the flag of each keys.Settings field (DiffSettings).
var settingFlags = map[string]string{
	"Engine": "--engine", "Engines.Version": "--engine-version", "Engines.HashAlgo": "--hash-algo", "Engines.HashSeed": "--hash-seed",
	"Engines.ChunkSize": "--chunk-size", "Engines.Eagle": "--eagle", "Engines.SequenceSeed": "--dynamo-sequence-seed",
	"Engines.MLA": "--mla", "Engines.KVHeads": "--kv-heads", "Engines.PPRank": "--pp-rank",
	"Engines.PCPRank": "--pcp-rank", "Engines.DCPRank": "--dcp-rank", "Engines.Group": "--kv-cache-group",
	"Engines.PPSize": "--pp-size", "Engines.DType": "--dtype", "Scheme": "--scheme", "Lookahead": "--lookahead",
	"Layout.TokensPerBlock": "--tokens-per-block", "Layout.LayerGroups": "--layer-group",
	"Layout.Replicated": "--replicated-layer-group", "Layout.World": "--tp", "Layout.Ranks": "--rank, --all-ranks",
	"Namespace.Name": "--namespace", "Namespace.ModelKey": "--model-key", "Scope.CacheSalt": "--cache-salt",
	"Scope.LoRATaskID": "--lora-task-id", "Scope.LoRAName": "--lora-name", "Scope.Multimodal": "--mm-hash",
}

// diffInputs names the inputs in which a and b differ by their flags,
// leaving out an engine's option that not both sides' engines read: with
// two engines, the engine is the input that differs.
func diffInputs(a, b keys.Settings) []diffInput {
	out := []diffInput{}
	for _, d := range keys.DiffSettings(a, b) {
		name, ok := settingFlags[d.Field]
		if !ok {
			name = d.Field
		}
		if !readByBoth(name, engineOf(a), engineOf(b)) {
			continue
		}
		out = append(out, diffInput{Input: name, A: d.A, B: d.B})
	}
	return out
}

// readByBoth reports whether the engines of both sides read flag name
// (engineOnly names the flags only some engines read).
func readByBoth(name string, a, b keys.Engine) bool {
	engines, only := engineOnly[strings.TrimPrefix(name, "--")]
	return !only || hasEngine(engines, a) && hasEngine(engines, b)
}

// diffInputFlags are the flags of kvctl keys that are not key settings:
// a side of --diff neither takes nor inherits them.
var diffInputFlags = []string{"diff", "tokens", "tokens-format", "requests", "trace", "trace-format"}

// commonArgs spells the key flags given on the command line, for both
// sides of --diff to start from.
func commonArgs(c *cobra.Command, side *pflag.FlagSet) []string {
	var args []string
	c.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(diffInputFlags, f.Name) || side.Lookup(f.Name) == nil {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return args
}

// sideSettings resolves one side of --diff: the common key flags, then
// the side's own, parsed as kvctl keys parses them.
func sideSettings(c *cobra.Command, ios *IOStreams, side string) (keys.Settings, error) {
	words, err := splitFlags(side)
	if err != nil {
		return keys.Settings{}, usagef("--diff %q: %v", side, err)
	}
	var k keyFlags
	sc := &cobra.Command{Use: "keys"}
	sc.SetErr(ios.ErrOut)
	registerKeySettingFlags(sc.Flags(), &k)
	if err := sc.ParseFlags(append(commonArgs(c, sc.Flags()), words...)); err != nil {
		return keys.Settings{}, usagef("--diff %q: %v", side, err)
	}
	if rest := sc.Flags().Args(); len(rest) > 0 {
		return keys.Settings{}, usagef("--diff %q: %q is not a flag", side, rest[0])
	}
	s, err := k.resolve(sc, ios.Getenv)
	if err != nil {
		return s, fmt.Errorf("--diff %q: %w", side, err)
	}
	return s, nil
}

// splitFlags splits a side of --diff into words at spaces, as a shell
// would for single- and double-quoted words without escapes.
func splitFlags(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord, quote := false, rune(0)
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words, inWord = append(words, w.String()), false
				w.Reset()
			}
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated %c quote", quote)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// sideBlocks hashes and keys the prompt as one side does.
func sideBlocks(s keys.Settings, tokens []int64) ([]diffBlock, error) {
	if s.IsTRTLLM() {
		hashes, err := s.Hashes(s.Scope, tokens)
		if err != nil {
			return nil, err
		}
		out := make([]diffBlock, len(hashes))
		T := s.TokensPerBlock()
		for i, h := range hashes {
			out[i] = diffBlock{Start: i * T, End: (i + 1) * T, Hash: h.String()}
			if s.Namespace.ModelKey != "" {
				out[i].Keys = s.AppendBlockKeys(nil, h)
			}
		}
		return out, nil
	}
	blocks, err := s.EngineBlocks(s.Scope, tokens)
	if err != nil {
		return nil, err
	}
	out := make([]diffBlock, len(blocks))
	for i, b := range blocks {
		out[i] = diffBlock{Start: b.Start, End: b.End, Hash: b.Hash}
		if spellsEngineKeys(s) {
			out[i].Keys = s.AppendEngineKeys(nil, b)
		}
	}
	return out, nil
}

// compareSides finds the first block in which the sides differ, and how
// many blocks before it they share.
func compareSides(a, b []diffBlock) (int, *diffDivision) {
	for i := range max(len(a), len(b)) {
		d := &diffDivision{Index: i}
		switch {
		case i >= len(a) || i >= len(b):
			d.What = "blocks"
		case a[i].Hash != b[i].Hash:
			d.What = "hash"
		case !slices.Equal(a[i].Keys, b[i].Keys):
			d.What = "keys"
		default:
			continue
		}
		if i < len(a) {
			d.A = &a[i]
		}
		if i < len(b) {
			d.B = &b[i]
		}
		return i, d
	}
	return len(a), nil
}

// runDiff computes the prompt's keys under both sides of --diff and
// prints where and why they first differ.
func (o *keysOptions) runDiff(ctx context.Context, c *cobra.Command, ios *IOStreams, g *globalOptions) error {
	_, tokens, err := readTokensFlag(ios, o.Tokens, o.TokensFormat)
	if err != nil {
		return err
	}
	var sides [2]diffSide
	var settings [2]keys.Settings
	for i, flags := range o.Diff {
		if settings[i], err = sideSettings(c, ios, flags); err != nil {
			return err
		}
		blocks, err := sideBlocks(settings[i], tokens)
		if err != nil {
			return fmt.Errorf("--diff %q: %w", flags, err)
		}
		sides[i] = diffSide{Flags: flags, Engine: string(engineOf(settings[i])), NumBlocks: len(blocks), blocks: blocks}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	d := keysDiff{A: sides[0], B: sides[1], Differences: diffInputs(settings[0], settings[1])}
	d.SharedBlocks, d.FirstDiff = compareSides(sides[0].blocks, sides[1].blocks)
	if g.Output == "json" {
		return writeJSON(ios.Out, d)
	}
	return printKeysDiff(ios, d)
}

// engineOf names s's engine, trtllm when it is empty.
func engineOf(s keys.Settings) keys.Engine {
	if s.IsTRTLLM() {
		return keys.EngineTRTLLM
	}
	return s.Engine
}
