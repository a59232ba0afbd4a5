package stats

import (
	"encoding/json"
	"fmt"
	"strings"
)

// RequestHoles describe the pool's view of one request's prompt blocks.
type RequestHoles struct {
	// ID names the request; Analyze leaves it empty.
	ID string `json:"id"`
	// Blocks is the number of blocks examined (full blocks of the prompt).
	Blocks int64 `json:"blocks"`
	// HitBlocks is the number of leading present blocks.
	HitBlocks int64 `json:"hit_blocks"`
	// Holes is the number of maximal runs of missing blocks followed,
	// later, by a present block.
	Holes int64 `json:"holes"`
	// HoleBlocks is the number of missing blocks inside holes.
	HoleBlocks int64 `json:"hole_blocks"`
	// BehindHoleBlocks is the number of present blocks after the first
	// missing one: stored but unreachable.
	BehindHoleBlocks int64 `json:"behind_hole_blocks"`
	// RecomputedTokens is BehindHoleBlocks * TokensPerBlock.
	RecomputedTokens int64 `json:"recomputed_tokens"`
	// PromptTokens is the prompt's length; Analyze sets Blocks *
	// TokensPerBlock, and callers that know the exact length replace it.
	PromptTokens int64 `json:"prompt_tokens"`
	// TokensPerBlock is the block size the request was analysed with.
	TokensPerBlock int64 `json:"-"`
	// Map has one character per block: '#' present, '.' missing.
	Map string `json:"map"`
}

// Analyze computes the hole statistics of one request from the presence of
// each of its blocks, in prompt order, with blocks of tokensPerBlock tokens.
func Analyze(present []bool, tokensPerBlock int) RequestHoles {
	r := AnalyzeCounts(present, tokensPerBlock)
	r.Map = HoleMap(present)
	return r
}

// AnalyzeCounts is Analyze without the map string; it does not allocate.
func AnalyzeCounts(present []bool, tokensPerBlock int) RequestHoles {
	t := int64(tokensPerBlock)
	n := len(present)
	r := RequestHoles{Blocks: int64(n), PromptTokens: int64(n) * t, TokensPerBlock: t}
	i := 0
	for i < n && present[i] {
		i++
	}
	r.HitBlocks = int64(i)
	run := int64(0) // missing blocks since the last present one
	for ; i < n; i++ {
		if !present[i] {
			run++
			continue
		}
		if run > 0 {
			r.Holes++
			r.HoleBlocks += run
			run = 0
		}
		r.BehindHoleBlocks++
	}
	r.RecomputedTokens = r.BehindHoleBlocks * t
	return r
}

// HoleMap renders block presence as one character per block: '#' for a
// present block, '.' for a missing one.
func HoleMap(present []bool) string {
	var b strings.Builder
	b.Grow(len(present))
	for _, p := range present {
		if p {
			b.WriteByte('#')
		} else {
			b.WriteByte('.')
		}
	}
	return b.String()
}

// BlockPresence folds per-page exist statuses into per-block presence. The
// pages of block i are status[i*pagesPerBlock : (i+1)*pagesPerBlock] (for
// example one page per layer group); a block is present only when every
// one of its pages has status 1. Status 0 (absent) and negative statuses
// (a failed probe) count as missing.
func BlockPresence(status []int, pagesPerBlock int) ([]bool, error) {
	if pagesPerBlock <= 0 {
		return nil, fmt.Errorf("pages per block %d is not positive", pagesPerBlock)
	}
	if len(status)%pagesPerBlock != 0 {
		return nil, fmt.Errorf("%d page statuses are not a whole number of blocks of %d pages",
			len(status), pagesPerBlock)
	}
	present := make([]bool, len(status)/pagesPerBlock)
	for i := range present {
		ok := true
		for _, s := range status[i*pagesPerBlock : (i+1)*pagesPerBlock] {
			ok = ok && s == 1
		}
		present[i] = ok
	}
	return present, nil
}

// Holes aggregate prefix-hole statistics over requests and lookups. The
// zero value is ready to use; it is not safe for concurrent use
// (HolesRecorder is).
type Holes struct {
	// Requests is the number of requests counted.
	Requests int64 `json:"requests"`
	// Lookups is the number of lookups; a request may be looked up again
	// (after a restart).
	Lookups int64 `json:"lookups"`
	// Blocks is the number of full prompt blocks of the requests.
	Blocks int64 `json:"blocks"`
	// LookedUpBlocks is the number of blocks the lookups examined.
	LookedUpBlocks   int64 `json:"looked_up_blocks"`
	HitBlocks        int64 `json:"hit_blocks"`
	Holes            int64 `json:"holes"`
	HoleBlocks       int64 `json:"hole_blocks"`
	BehindHoleBlocks int64 `json:"behind_hole_blocks"`
	RecomputedTokens int64 `json:"recomputed_tokens"`
	// PromptTokens is the total prompt length of the requests.
	PromptTokens int64 `json:"prompt_tokens"`
	// HitTokens is the tokens covered by hit blocks.
	HitTokens int64 `json:"hit_tokens"`
}

// Add counts one request and its lookup: AddRequest then AddLookup.
func (h *Holes) Add(r RequestHoles) {
	h.AddRequest(r.PromptTokens, r.Blocks)
	h.AddLookup(r)
}

// AddRequest counts one request of promptTokens tokens and blocks full
// blocks, without a lookup.
func (h *Holes) AddRequest(promptTokens, blocks int64) {
	h.Requests++
	h.PromptTokens += promptTokens
	h.Blocks += blocks
}

// AddLookup counts one lookup over r.Blocks blocks, without counting a
// request (as when a restarted request is looked up again).
func (h *Holes) AddLookup(r RequestHoles) {
	h.Lookups++
	h.LookedUpBlocks += r.Blocks
	h.HitBlocks += r.HitBlocks
	h.HitTokens += r.HitBlocks * r.TokensPerBlock
	h.Holes += r.Holes
	h.HoleBlocks += r.HoleBlocks
	h.BehindHoleBlocks += r.BehindHoleBlocks
	h.RecomputedTokens += r.RecomputedTokens
}

// Merge adds o's counts to h.
func (h *Holes) Merge(o Holes) {
	h.Requests += o.Requests
	h.Lookups += o.Lookups
	h.Blocks += o.Blocks
	h.LookedUpBlocks += o.LookedUpBlocks
	h.HitBlocks += o.HitBlocks
	h.Holes += o.Holes
	h.HoleBlocks += o.HoleBlocks
	h.BehindHoleBlocks += o.BehindHoleBlocks
	h.RecomputedTokens += o.RecomputedTokens
	h.PromptTokens += o.PromptTokens
	h.HitTokens += o.HitTokens
}

// HitRate is the fraction of prompt tokens covered by hit blocks
// (hit_blocks * T / prompt tokens), 0 when no prompt tokens were counted.
func (h Holes) HitRate() float64 {
	if h.PromptTokens == 0 {
		return 0
	}
	return float64(h.HitTokens) / float64(h.PromptTokens)
}

// BlockHitRate is the fraction of looked-up blocks that were hits.
func (h Holes) BlockHitRate() float64 {
	if h.LookedUpBlocks == 0 {
		return 0
	}
	return float64(h.HitBlocks) / float64(h.LookedUpBlocks)
}

// holesFields has Holes' fields without its methods, for JSON.
type holesFields Holes

// MarshalJSON writes h's fields and hit_rate.
func (h Holes) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		holesFields
		HitRate float64 `json:"hit_rate"`
	}{holesFields(h), h.HitRate()})
}

// UnmarshalJSON reads h's fields; hit_rate, derived, is ignored.
func (h *Holes) UnmarshalJSON(b []byte) error {
	return json.Unmarshal(b, (*holesFields)(h))
}
