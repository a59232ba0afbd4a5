package cmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/kvctl/kvctl/keys"
)

// keysResult is the JSON shape of one prompt's keys (docs/json.md).
type keysResult struct {
	ID              string      `json:"id,omitempty"`
	Scheme          keys.Scheme `json:"scheme"`
	TokensPerBlock  int         `json:"tokens_per_block"`
	PromptLookahead int         `json:"prompt_lookahead"`
	Seed            string      `json:"seed"`
	NumTokens       int         `json:"num_tokens"`
	NumBlocks       int         `json:"num_blocks"`
	OfferableBlocks int         `json:"offerable_blocks"`
	Blocks          []keysBlock `json:"blocks"`

	seq int // input order, for collected output
}

// keysBlock is one block of a keysResult.
type keysBlock struct {
	Index    int      `json:"index"`
	Start    int      `json:"start"`
	End      int      `json:"end"`
	Hash     string   `json:"hash"`
	PageKeys []string `json:"page_keys,omitempty"`
	GroupKey string   `json:"group_key,omitempty"`
}

// computeKeys hashes one prompt and spells its keys.
func computeKeys(s keySetup, id string, scope keys.Scope, tokens []int64) (keysResult, error) {
	seed, err := keys.Seed(s.Scheme, scope, s.Lookahead)
	if err != nil {
		return keysResult{}, err
	}
	T := s.Layout.TokensPerBlock
	chain, err := keys.NewChain(seed, T, s.Lookahead)
	if err != nil {
		return keysResult{}, err
	}
	chain.Extend(tokens)
	n := chain.NumBlocks()
	res := keysResult{
		ID: id, Scheme: s.Scheme, TokensPerBlock: T, PromptLookahead: s.Lookahead,
		Seed: seed.String(), NumTokens: len(tokens), NumBlocks: n,
		OfferableBlocks: keys.OfferableBlocks(len(tokens), T, n),
		Blocks:          make([]keysBlock, n),
	}
	for i, h := range chain.Hashes() {
		b := keysBlock{Index: i, Start: i * T, End: (i + 1) * T, Hash: h.String()}
		if s.Namespace.ModelKey != "" {
			b.PageKeys = s.Namespace.AppendBlockKeys(nil, s.Layout, h)
			if s.GroupKeys {
				b.GroupKey = s.Namespace.GroupKey(s.Layout.World, h)
			}
		}
		res.Blocks[i] = b
	}
	return res, nil
}

// appendKeyLines appends one page key per line (then the group key, with
// --group-keys).
func appendKeyLines(dst []byte, r keysResult) []byte {
	for _, b := range r.Blocks {
		for _, k := range b.PageKeys {
			dst = append(append(dst, k...), '\n')
		}
		if b.GroupKey != "" {
			dst = append(append(dst, b.GroupKey...), '\n')
		}
	}
	return dst
}

func sortKeysResults(rs []keysResult) {
	slices.SortFunc(rs, func(a, b keysResult) int { return a.seq - b.seq })
}

// printKeysTable prints one prompt's blocks, marking the offerable ones.
func printKeysTable(ios *IOStreams, r keysResult) error {
	tp := newTablePrinter(ios, "block", "tokens", "offer", "hash", "keys")
	sep := " "
	if ios.OutTTY {
		sep = "\n"
	}
	for _, b := range r.Blocks {
		offer := ""
		if b.Index < r.OfferableBlocks {
			offer = "*"
		}
		ks := b.PageKeys
		if b.GroupKey != "" {
			ks = append(slices.Clip(ks), "group "+b.GroupKey)
		}
		tp.addRow(b.Index, fmt.Sprintf("%d-%d", b.Start, b.End), offer, b.Hash, strings.Join(ks, sep))
	}
	tp.styleCell = func(rd *lipgloss.Renderer, _, col int, s string) string {
		if col == 2 && s != "" {
			return rd.NewStyle().Foreground(lipgloss.Color("2")).Render(s)
		}
		return s
	}
	if err := tp.render(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(ios.Out, "scheme %s, seed %s, %d tokens, %d blocks of %d, %d offerable (*)\n",
		r.Scheme, r.Seed, r.NumTokens, r.NumBlocks, r.TokensPerBlock, r.OfferableBlocks)
	return err
}

// printRequestsTable prints one row per request.
func printRequestsTable(ios *IOStreams, rs []keysResult) error {
	tp := newTablePrinter(ios, "id", "tokens", "blocks", "offerable", "last hash")
	for _, r := range rs {
		last := "-"
		if n := len(r.Blocks); n > 0 {
			last = r.Blocks[n-1].Hash
		}
		tp.addRow(r.ID, r.NumTokens, r.NumBlocks, r.OfferableBlocks, last)
	}
	return tp.render()
}
