package keys

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/kvctl/kvctl/size"
)

// Shard names whose copy of a page a key addresses: one tensor-parallel
// rank's shard (w{World}r{Rank}; attention data parallelism keys every
// owner w1r0), or a page every rank holds identically ("replicated").
type Shard struct {
	World, Rank int
	Replicated  bool
}

// String spells the shard as it appears in a key.
func (s Shard) String() string {
	return string(s.appendTo(nil))
}

func (s Shard) appendTo(b []byte) []byte {
	if s.Replicated {
		return append(b, "replicated"...)
	}
	b = append(b, 'w')
	b = strconv.AppendInt(b, int64(s.World), 10)
	b = append(b, 'r')
	return strconv.AppendInt(b, int64(s.Rank), 10)
}

// LayerGroup is one layer group of the KV cache: its id and the size of
// one page of it on one rank (the sum of its regions).
type LayerGroup struct {
	ID           int
	BytesPerPage int64
}

// ParseLayerGroup parses "ID:BYTES", such as "0:64KiB" or "1:4096"; BYTES
// is an integer or a number with a binary unit.
func ParseLayerGroup(s string) (LayerGroup, error) {
	idText, bytesText, ok := strings.Cut(s, ":")
	if !ok {
		return LayerGroup{}, errors.New("want ID:BYTES_PER_PAGE, such as 0:64KiB")
	}
	id, err := strconv.Atoi(strings.TrimSpace(idText))
	if err != nil || id < 0 {
		return LayerGroup{}, fmt.Errorf("layer group id %q is not a non-negative integer", idText)
	}
	n, err := size.Parse(bytesText)
	if err != nil {
		return LayerGroup{}, fmt.Errorf("bytes per page: %w", err)
	}
	if n <= 0 {
		return LayerGroup{}, fmt.Errorf("bytes per page must be positive, got %d", n)
	}
	return LayerGroup{ID: id, BytesPerPage: n}, nil
}

// Layout is what decides the page keys of one block.
type Layout struct {
	// TokensPerBlock is T, spelled in every page key.
	TokensPerBlock int
	// LayerGroups are sharded per rank: one page per group per rank.
	LayerGroups []LayerGroup
	// Replicated layer groups have one page per block, keyed "replicated".
	Replicated []LayerGroup
	// World is the tensor-parallel size; 1 for a single rank and for
	// attention data parallelism (every owner keys w1r0).
	World int
	// Ranks are the ranks whose shards are spelled: one rank, or every
	// rank 0..World-1 (a TP lookup needs every rank's shard).
	Ranks []int
}

// Validate checks the layout: T in 1..MaxTokensPerBlock, World in
// 1..MaxWorld (errors *RangeError), at least one rank, ranks
// in [0, World) without repeats, at least one layer group, positive page
// sizes and no layer-group id twice in the same list.
func (l Layout) Validate() error {
	if err := checkRange(SettingTokensPerBlock, int64(l.TokensPerBlock), 1, MaxTokensPerBlock); err != nil {
		return err
	}
	if err := checkRange(SettingWorld, int64(l.World), 1, MaxWorld); err != nil {
		return err
	}
	if len(l.LayerGroups) > 0 && len(l.Ranks) == 0 {
		return errors.New("no ranks: give the rank whose shard is keyed")
	}
	seen := make(map[int]bool, len(l.Ranks))
	for _, r := range l.Ranks {
		if r < 0 || r >= l.World {
			return fmt.Errorf("rank %d is outside world size %d (want 0..%d)", r, l.World, l.World-1)
		}
		if seen[r] {
			return fmt.Errorf("rank %d appears twice", r)
		}
		seen[r] = true
	}
	if len(l.LayerGroups)+len(l.Replicated) == 0 {
		return errors.New("no layer groups")
	}
	if err := checkLayerGroups("layer group", l.LayerGroups); err != nil {
		return err
	}
	return checkLayerGroups("replicated layer group", l.Replicated)
}

func checkLayerGroups(what string, lgs []LayerGroup) error {
	seen := make(map[int]bool, len(lgs))
	for _, lg := range lgs {
		if lg.ID < 0 {
			return fmt.Errorf("%s id must not be negative, got %d", what, lg.ID)
		}
		if lg.BytesPerPage <= 0 {
			return fmt.Errorf("%s %d: bytes per page must be positive, got %d", what, lg.ID, lg.BytesPerPage)
		}
		if seen[lg.ID] {
			return fmt.Errorf("%s %d appears twice", what, lg.ID)
		}
		seen[lg.ID] = true
	}
	return nil
}

// PagesPerBlock returns how many page keys one block has: one per sharded
// layer group per rank, plus one per replicated layer group.
func (l Layout) PagesPerBlock() int {
	return len(l.LayerGroups)*len(l.Ranks) + len(l.Replicated)
}
