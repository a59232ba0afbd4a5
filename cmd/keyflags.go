package cmd

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/keys"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// keyFlags are the flags that decide block keys, shared by keys, holes and
// serve. Configuration files fill what the flags leave unset; flags win.
type keyFlags struct {
	TokensPerBlock int
	Lookahead      int
	Scheme         string
	CacheSalt      string
	LoRATaskID     int64
	MMHashes       []string
	Namespace      string
	ModelKey       string
	TP             int
	Rank           int
	AllRanks       bool
	AttentionDP    attentionDPFlag
	LayerGroups    []string
	Replicated     []string
	GroupKeys      bool
	MooncakeConfig string
	LLMConfig      string
	// Engines are the engine flags, where the command registers them.
	Engines engineFlags

	// defaultLayerGroup is the layer group used when none is given.
	defaultLayerGroup string
	// owners is the number of attention-DP owners resolve found (0:
	// no attention DP), which serve runs.
	owners int
}

func (f *keyFlags) register(fs *pflag.FlagSet, scopeFlags bool) {
	f.registerWithDefaults(fs, scopeFlags, connector.DefaultTokensPerBlock, keys.DefaultLayerGroup.String())
}

// registerWithDefaults registers the key flags with a default T (where
// --llm-config does not give kv_cache_config.tokens_per_block) and a
// default layer group.
func (f *keyFlags) registerWithDefaults(fs *pflag.FlagSet, scopeFlags bool, defaultT int, defaultLG string) {
	f.defaultLayerGroup = defaultLG
	tHelp := fmt.Sprintf("tokens per block T, 1..%d, TensorRT-LLM's tokens_per_block (or kv_cache_config.tokens_per_block from --llm-config)", keys.MaxTokensPerBlock)
	fs.IntVar(&f.TokensPerBlock, "tokens-per-block", defaultT, tHelp)
	fs.IntVar(&f.Lookahead, "lookahead", 0, fmt.Sprintf("prompt lookahead L of a one-model MTP/EAGLE3 draft, 0..%d (default: from --llm-config's speculative_config)", keys.MaxLookahead))
	fs.StringVar(&f.Scheme, "scheme", "trtllm", "seed scheme: trtllm, trtllm-fork or trtllm-legacy")
	if scopeFlags {
		fs.StringVar(&f.CacheSalt, "cache-salt", "", "cache salt of the request")
		fs.Var(newDecimalInt64(&f.LoRATaskID, 0, 0, math.MaxInt64), "lora-task-id", "LoRA task id of the request, a decimal integer 0..2^63-1 (0 is a task id, not 'none')")
		fs.StringArrayVar(&f.MMHashes, "mm-hash", nil, "multimodal item hash as 8 comma-separated int32 values, in prompt order (repeatable)")
	}
	fs.StringVar(&f.Namespace, "namespace", "", "first segment of every page key, spelled as given, empty included (default: namespace from the Mooncake config, or under trtllm-fork and trtllm-legacy $"+connector.CachePrefixEnv+" or its cache_prefix; else trtllm)")
	fs.StringVar(&f.ModelKey, "model-key", "", "model key of the page keys (default: the Mooncake config's model_key)")
	fs.IntVar(&f.TP, "tp", 1, fmt.Sprintf("tensor-parallel size 1..%d: shards are keyed w{tp}r{rank}", keys.MaxWorld))
	fs.IntVar(&f.Rank, "rank", 0, "TP rank whose shard is keyed, 0..tp-1")
	fs.BoolVar(&f.AllRanks, "all-ranks", false, "key every TP rank's shard, as a TP lookup asks for them")
	fs.Var(&f.AttentionDP, "attention-dp", "attention data parallelism, TensorRT-LLM's enable_attention_dp: every owner keys whole pages w1r0, and --tp is the number of owners (serve runs them) (default: enable_attention_dp from --llm-config)")
	fs.Lookup("attention-dp").NoOptDefVal = "true"
	fs.StringArrayVar(&f.LayerGroups, "layer-group", nil, "layer group as ID:BYTES_PER_PAGE, e.g. 0:64KiB (repeatable; default "+defaultLG+", docs/keys.md says why)")
	fs.StringArrayVar(&f.Replicated, "replicated-layer-group", nil, "replicated layer group as ID:BYTES_PER_PAGE, keyed 'replicated' (repeatable)")
	fs.BoolVar(&f.GroupKeys, "group-keys", false, "also spell each block's eviction group key")
	fs.StringVar(&f.MooncakeConfig, "mooncake-config", "", "Mooncake client JSON (default $MOONCAKE_CONFIG_PATH): namespace (cache_prefix under trtllm-fork and trtllm-legacy), model_key, and a mooncake-store:// pool's client settings")
	fs.StringVar(&f.LLMConfig, "llm-config", "", "TensorRT-LLM extra LLM-API YAML: tokens_per_block, enable_attention_dp, speculative_config")
}

// describeModelKeyDefault makes --model-key's help say the command's own
// default, for a command that has one where the Mooncake config gives none.
func describeModelKeyDefault(fs *pflag.FlagSet, modelKey string) {
	fs.Lookup("model-key").Usage = "model key of the page keys (default: the Mooncake config's model_key, else " + modelKey + ")"
}

// resolve builds the key settings: the seed scheme (which decides how the
// files are read), then the configuration files and the environment, then
// the flags, which win over both, then one check (Settings.Validate). A
// namespace none of them names is keys.DefaultNamespace.
func (f *keyFlags) resolve(c *cobra.Command, getenv func(string) string) (keys.Settings, error) {
	s := keys.Settings{Scheme: keys.Scheme(f.Scheme), Namespace: keys.Namespace{Name: keys.DefaultNamespace}}
	if err := f.applyFiles(c.ErrOrStderr(), getenv, &s); err != nil {
		return s, err
	}
	connector.ApplyKeysEnv(&s, getenv)
	if err := f.applyFlags(c, &s); err != nil {
		return s, err
	}
	if err := f.Engines.apply(c, &s); err != nil {
		return s, err
	}
	return s, nameFlag(c, s.Validate())
}

// rangeFlags are the key flags whose values keys.Settings.Validate ranges,
// by the setting's name in keys.RangeError.
var rangeFlags = map[string]string{
	keys.SettingTokensPerBlock: "tokens-per-block",
	keys.SettingLookahead:      "lookahead",
	keys.SettingWorld:          "tp",
}

// nameFlag prefixes err with the flag that gave the setting out of range,
// where a flag gave it.
func nameFlag(c *cobra.Command, err error) error {
	var re *keys.RangeError
	if !errors.As(err, &re) {
		return err
	}
	if name, ok := rangeFlags[re.Setting]; ok && c.Flags().Changed(name) {
		return fmt.Errorf("--%s: %w", name, err)
	}
	return err
}

// applyFiles applies the Mooncake JSON (--mooncake-config, else
// $MOONCAKE_CONFIG_PATH) and the LLM-API YAML (--llm-config) onto s, and
// writes the YAML's warnings (likely misspelt keys) to errOut.
func (f *keyFlags) applyFiles(errOut io.Writer, getenv func(string) string, s *keys.Settings) error {
	path := f.MooncakeConfig
	if path == "" {
		path = getenv("MOONCAKE_CONFIG_PATH")
	}
	if path != "" {
		mc, err := connector.LoadMooncakeConfig(path)
		if err != nil {
			return asUsage(err)
		}
		mc.ApplyKeys(s)
	}
	if f.LLMConfig == "" {
		return nil
	}
	lc, err := connector.LoadLLMConfig(f.LLMConfig)
	if err != nil {
		return asUsage(err)
	}
	for _, w := range lc.Warnings {
		fmt.Fprintf(errOut, "warning: --llm-config %q: %s\n", f.LLMConfig, w)
	}
	lc.ApplyKeys(s)
	return nil
}

// applyFlags sets the flags onto s: a flag given on the command line
// always (--namespace "" included: an empty first segment), a default
// only where the files left the field unset.
func (f *keyFlags) applyFlags(c *cobra.Command, s *keys.Settings) error {
	given := c.Flags().Changed
	if given("tokens-per-block") || s.Layout.TokensPerBlock == 0 {
		s.Layout.TokensPerBlock = f.TokensPerBlock
	}
	if given("lookahead") {
		s.Lookahead = f.Lookahead
	}
	if given("namespace") {
		s.Namespace.Name = f.Namespace
	}
	if given("model-key") || s.Namespace.ModelKey == "" {
		s.Namespace.ModelKey = f.ModelKey
	}
	var err error
	if s.Scope, err = f.scope(c); err != nil {
		return err
	}
	if err := f.shards(given, &s.Layout); err != nil {
		return err
	}
	return f.layerGroups(&s.Layout)
}

func (f *keyFlags) scope(c *cobra.Command) (keys.Scope, error) {
	sc := keys.Scope{CacheSalt: f.CacheSalt}
	if c.Flags().Changed("lora-task-id") {
		id := f.LoRATaskID
		sc.LoRATaskID = &id
	}
	for _, h := range f.MMHashes {
		v, err := parseMMHash(h)
		if err != nil {
			return sc, asUsage(fmt.Errorf("--mm-hash %q: %w", h, err))
		}
		sc.Multimodal = append(sc.Multimodal, v)
	}
	return sc, nil
}

// parseMMHash parses "a,b,c,d,e,f,g,h" into 8 int32 values.
func parseMMHash(s string) ([8]int32, error) {
	var out [8]int32
	parts := strings.Split(s, ",")
	if len(parts) != 8 {
		return out, fmt.Errorf("want 8 comma-separated int32 values, got %d", len(parts))
	}
	for i, p := range parts {
		v, err := strconv.ParseInt(strings.TrimSpace(p), 10, 32)
		if err != nil {
			return out, fmt.Errorf("value %d %q is not an int32", i+1, p)
		}
		out[i] = int32(v)
	}
	return out, nil
}

// shards sets the world size and the keyed ranks from --tp, --rank,
// --all-ranks and --attention-dp, and the number of attention-DP owners.
// Under attention DP every owner keys whole pages w1r0 and --tp is the
// number of owners, as in TensorRT-LLM; where the LLM-API YAML chose it
// (enable_attention_dp, l.World already set), it stands unless
// --attention-dp is given.
func (f *keyFlags) shards(given func(string) bool, l *keys.Layout) error {
	fromFile := l.World > 0 && !given("attention-dp")
	rankFlags := f.Rank != 0 || f.AllRanks
	switch {
	case f.AttentionDP.on && rankFlags:
		return usagef("--attention-dp keys every owner w1r0: --rank and --all-ranks do not apply (--tp is the number of owners)")
	case fromFile && rankFlags:
		return usagef("enable_attention_dp in --llm-config keys every owner w1r0: --rank and --all-ranks do not apply (give --attention-dp=false to key TP shards)")
	case f.AllRanks && f.Rank != 0:
		return usagef("--all-ranks and --rank cannot go together")
	case f.AttentionDP.on || fromFile:
		l.World, l.Ranks = 1, []int{0}
		return f.countOwners(given("tp"))
	}
	f.owners = 0
	l.World, l.Ranks = f.TP, []int{f.Rank}
	if f.AllRanks && f.TP <= keys.MaxWorld { // Validate refuses a larger one
		l.Ranks = make([]int, max(0, f.TP))
		for i := range l.Ranks {
			l.Ranks[i] = i
		}
	}
	return nil
}

// countOwners sets the number of attention-DP owners: --tp, or the count
// of --attention-dp's old form.
func (f *keyFlags) countOwners(tpGiven bool) error {
	old := f.AttentionDP.owners
	switch {
	case f.TP < 1 || f.TP > keys.MaxWorld:
		return usagef("--tp: world size %d is outside 1..%d", f.TP, keys.MaxWorld)
	case old > 0 && tpGiven && old != f.TP:
		return usagef("--attention-dp %d and --tp %d disagree: the number of attention-DP owners is the TP size (give --tp %d --attention-dp)", old, f.TP, old)
	case old > 0:
		f.owners = old
	default:
		f.owners = f.TP
	}
	return nil
}

// layerGroups sets the layer groups from --layer-group (or the default)
// and --replicated-layer-group.
func (f *keyFlags) layerGroups(l *keys.Layout) error {
	specs := f.LayerGroups
	if len(specs) == 0 {
		specs = []string{f.defaultLayerGroup}
	}
	var err error
	if l.LayerGroups, err = parseLayerGroups("--layer-group", specs); err != nil {
		return err
	}
	l.Replicated, err = parseLayerGroups("--replicated-layer-group", f.Replicated)
	return err
}

func parseLayerGroups(flag string, specs []string) ([]keys.LayerGroup, error) {
	var out []keys.LayerGroup
	for _, s := range specs {
		lg, err := keys.ParseLayerGroup(s)
		if err != nil {
			return nil, asUsage(fmt.Errorf("%s %q: %w", flag, s, err))
		}
		out = append(out, lg)
	}
	return out, nil
}
