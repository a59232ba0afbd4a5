package cmd

import (
	"bufio"
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

// keysSpelling is how results are spelled: the key settings, the page-key
// speller (nil without a model key) and whether group keys are spelled.
type keysSpelling struct {
	keys.Settings
	pages     *keys.BlockKeys
	groupKeys bool
}

func newKeysSpelling(s keys.Settings, groupKeys bool) keysSpelling {
	sp := keysSpelling{Settings: s, groupKeys: groupKeys}
	if s.Namespace.ModelKey != "" {
		bk := s.BlockKeys()
		sp.pages = &bk
	}
	return sp
}

// computeKeys hashes one prompt and spells its keys.
func computeKeys(sp keysSpelling, tokens []int64) (keysResult, error) {
	chain, err := sp.NewChain(sp.Scope)
	if err != nil {
		return keysResult{}, err
	}
	chain.Extend(tokens)
	return sp.result("", len(tokens), chain), nil
}

// result builds the result of a hashed prompt of numTokens tokens.
func (sp keysSpelling) result(id string, numTokens int, chain *keys.Chain) keysResult {
	T, n := sp.TokensPerBlock(), chain.NumBlocks()
	res := keysResult{
		ID: id, Scheme: sp.SeedScheme(), TokensPerBlock: T, PromptLookahead: sp.Lookahead,
		Seed: chain.Seed().String(), NumTokens: numTokens, NumBlocks: n,
		OfferableBlocks: keys.OfferableBlocks(numTokens, T, n),
		Blocks:          make([]keysBlock, n),
	}
	for i, h := range chain.Hashes() {
		b := keysBlock{Index: i, Start: i * T, End: (i + 1) * T, Hash: h.String()}
		if sp.pages != nil {
			b.PageKeys = sp.pages.Append(nil, h)
			if sp.groupKeys {
				b.GroupKey = sp.GroupKey(h)
			}
		}
		res.Blocks[i] = b
	}
	return res
}

// keysSummary is a result with the counts and only the last block, which
// is all the requests table shows.
func keysSummary(T int, id string, numTokens int, c *keys.Chain) keysResult {
	n := c.NumBlocks()
	r := keysResult{ID: id, NumTokens: numTokens, NumBlocks: n, OfferableBlocks: keys.OfferableBlocks(numTokens, T, n)}
	if n > 0 {
		r.Blocks = []keysBlock{{Index: n - 1, Hash: c.Hash(n - 1).String()}}
	}
	return r
}

// appendChainKeys appends one page key per line for every block of a
// chain (then its group key, with --group-keys).
func (sp keysSpelling) appendChainKeys(dst []byte, c *keys.Chain) []byte {
	dst = slices.Grow(dst, c.NumBlocks()*sp.pages.LinesSize())
	for _, h := range c.Hashes() {
		dst = sp.pages.AppendLines(dst, h)
		if sp.groupKeys {
			dst = append(append(dst, sp.GroupKey(h)...), '\n')
		}
	}
	return dst
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

// printRequestsTable prints one row per request, through a buffer: the
// plain table is written a cell at a time.
func printRequestsTable(ios *IOStreams, rs []keysResult) error {
	buffered := *ios
	w := bufio.NewWriterSize(ios.Out, 64<<10)
	buffered.Out = w
	tp := newTablePrinter(&buffered, "id", "tokens", "blocks", "offerable", "last hash")
	for _, r := range rs {
		last := "-"
		if n := len(r.Blocks); n > 0 {
			last = r.Blocks[n-1].Hash
		}
		tp.addRow(r.ID, r.NumTokens, r.NumBlocks, r.OfferableBlocks, last)
	}
	if err := tp.render(); err != nil {
		return err
	}
	return w.Flush()
}
