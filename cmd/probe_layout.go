package cmd

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/holes"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// The values of --layout.
const (
	layoutAuto     = "auto"
	layoutExplicit = "explicit"
)

// layoutFlagNames are the flags (and the file) that give a layout: with
// any of them, --layout auto keeps to what they say.
var layoutFlagNames = []string{"tokens-per-block", "layer-group", "replicated-layer-group", "tp", "rank", "all-ranks", "attention-dp", "llm-config"}

// probeLayout is --layout of a command that probes a pool for the page
// keys its key flags spell (holes --pool, pool exist --tokens): whether
// the layout is read from the pool's own keys, and why a probe with an
// explicit layout found nothing.
type probeLayout struct {
	mode     string
	fromPool bool // read the layout from the pool (--layout auto)
}

// register registers --layout onto fs.
func (p *probeLayout) register(fs *pflag.FlagSet) {
	fs.StringVar(&p.mode, "layout", layoutAuto, "auto: given no layout flag (--tokens-per-block, --layer-group, --tp, ... --llm-config), read the layout from the pool's own keys (TensorRT-LLM's only: off with another --engine); explicit: the flags and their defaults")
}

// decide decides, before key resolves its flags, whether the layout is
// read from the pool; T, which resolve requires, is then a placeholder
// until the pool says. Only TensorRT-LLM's layouts are read from a pool:
// with another engine the flags give the layout.
func (p *probeLayout) decide(c *cobra.Command, key *keyFlags) error {
	auto, err := wantsPoolLayout(c, p.mode)
	if err != nil {
		return err
	}
	auto = auto && (key.Engines.Engine == "" || key.Engines.Engine == string(keys.EngineTRTLLM))
	p.fromPool = auto
	if auto {
		key.TokensPerBlock = placeholderT
	}
	return nil
}

// apply reads the layout of s's model from st into s, when decide said
// to, saying on stderr what it found (layoutFromPool).
func (p *probeLayout) apply(ctx context.Context, ios *IOStreams, st pool.Store, s *keys.Settings) error {
	if !p.fromPool {
		return nil
	}
	var err error
	s.Layout, err = layoutFromPool(ctx, ios, st, *s)
	return err
}

// explainMiss says why a probe of blocks blocks that hit none found
// nothing, when the layout was TensorRT-LLM's and explicit and a sample of
// the pool shows why (diagnoseMiss), and warns of it on stderr. It returns
// "" otherwise.
func (p *probeLayout) explainMiss(ctx context.Context, ios *IOStreams, st pool.Store, s keys.Settings, hitBlocks, blocks int64) string {
	if p.fromPool || hitBlocks > 0 || blocks == 0 || !s.IsTRTLLM() {
		return ""
	}
	d := diagnoseMiss(ctx, st, s)
	if d != "" {
		fmt.Fprintf(ios.ErrOut, "warning: no block found: %s\n", d)
	}
	return d
}

// wantsPoolLayout says whether the layout is to be read from the pool:
// --layout auto and no flag that gives a layout. It refuses an unknown
// --layout.
func wantsPoolLayout(c *cobra.Command, mode string) (bool, error) {
	switch mode {
	case layoutExplicit:
		return false, nil
	case layoutAuto:
		return !slices.ContainsFunc(layoutFlagNames, c.Flags().Changed), nil
	}
	return false, usagef("--layout %q: want auto or explicit", mode)
}

// placeholderT is T while the layout is still to be read from the pool.
const placeholderT = connector.DefaultTokensPerBlock

// layoutFromPool reads the layout of s's model from a sample of st's keys
// and says on stderr what it found. With none found it keeps s's (the
// default) and says so; with several it refuses, listing them.
func layoutFromPool(ctx context.Context, ios *IOStreams, st pool.Store, s keys.Settings) (keys.Layout, error) {
	sample, err := holes.Sample(ctx, st, s.Namespace)
	switch {
	case errors.Is(err, holes.ErrNoListing):
		fmt.Fprintf(ios.ErrOut, "note: %v: using the default layout (%s); give --layer-group and --tokens-per-block to change it\n", err, s.Layout)
		return s.Layout, nil
	case err != nil:
		return s.Layout, fmt.Errorf("reading the layout from the pool's keys: %w", err)
	}
	switch len(sample.Layouts) {
	case 0:
		fmt.Fprintf(ios.ErrOut, "note: the pool holds no pages under %s%s: using the default layout (%s)\n", s.Namespace.KeyPrefix(), otherModels(sample, s.Namespace), s.Layout)
		return s.Layout, nil
	case 1:
		fmt.Fprintf(ios.ErrOut, "layout from the pool: %s (--layout explicit to use the flags' defaults)\n", sample.Layouts[0])
		return sample.Layouts[0], nil
	}
	var b strings.Builder
	for _, l := range sample.Layouts {
		fmt.Fprintf(&b, "\n  %s: pass %s", l, layoutFlags(l))
	}
	return s.Layout, usagef("the pool holds pages of %d layouts under %s; pick one with its flags:%s", len(sample.Layouts), s.Namespace.KeyPrefix(), b.String())
}

// otherModels names the other models a sample found, as a clause.
func otherModels(sample holes.PoolSample, ns keys.Namespace) string {
	if len(sample.OtherPrefixes) == 0 {
		return ""
	}
	var names []string
	for _, p := range sample.OtherPrefixes {
		names = append(names, "--model-key "+strings.TrimSuffix(strings.TrimPrefix(p, ns.Name+"/"), "/"))
	}
	return fmt.Sprintf(" (it holds pages of other models under %s/: pass %s)", ns.Name, strings.Join(names, " or "))
}

// diagnoseMiss says why a probe with an explicit layout found nothing,
// when a sample of the pool's keys shows why: the model's pages have
// another layout (the first key segment that differs), or only other
// models have pages under the namespace. It returns "" when it cannot say.
func diagnoseMiss(ctx context.Context, st pool.Store, s keys.Settings) string {
	sample, err := holes.Sample(ctx, st, s.Namespace)
	if err != nil {
		return ""
	}
	if len(sample.Layouts) == 0 {
		if o := otherModels(sample, s.Namespace); o != "" {
			return fmt.Sprintf("the pool holds no pages under %s%s", s.Namespace.KeyPrefix(), o)
		}
		return ""
	}
	if slices.ContainsFunc(sample.Layouts, func(l keys.Layout) bool { return l.String() == s.Layout.String() }) {
		return ""
	}
	l := sample.Layouts[0]
	held, asked := segmentDiff(l, s.Layout)
	return fmt.Sprintf("the pool holds %s pages under %s; you asked for %s: pass %s", held, s.Namespace.KeyPrefix(), asked, layoutDiffFlags(l, s.Layout))
}

// segmentDiff returns the first key segment in which the page keys of
// layouts a and b differ, as a spells it and as b does.
func segmentDiff(a, b keys.Layout) (string, string) {
	pa, pb := a.PageSegments(), b.PageSegments()
	for i := range min(len(pa), len(pb)) {
		sa, sb := strings.Split(pa[i], "/"), strings.Split(pb[i], "/")
		for j := range min(len(sa), len(sb)) {
			if sa[j] != sb[j] {
				return sa[j], sb[j]
			}
		}
	}
	return strconv.Itoa(len(pa)) + "-page", strconv.Itoa(len(pb)) + "-page"
}

// layoutFlags spells the flags that give layout l.
func layoutFlags(l keys.Layout) string {
	return layoutDiffFlags(l, keys.Layout{})
}

// layoutDiffFlags spells the flags that turn layout from into want: those
// of the parts in which they differ.
func layoutDiffFlags(want, from keys.Layout) string {
	var f []string
	if want.TokensPerBlock != from.TokensPerBlock {
		f = append(f, "--tokens-per-block "+strconv.Itoa(want.TokensPerBlock))
	}
	if !slices.Equal(want.LayerGroups, from.LayerGroups) {
		for _, lg := range want.LayerGroups {
			f = append(f, "--layer-group "+lg.String())
		}
	}
	if !slices.Equal(want.Replicated, from.Replicated) {
		for _, lg := range want.Replicated {
			f = append(f, "--replicated-layer-group "+lg.String())
		}
	}
	defaultShard := from.World == 0 && want.World == 1 && slices.Equal(want.Ranks, []int{0})
	if len(want.LayerGroups) > 0 && !defaultShard && (want.World != from.World || !slices.Equal(want.Ranks, from.Ranks)) {
		f = append(f, shardFlags(want))
	}
	return strings.Join(f, " ")
}

// shardFlags spells the flags of l's world and ranks.
func shardFlags(l keys.Layout) string {
	switch {
	case len(l.Ranks) == l.World && l.World > 1:
		return fmt.Sprintf("--tp %d --all-ranks", l.World)
	case len(l.Ranks) == 1:
		return fmt.Sprintf("--tp %d --rank %d", l.World, l.Ranks[0])
	}
	return fmt.Sprintf("--tp %d (ranks %v: one at a time with --rank)", l.World, l.Ranks)
}
