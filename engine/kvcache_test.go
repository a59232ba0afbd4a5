package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/keys"
)

func newTestKV(t *testing.T, blocks int) *kvCache {
	t.Helper()
	pages, err := newPageMemory(connector.PageSlots(DefaultLayout(4), 0), blocks)
	if err != nil {
		t.Fatal(err)
	}
	return newKVCache(pages, 4, 1)
}

func hashes(prefix byte, n int) []keys.Hash {
	out := make([]keys.Hash, n)
	for i := range out {
		out[i] = keys.Hash{prefix, byte(i)}
	}
	return out
}

// cache allocates n blocks for hs, registers them and releases them.
func cache(t *testing.T, kv *kvCache, hs []keys.Hash) []int32 {
	t.Helper()
	var a allocation
	if !kv.grow(&a, len(hs)) {
		t.Fatalf("grow to %d blocks failed", len(hs))
	}
	for i, h := range hs {
		kv.register(&a, i, h)
	}
	blocks := append([]int32(nil), a.blocks...)
	kv.release(&a)
	return blocks
}

func TestRadixReuse(t *testing.T) {
	kv := newTestKV(t, 8)
	hs := hashes(1, 4)
	blocks := cache(t, kv, hs)
	tests := []struct {
		name   string
		hashes []keys.Hash
		limit  int
		want   int
	}{
		{"whole chain", hs, 10, 4},
		{"capped", hs, 2, 2},
		{"shared prefix, then a new block", append(hs[:2:2], keys.Hash{9}), 10, 2},
		{"another chain", hashes(2, 3), 10, 0},
	}
	for _, tt := range tests {
		var a allocation
		got := kv.match(&a, tt.hashes, tt.limit)
		if got != tt.want || !cmp.Equal(a.blocks, blocks[:got]) && got > 0 {
			t.Errorf("%s: match = %d blocks %v, want %d blocks %v", tt.name, got, a.blocks, tt.want, blocks[:tt.want])
		}
		kv.release(&a)
	}
	if total, free := kv.tree.cached(); total != 4 || free != 4 {
		t.Errorf("cached %d, reclaimable %d; want 4 and 4", total, free)
	}
}

func TestRadixLRUReclaim(t *testing.T) {
	kv := newTestKV(t, 6)
	old := cache(t, kv, hashes(1, 3))
	young := cache(t, kv, hashes(2, 3))
	// Touch the old chain's first block: it becomes the most recent.
	var a allocation
	kv.match(&a, hashes(1, 1), 1)
	kv.release(&a)
	if got := kv.available(); got != 6 {
		t.Fatalf("available = %d, want 6 (all cached blocks are reclaimable)", got)
	}
	var b allocation
	if !kv.grow(&b, 3) {
		t.Fatal("grow(3) failed")
	}
	// LRU order: old[2], old[1], young[2], young[1], young[0], old[0]
	// (the touch made old[0] the newest).
	want := []int32{old[2], old[1], young[2]}
	if !cmp.Equal(b.blocks, want) {
		t.Errorf("reclaimed blocks %v, want %v", b.blocks, want)
	}
	var m, n allocation
	if got := kv.match(&m, hashes(1, 3), 3); got != 1 {
		t.Errorf("old chain matches %d blocks after reclaim, want 1", got)
	}
	if got := kv.match(&n, hashes(2, 3), 3); got != 2 {
		t.Errorf("young chain matches %d blocks after reclaim, want 2", got)
	}
}

func TestRadixReferencedBlocksStay(t *testing.T) {
	kv := newTestKV(t, 3)
	cache(t, kv, hashes(1, 3))
	var held allocation
	kv.match(&held, hashes(1, 3), 3)
	var other allocation
	if kv.grow(&other, 1) {
		t.Error("grow succeeded while every block is referenced")
	}
	kv.release(&held)
	if !kv.grow(&other, 3) {
		t.Error("grow(3) failed after the release")
	}
}

func TestRadixDuplicateStaysPrivate(t *testing.T) {
	kv := newTestKV(t, 4)
	hs := hashes(1, 2)
	var a, b allocation
	kv.grow(&a, 2)
	kv.grow(&b, 2)
	for i, h := range hs {
		kv.register(&a, i, h)
		kv.register(&b, i, h)
	}
	if b.nodes[0] != nil || b.nodes[1] != nil || a.nodes[1] == nil {
		t.Fatal("second copy of a cached chain was cached, or the first was not")
	}
	kv.release(&b)
	if got := len(kv.free); got != 2 {
		t.Errorf("free blocks after releasing the private copy = %d, want 2", got)
	}
}

func TestReclaimDetachesChildren(t *testing.T) {
	kv := newTestKV(t, 4)
	hs := hashes(1, 3)
	var a allocation
	kv.grow(&a, 3)
	for i, h := range hs {
		kv.register(&a, i, h)
	}
	// Release the root first, so that it is reclaimed while its
	// descendants are still referenced.
	root := a.nodes[0]
	kv.tree.release(root)
	a.nodes[0] = nil
	a.blocks[0] = -1
	var b allocation
	kv.grow(&b, 2) // one free block, then the root
	if kv.tree.index.lookup(hs[1]) != nil || kv.tree.index.lookup(hs[2]) != nil {
		t.Fatal("descendants of a reclaimed block are still indexed")
	}
	if n := kv.match(&allocation{}, hs, 3); n != 0 {
		t.Errorf("match after the root was reclaimed = %d, want 0", n)
	}
	a.blocks, a.nodes = a.blocks[1:], a.nodes[1:]
	a.registered = 0
	kv.release(&a)
	if got := len(kv.free); got != 2 {
		t.Errorf("free blocks after releasing detached blocks = %d, want 2", got)
	}
}

func TestReuseMatchAlignmentValidation(t *testing.T) {
	tests := []struct {
		alignment, t int
		ok           bool
	}{
		{0, 32, true}, {1, 32, true}, {8, 32, true}, {32, 32, true},
		{-4, 32, false}, {3, 32, false}, {64, 32, false},
	}
	for _, tt := range tests {
		cfg, _ := testConfig(t)
		cfg.Keys.Layout = DefaultLayout(tt.t)
		cfg.Scheduler.ReuseMatchAlignment = tt.alignment
		_, err := newEngine(cfg)
		if (err == nil) != tt.ok {
			t.Errorf("newEngine with reuse_match_alignment %d, T %d = %v, want ok %v", tt.alignment, tt.t, err, tt.ok)
		}
	}
}

func TestLocalMatchBackoff(t *testing.T) {
	tests := []struct {
		backoff   string
		lookahead int
		align     int
		blocks    int
		want      int
	}{
		{BackoffOff, 0, 1, 3, 12},
		{BackoffOff, 2, 1, 3, 12},
		{BackoffAlign, 2, 1, 3, 8},
		{BackoffAlign, 2, 1, 0, 0},
		{BackoffAlign, 0, 2, 3, 12},
	}
	for _, tt := range tests {
		e := &engine{cfg: Config{Scheduler: SchedulerConfig{LocalReuseBackoff: tt.backoff}, Keys: keys.Settings{Lookahead: tt.lookahead}}, perBlock: 4,
			kv: &kvCache{alignment: tt.align, perBlock: 4}}
		if got := e.localMatch(tt.blocks); got != tt.want {
			t.Errorf("localMatch(%d blocks) with backoff %s, lookahead %d = %d, want %d", tt.blocks, tt.backoff, tt.lookahead, got, tt.want)
		}
	}
}
