package mem

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// fakeClock is an injectable clock that moves only when told.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// newTestStore opens a manual-eviction store on a fake clock and closes it
// when the test ends.
func newTestStore(t *testing.T, opts Options) (*Store, *fakeClock) {
	t.Helper()
	clock := newFakeClock()
	if opts.Now == nil {
		opts.Now = clock.Now
	}
	opts.Eviction = EvictManual
	s, err := New(opts)
	if err != nil {
		t.Fatalf("New(%+v) = %v", opts, err)
	}
	t.Cleanup(func() { s.Close() })
	return s, clock
}

// put stores items and returns their codes.
func put(t *testing.T, s *Store, items ...pool.PutItem) []pool.Code {
	t.Helper()
	res := make([]pool.Code, len(items))
	if err := s.Put(context.Background(), items, res); err != nil {
		t.Fatalf("Put = %v", err)
	}
	return res
}

// mustPut stores items, failing unless each is OK.
func mustPut(t *testing.T, s *Store, items ...pool.PutItem) {
	t.Helper()
	for i, c := range put(t, s, items...) {
		if c != pool.OK {
			t.Fatalf("Put(%q) = %v, want OK", items[i].Key, c)
		}
	}
}

// sized is a put of n bytes under key.
func sized(key string, n int, opts pool.PutOptions) pool.PutItem {
	return pool.PutItem{Key: key, Value: make([]byte, n), Options: opts}
}

func keysN(prefix string, n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%s%04d", prefix, i)
	}
	return keys
}

// present reports which of keys exist, without leasing them.
func present(t *testing.T, s *Store, keys ...string) []int {
	t.Helper()
	st := make([]int, len(keys))
	if err := s.Exist(context.Background(), keys, st); err != nil {
		t.Fatalf("Exist = %v", err)
	}
	return st
}

func removeKeys(t *testing.T, s *Store, force bool, keys ...string) []pool.Code {
	t.Helper()
	res := make([]pool.Code, len(keys))
	if err := s.Remove(context.Background(), keys, force, res); err != nil {
		t.Fatalf("Remove = %v", err)
	}
	return res
}

func getKeys(t *testing.T, s *Store, bufSize int, keys ...string) ([][]byte, []int64) {
	t.Helper()
	bufs := make([][]byte, len(keys))
	for i := range bufs {
		bufs[i] = make([]byte, bufSize)
	}
	n := make([]int64, len(keys))
	if err := s.Get(context.Background(), keys, bufs, n); err != nil {
		t.Fatalf("Get = %v", err)
	}
	return bufs, n
}

func stat(t *testing.T, s *Store) pool.Stat {
	t.Helper()
	st, err := s.Stat(context.Background())
	if err != nil {
		t.Fatalf("Stat = %v", err)
	}
	return st
}

// checkInvariants verifies every segment's free space: extents are in
// their bins, inside one opened arena, disjoint from each other and from
// the objects, not mergeable, and free + used covers the opened arenas.
func checkInvariants(t *testing.T, s *Store) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	objAlloc := make([]int64, len(s.segs))
	objSize := make([]int64, len(s.segs))
	s.forEachObject(func(o *object) {
		objAlloc[o.seg] += o.allocSize(s.qbits)
		objSize[o.seg] += o.size
	})
	var held int64
	for i, g := range s.segs {
		g.mu.Lock()
		checkSegment(t, g)
		if objAlloc[i] != g.used || objSize[i] != g.held {
			t.Errorf("segment %d: objects take %d bytes holding %d, used = %d, held = %d", i, objAlloc[i], objSize[i], g.used, g.held)
		}
		held += g.held
		g.mu.Unlock()
	}
	if held != s.used.Load() {
		t.Errorf("segments hold %d bytes, store used = %d", held, s.used.Load())
	}
}

func checkSegment(t *testing.T, g *segment) {
	t.Helper()
	var free int64
	count := 0
	for b, e := range g.bins {
		inBitmap := g.nonEmpty[b>>6]&(1<<(b&63)) != 0
		if inBitmap != (e != nil) {
			t.Errorf("%s: bin %d bitmap %t, list non-empty %t", g.name, b, inBitmap, e != nil)
		}
		for ; e != nil; e = e.next {
			count++
			free += e.size
			a := g.arenaOf(e.off)
			switch {
			case e.bin != b || binDown(e.size) != b:
				t.Errorf("%s: extent [%d,+%d) in bin %d, want %d", g.name, e.off, e.size, b, binDown(e.size))
			case a >= len(g.arenas) || e.off+e.size > g.arenas[a].end:
				t.Errorf("%s: extent [%d,+%d) is outside opened arena %d", g.name, e.off, e.size, a)
			case g.byStart[e.off] != e || g.byEnd[e.off+e.size] != e:
				t.Errorf("%s: extent [%d,+%d) missing from the edge maps", g.name, e.off, e.size)
			}
			if p := g.byEnd[e.off]; p != nil && a < len(g.arenas) && e.off > g.arenas[a].start {
				t.Errorf("%s: extents ending and starting at %d were not merged", g.name, e.off)
			}
		}
	}
	if count != len(g.byStart) || count != len(g.byEnd) {
		t.Errorf("%s: %d extents in bins, %d/%d in edge maps", g.name, count, len(g.byStart), len(g.byEnd))
	}
	var opened int64
	for i, a := range g.arenas {
		if a.start != opened || a.end <= a.start || (a.mem != nil) == g.noBytes || (a.mem != nil && int64(len(a.mem)) != a.end-a.start) {
			t.Errorf("%s: arena %d = [%d, %d) with %d bytes after %d opened bytes", g.name, i, a.start, a.end, len(a.mem), opened)
		}
		opened = a.end
	}
	if opened != g.openedEnd || opened > g.capacity {
		t.Errorf("%s: arenas cover %d bytes, openedEnd %d, capacity %d", g.name, opened, g.openedEnd, g.capacity)
	}
	if free+g.used != opened {
		t.Errorf("%s: free %d + used %d != opened %d", g.name, free, g.used, opened)
	}
}
