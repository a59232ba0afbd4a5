package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// mapStore is a map-backed pool.Store with put-if-absent semantics, an
// injectable whole-call error and per-key put failures. With arenas set it
// also implements ArenaStore: values live in arenas of arenaBytes bytes,
// allocated as needed.
type mapStore struct {
	mu       sync.Mutex
	vals     map[string][]byte
	getErr   error
	putFail  map[string]pool.Code
	gotKeys  []string // every key asked of Get, in order
	getCalls int
	putCalls int

	arenaBytes int
	arenas     [][]byte
	used       int // bytes used in the last arena
	views      int // views not released yet
}

func newMapStore() *mapStore {
	return &mapStore{vals: map[string][]byte{}, putFail: map[string]pool.Code{}}
}

func newArenaMapStore(arenaBytes int) *mapStore {
	s := newMapStore()
	s.arenaBytes = arenaBytes
	return s
}

func (s *mapStore) Exist(ctx context.Context, keys []string, status []int) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range keys {
		status[i] = 0
		if _, ok := s.vals[k]; ok {
			status[i] = 1
		}
	}
	return nil
}

func (s *mapStore) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.putCalls++
	for i, it := range items {
		switch {
		case s.putFail[it.Key] != 0:
			results[i] = s.putFail[it.Key]
		case s.vals[it.Key] != nil:
			results[i] = pool.ObjectAlreadyExists
		default:
			s.vals[it.Key] = s.place(it.Value)
			results[i] = pool.OK
		}
	}
	return nil
}

// place copies v into arena memory (or a fresh slice without arenas).
func (s *mapStore) place(v []byte) []byte {
	if s.arenaBytes == 0 {
		return append([]byte(nil), v...)
	}
	if len(s.arenas) == 0 || s.used+len(v) > s.arenaBytes {
		s.arenas = append(s.arenas, make([]byte, s.arenaBytes))
		s.used = 0
	}
	b := s.arenas[len(s.arenas)-1][s.used : s.used+len(v)]
	copy(b, v)
	s.used += len(v)
	return b
}

func (s *mapStore) Get(ctx context.Context, keys []string, bufs [][]byte, n []int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.getCalls++
	s.gotKeys = append(s.gotKeys, keys...)
	if s.getErr != nil {
		return s.getErr
	}
	for i, k := range keys {
		v, ok := s.vals[k]
		switch {
		case !ok:
			n[i] = int64(pool.ObjectNotFound)
		case len(bufs[i]) < len(v):
			n[i] = int64(pool.InvalidParams)
		default:
			n[i] = int64(copy(bufs[i], v))
		}
	}
	return nil
}

func (s *mapStore) Remove(ctx context.Context, keys []string, force bool, results []pool.Code) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range keys {
		results[i] = pool.ObjectNotFound
		if _, ok := s.vals[k]; ok {
			delete(s.vals, k)
			results[i] = pool.OK
		}
	}
	return nil
}

func (s *mapStore) Stat(ctx context.Context) (pool.Stat, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return pool.Stat{Backend: "map", Keys: int64(len(s.vals))}, nil
}

func (s *mapStore) Close() error { return nil }

func (s *mapStore) Arenas() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.arenas...)
}

func (s *mapStore) ViewBatch(keys []string, views [][]byte, codes []pool.Code) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	held := 0
	for i, k := range keys {
		v, ok := s.vals[k]
		views[i], codes[i] = nil, pool.ObjectNotFound
		if ok {
			views[i], codes[i] = v, pool.OK
			held++
		}
	}
	s.views += held
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			s.views -= held
			s.mu.Unlock()
		})
	}
}

var (
	_ pool.Store = (*mapStore)(nil)
	_ ArenaStore = (*mapStore)(nil)
)

// testLayout has two layer groups of different page sizes and region
// counts, with a region size that is not a multiple of 16.
var testLayout = Layout{Groups: []LayerGroup{
	{RegionBytes: []int64{1024, 1024}},
	{RegionBytes: []int64{512, 200, 312}},
}}

// pageValue is the deterministic value of a test page key.
func pageValue(key string, n int64) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(int(key[len(key)-1])*31 + i*7 + len(key))
	}
	return b
}

// testDevice is the device the transfer tests run on: host emulation, or
// the spec in KVCTL_TEST_DEVICE (such as cuda) to run them on a GPU.
func testDevice(t testing.TB) cuda.Device {
	t.Helper()
	spec := os.Getenv("KVCTL_TEST_DEVICE")
	if spec == "" {
		spec = "host"
	}
	dev, err := cuda.Open(spec)
	if err != nil {
		t.Fatalf("cuda.Open(%q) error = %v", spec, err)
	}
	t.Cleanup(func() { dev.Close() })
	return dev
}

// fixture is a device with page pools and a store.
type fixture struct {
	dev   cuda.Device
	pools []*PagePool
	store *mapStore
}

func newFixture(t *testing.T, pages int, store *mapStore) *fixture {
	t.Helper()
	return newLayoutFixture(t, testLayout, pages, store)
}

// newLayoutFixture is newFixture with pages pages of each group of
// layout.
func newLayoutFixture(t *testing.T, layout Layout, pages int, store *mapStore) *fixture {
	t.Helper()
	dev := testDevice(t)
	pools, err := NewPagePools(dev, layout, pages)
	if err != nil {
		t.Fatalf("NewPagePools error = %v", err)
	}
	t.Cleanup(func() { ClosePagePools(pools) })
	f := &fixture{dev: dev, pools: pools, store: store}
	f.zeroGPU(t) // device memory is not zeroed by cuMemAlloc
	return f
}

// zeroGPU clears every GPU page.
func (f *fixture) zeroGPU(t *testing.T) {
	t.Helper()
	s, err := f.dev.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	for _, p := range f.pools {
		if err := p.WriteRegions(s, p.NewRegionBufs()); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
}

// skipUnsupported skips the test when err says the device lacks a copy
// mode (cuMemcpyBatchAsync before CUDA 12.8).
func skipUnsupported(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, cuda.ErrUnsupported) {
		t.Skipf("unsupported here: %v", err)
	}
}

// openLoader is NewLoader(o) for a test: skipped where the device lacks
// what o asks for, fatal on any other error, closed when the test ends.
func openLoader(t *testing.T, o Options) *Loader { return openFor(t, "NewLoader", o, NewLoader) }

// openSaver is openLoader for NewSaver.
func openSaver(t *testing.T, o Options) *Saver { return openFor(t, "NewSaver", o, NewSaver) }

// openFor opens what open makes of o, as openLoader says; name is open's.
func openFor[T interface{ Close() error }](t *testing.T, name string, o Options, open func(Options) (T, error)) T {
	t.Helper()
	v, err := open(o)
	skipUnsupported(t, err)
	if err != nil {
		t.Fatalf("%s(direct %v, %s) error = %v", name, o.Direct, o.Mode, err)
	}
	t.Cleanup(func() { v.Close() })
	return v
}

func (f *fixture) options() Options {
	return Options{Device: f.dev, Pool: f.store, Pools: f.pools, Stats: &Stats{}}
}

// refs names pages first..first+n-1 of group g with keys prefix-i.
func refs(prefix string, g, first, n int) []PageRef {
	var out []PageRef
	for i := first; i < first+n; i++ {
		out = append(out, PageRef{Key: fmt.Sprintf("%s-%d", prefix, i), LayerGroup: g, Page: i})
	}
	return out
}

// seed puts every ref's value.
func (f *fixture) seed(t *testing.T, rs []PageRef) {
	t.Helper()
	items := make([]pool.PutItem, len(rs))
	for i, r := range rs {
		items[i] = pool.PutItem{Key: r.Key, Value: pageValue(r.Key, f.pools[r.LayerGroup].group.PageBytes())}
	}
	codes := make([]pool.Code, len(items))
	if err := f.store.Put(context.Background(), items, codes); err != nil {
		t.Fatalf("seeding Put error = %v", err)
	}
}

// readGroup reads every region of group g back from the GPU.
func (f *fixture) readGroup(t *testing.T, g int) [][]byte {
	t.Helper()
	p := f.pools[g]
	bufs := p.NewRegionBufs()
	s, err := f.dev.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	if err := p.ReadRegions(s, bufs); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	return bufs
}

// gpuPage reads one page back from the GPU, regions concatenated.
func (f *fixture) gpuPage(t *testing.T, g, page int) []byte {
	t.Helper()
	p := f.pools[g]
	out := make([]byte, p.group.PageBytes())
	gatherPage(p.group, f.readGroup(t, g), page, out)
	return out
}

// checkLanded fails unless every ref's GPU page holds its value.
func (f *fixture) checkLanded(t *testing.T, rs []PageRef) {
	t.Helper()
	for _, r := range rs {
		want := pageValue(r.Key, f.pools[r.LayerGroup].group.PageBytes())
		if got := f.gpuPage(t, r.LayerGroup, r.Page); !bytes.Equal(got, want) {
			t.Errorf("GPU page %d of group %d after loading %q differs from the pool value", r.Page, r.LayerGroup, r.Key)
		}
	}
}

// fillGPU writes every ref's value to its GPU page.
func (f *fixture) fillGPU(t *testing.T, rs []PageRef) {
	t.Helper()
	s, err := f.dev.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	for g, p := range f.pools {
		bufs := f.readGroup(t, g)
		for _, r := range rs {
			if r.LayerGroup == g {
				scatterPage(p.group, bufs, r.Page, pageValue(r.Key, p.group.PageBytes()))
			}
		}
		if err := p.WriteRegions(s, bufs); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
}
