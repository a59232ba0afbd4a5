package connector

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
	"github.com/kvctl/kvctl/pool/mem"
)

const testT = 4

var testLayout = keys.Layout{TokensPerBlock: testT, World: 1, Ranks: []int{0},
	LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 64}, {ID: 1, BytesPerPage: 32}}}

var testNS = keys.Namespace{ModelKey: "m"}

// fakePages is KV page memory for tests: blocks pages per slot, and the
// hash each block holds.
type fakePages struct {
	mem   [][]byte
	sizes []int64
	holds map[int32]keys.Hash
}

func newFakePages(l keys.Layout, blocks int) *fakePages {
	p := &fakePages{holds: map[int32]keys.Hash{}}
	for _, s := range PageSlots(l, 0) {
		p.mem = append(p.mem, make([]byte, int64(blocks)*s.Bytes))
		p.sizes = append(p.sizes, s.Bytes)
	}
	return p
}

func (p *fakePages) Page(slot int, block int32) []byte {
	n := p.sizes[slot]
	return p.mem[slot][int64(block)*n : int64(block+1)*n]
}

func (p *fakePages) Holds(block int32) (keys.Hash, bool) {
	h, ok := p.holds[block]
	return h, ok
}

// fill writes recognisable bytes into every page of block and records h.
func (p *fakePages) fill(block int32, h keys.Hash) {
	for s := range p.mem {
		pg := p.Page(s, block)
		for i := range pg {
			pg[i] = h[i%len(h)] ^ byte(s)
		}
	}
	p.holds[block] = h
}

// countingStore counts store calls and can report chosen keys missing at
// Get time.
type countingStore struct {
	pool.Store
	exists, leasing, gets, puts int
	missing                     map[string]bool
	// putKeys is the number of keys of each put call.
	putKeys []int
}

func (c *countingStore) Exist(ctx context.Context, k []string, s []int) error {
	c.exists++
	return c.Store.Exist(ctx, k, s)
}

func (c *countingStore) ExistLeasing(ctx context.Context, k []string, s []int) error {
	c.leasing++
	return c.Store.(pool.LeasingExister).ExistLeasing(ctx, k, s)
}

func (c *countingStore) Get(ctx context.Context, k []string, b [][]byte, n []int64) error {
	c.gets++
	if err := c.Store.Get(ctx, k, b, n); err != nil {
		return err
	}
	for i, key := range k {
		if c.missing[key] {
			n[i] = int64(pool.ObjectNotFound)
		}
	}
	return nil
}

func (c *countingStore) Put(ctx context.Context, it []pool.PutItem, r []pool.Code) error {
	c.puts++
	c.putKeys = append(c.putKeys, len(it))
	return c.Store.Put(ctx, it, r)
}

func newMem(t *testing.T) *mem.Store {
	t.Helper()
	s, err := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// chainOf returns the chain of tokens 0..n-1 (plus offset) with T=testT.
func chainOf(t *testing.T, n int, offset int64) *keys.Chain {
	t.Helper()
	seed, err := keys.Seed(keys.SchemeTRTLLM, keys.Scope{}, 0)
	if err != nil {
		t.Fatal(err)
	}
	c, err := keys.NewChain(seed, testT, 0)
	if err != nil {
		t.Fatal(err)
	}
	toks := make([]int64, n)
	for i := range toks {
		toks[i] = int64(i) + offset
	}
	c.Extend(toks)
	return c
}

// putBlocks stores every page of blocks [from, to) of chain in store.
func putBlocks(t *testing.T, store pool.Store, c *keys.Chain, from, to int) {
	t.Helper()
	var items []pool.PutItem
	for b := from; b < to; b++ {
		for _, s := range PageSlots(testLayout, 0) {
			k := testNS.PageKey(s.Shard, s.LayerGroup, testT, c.Hash(b))
			items = append(items, pool.PutItem{Key: k, Value: make([]byte, s.Bytes)})
		}
	}
	codes := make([]pool.Code, len(items))
	if err := store.Put(context.Background(), items, codes); err != nil {
		t.Fatal(err)
	}
}

// fixedProber answers every lookup with the same presence.
type fixedProber struct {
	present []bool
	calls   int
}

func (f *fixedProber) CountPrefixHit(_ context.Context, hashes []keys.Hash) (int, []bool, error) {
	f.calls++
	p := make([]bool, len(hashes))
	copy(p, f.present)
	hit := 0
	for hit < len(p) && p[hit] {
		hit++
	}
	return hit, p, nil
}
