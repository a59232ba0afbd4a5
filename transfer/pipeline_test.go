package transfer

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/internal/crew"
	"github.com/kvctl/kvctl/pool"
)

// splitCase is a crew size (parallel), a staging geometry (buffers of
// sets of setPages pages, budget permitting) and the store calls it
// makes for 600 pages of 2 KiB. Each thread of a crew of more than one
// takes about four calls of at least MinCallBytes (64 pages) of a set,
// at most a batch; a crew of one makes one call per batch.
type splitCase struct {
	parallel, buffers int
	batch             int // 256 unless set
	// setPages are the pages of one set: 0 for the default
	// (LoadSetBytes worth, all 600 pages in one set).
	setPages int
	// calls are the Gets or Puts of pages 0-599, exists the Exist calls
	// of a save with SkipExisting (one per batch of each set).
	calls, exists int64
}

var splitCases = []splitCase{
	{parallel: 1, buffers: 1, calls: 3, exists: 3},
	{parallel: 4, buffers: 1, calls: 10, exists: 3},
	{parallel: 1, buffers: 2, setPages: 256, calls: 3, exists: 3},
	// Sets of 200 pages in calls of 64: 4 calls and 4 batches a set.
	{parallel: 4, buffers: 2, batch: 64, setPages: 200, calls: 12, exists: 12},
	{parallel: 16, buffers: 3, setPages: 300, calls: 10, exists: 4},
	{parallel: 4, buffers: 3, batch: 64, setPages: 100, calls: 12, exists: 12},
	// Ten sets (nine of 64 pages, one of 24) in calls of a batch of 32.
	{parallel: 2, buffers: 2, batch: 32, setPages: 64, calls: 19, exists: 19},
}

func (c splitCase) String() string {
	return fmt.Sprintf("parallel=%d/buffers=%d/batch=%d/set=%d", c.parallel, c.buffers, c.slots(), c.setPages)
}

func (c splitCase) slots() int { return cmp.Or(c.batch, 256) }

// wantSetPages is a loader's SetPages: LoadSetBytes of 2 KiB pages by
// default.
func (c splitCase) wantSetPages() int { return cmp.Or(c.setPages, LoadSetBytes/2048) }

func (c splitCase) options(f *fixture) Options {
	o := f.options()
	o.Batch, o.Parallel, o.StagingBuffers, o.Mode = c.slots(), c.parallel, c.buffers, cuda.ModeKernel
	o.StagingBytes = int64(c.buffers*c.setPages) * 2048
	return o
}

func TestLoadSplitAndOverlapped(t *testing.T) {
	for _, c := range splitCases {
		t.Run(c.String(), func(t *testing.T) {
			f := newFixture(t, 600, newMapStore())
			var jobs []LoadJob
			var all []PageRef
			for j := range 3 {
				rs := refs(fmt.Sprintf("r%d", j), 0, j*200, 200)
				f.seed(t, rs)
				jobs = append(jobs, LoadJob{RequestID: fmt.Sprintf("r%d", j), Pages: rs})
				all = append(all, rs...)
			}
			o := c.options(f)
			l, err := NewLoader(o)
			if err != nil {
				t.Fatalf("NewLoader error = %v", err)
			}
			defer l.Close()
			if g := l.Geometry(); g.Buffers != c.buffers || g.Slots != c.slots() || g.SetPages != c.wantSetPages() {
				t.Errorf("Geometry() = %+v, want %d buffers of %d pages, %d pages a call", g, c.buffers, c.wantSetPages(), c.slots())
			}
			results, err := l.Load(context.Background(), jobs)
			if err != nil {
				t.Fatalf("Load error = %v", err)
			}
			for i, r := range results {
				if !r.OK() || r.Landed != 200 || r.Bytes != 200*2048 {
					t.Errorf("Load result %d = %+v, want 200 pages landed", i, r)
				}
			}
			f.checkGroupLanded(t, all)
			tot := o.Stats.Totals()
			if tot.StoreCalls != c.calls || int64(f.store.getCalls) != c.calls || tot.Landed != 600 {
				t.Errorf("Totals = %+v, %d Get calls; want 600 landed in %d store calls", tot, f.store.getCalls, c.calls)
			}
			if tot.DeviceCopy <= 0 {
				t.Errorf("Totals.DeviceCopy = %v, want the copies' device time", tot.DeviceCopy)
			}
			wantKeys := make([]string, len(all))
			for i, r := range all {
				wantKeys[i] = r.Key
			}
			slices.Sort(wantKeys)
			gotKeys := slices.Sorted(slices.Values(f.store.gotKeys))
			if diff := gocmp.Diff(wantKeys, gotKeys); diff != "" {
				t.Errorf("keys asked of Get mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSaveSplitAndOverlapped(t *testing.T) {
	for _, c := range splitCases {
		for _, skip := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/skip=%v", c, skip), func(t *testing.T) {
				f := newFixture(t, 600, newMapStore())
				rs := refs("s", 0, 0, 600)
				f.fillGPU(t, rs)
				o := c.options(f)
				o.SkipExisting = skip
				s, err := NewSaver(o)
				if err != nil {
					t.Fatalf("NewSaver error = %v", err)
				}
				defer s.Close()
				res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
				if err != nil {
					t.Fatalf("Save error = %v", err)
				}
				want := SaveResult{RequestID: "r", Pages: 600, Stored: 600, Bytes: 600 * 2048}
				if diff := gocmp.Diff(want, res); diff != "" {
					t.Errorf("Save result mismatch (-want +got):\n%s", diff)
				}
				for _, r := range rs {
					if !bytes.Equal(f.store.vals[r.Key], pageValue(r.Key, 2048)) {
						t.Fatalf("pool value of %q differs from its GPU page", r.Key)
					}
				}
				wantCalls := c.calls
				if skip {
					wantCalls += c.exists
				}
				if tot := o.Stats.Totals(); tot.StoreCalls != wantCalls || int64(f.store.putCalls) != c.calls || tot.DeviceCopy <= 0 {
					t.Errorf("Totals = %+v, %d Put calls; want %d store calls, %d puts", tot, f.store.putCalls, wantCalls, c.calls)
				}
			})
		}
	}
}

func TestStagingBuffersFitTheBudget(t *testing.T) {
	f := newFixture(t, 8, newMapStore())
	batch := int64(4 * 2048) // Batch 4 pages of the largest page
	tests := []struct {
		staging int64
		asked   int
		// want buffers of set pages each: LoadSetBytes worth, fewer when the
		// buffers asked for do not fit, but at least one batch.
		want, set int
	}{
		{staging: 0, asked: 0, want: DefaultStagingBuffers, set: LoadSetBytes / 2048},
		{staging: batch, asked: 0, want: 1, set: 4},
		{staging: 2*batch - 1, asked: 2, want: 1, set: 4},
		{staging: 2 * batch, asked: 2, want: 2, set: 4},
		{staging: 3 * batch, asked: 4, want: 3, set: 4},
		{staging: 1 << 20, asked: 1, want: 1, set: 512},
		{staging: 1 << 20, asked: 2, want: 2, set: 256},
	}
	for _, tt := range tests {
		o := f.options()
		o.Batch, o.StagingBytes, o.StagingBuffers = 4, tt.staging, tt.asked
		l, err := NewLoader(o)
		if err != nil {
			t.Fatalf("NewLoader(staging %d, buffers %d) error = %v", tt.staging, tt.asked, err)
		}
		g := l.Geometry()
		l.Close()
		if g.Buffers != tt.want || g.Slots != 4 || g.SetPages != tt.set || g.PinnedBytes() != int64(tt.want*tt.set)*2048 {
			t.Errorf("NewLoader(staging %d, buffers %d).Geometry() = %+v, want %d buffers of %d pages, 4 a call", tt.staging, tt.asked, g, tt.want, tt.set)
		}
	}
}

func TestOptionsRejectNegativeParallel(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	for _, edit := range []func(o *Options){
		func(o *Options) { o.Parallel = -1 },
		func(o *Options) { o.StagingBuffers = -1 },
	} {
		o := f.options()
		edit(&o)
		if l, err := NewLoader(o); err == nil {
			l.Close()
			t.Errorf("NewLoader(%+v) succeeded, want an error", o)
		}
	}
}

// failingPutStore fails whole Put calls once armed.
type failingPutStore struct {
	*mapStore
	err error
}

func (s *failingPutStore) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	if s.err != nil {
		return s.err
	}
	return s.mapStore.Put(ctx, items, results)
}

func TestSavePoolErrorDrainsCopies(t *testing.T) {
	f := newFixture(t, 600, newMapStore())
	rs := refs("s", 0, 0, 600)
	f.fillGPU(t, rs)
	o := splitCases[3].options(f)
	store := &failingPutStore{mapStore: f.store, err: errors.New("connection reset")}
	o.Pool = store
	s, err := NewSaver(o)
	if err != nil {
		t.Fatalf("NewSaver error = %v", err)
	}
	defer s.Close()
	res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
	if !errors.Is(err, store.err) || res.Stored != 0 {
		t.Errorf("Save with a failing pool = %+v, %v, want the pool's error", res, err)
	}
	// The saver is still usable: the staged copies were drained.
	store.err = nil
	if res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil); err != nil || res.Stored != 600 {
		t.Errorf("Save after a failure = %+v, %v, want 600 pages stored", res, err)
	}
}

// checkGroupLanded is checkLanded for pages of group 0, reading the pool
// back once.
func (f *fixture) checkGroupLanded(t *testing.T, rs []PageRef) {
	t.Helper()
	p := f.pools[0]
	bufs := f.readGroup(t, 0)
	got := make([]byte, p.group.PageBytes())
	for _, r := range rs {
		gatherPage(p.group, bufs, r.Page, got)
		if !bytes.Equal(got, pageValue(r.Key, p.group.PageBytes())) {
			t.Fatalf("GPU page %d after loading %q differs from the pool value", r.Page, r.Key)
		}
	}
}

func TestCallPages(t *testing.T) {
	tests := []struct {
		threads, slots int
		slotBytes      int64
		k, want        int
	}{
		{threads: 1, slots: 64, slotBytes: 4 << 10, k: 4096, want: 64},         // one call per batch
		{threads: 16, slots: 64, slotBytes: 4 << 10, k: 4096, want: 64},        // a batch: 64 calls
		{threads: 16, slots: 1024, slotBytes: 4 << 10, k: 4096, want: 64},      // four calls a thread
		{threads: 16, slots: 64, slotBytes: 64 << 10, k: 256, want: 4},         // four calls a thread
		{threads: 16, slots: 64, slotBytes: 16 << 10, k: 1024, want: 16},       // four calls a thread
		{threads: 16, slots: 64, slotBytes: 1 << 20, k: 16, want: 1},           // one page a call
		{threads: 4, slots: 64, slotBytes: 2 << 10, k: 100, want: 64},          // MinCallBytes
		{threads: 4, slots: 32, slotBytes: 2 << 10, k: 100, want: 32},          // at most a batch
		{threads: 16, slots: 64, slotBytes: 256 << 10, k: 1, want: 1},          // at least a page
		{threads: 2, slots: 64, slotBytes: 8 << 20, k: 2, want: 1},             // pages above MinCallBytes
		{threads: 16, slots: 4096, slotBytes: 4 << 10, k: 1 << 16, want: 1024}, // four calls a thread
	}
	for _, tt := range tests {
		l := &lane{threads: tt.threads, geo: Geometry{Slots: tt.slots, SlotBytes: tt.slotBytes}}
		if got := l.callPages(tt.k); got != tt.want {
			t.Errorf("callPages(%d) with %d threads, %d-page batches of %d bytes = %d, want %d", tt.k, tt.threads, tt.slots, tt.slotBytes, got, tt.want)
		}
	}
}

func TestSetPagesFor(t *testing.T) {
	tests := []struct {
		name     string
		page     int64
		direct   bool
		n, want  int
		setPages int
	}{
		{name: "large call: whole sets", page: 4 << 10, n: 1 << 18, setPages: 4096, want: 4096},
		{name: "four sets", page: 4 << 10, n: 8192, setPages: 4096, want: 2048},
		{name: "minSetBytes", page: 4 << 10, n: 1000, setPages: 4096, want: 512},
		{name: "a set at most", page: 64 << 10, n: 4000, setPages: 256, want: 256},
		{name: "direct: whole sets", page: 4 << 10, direct: true, n: 1000, setPages: 4096, want: 4096},
	}
	for _, tt := range tests {
		l := &lane{geo: Geometry{SlotBytes: tt.page, SetPages: tt.setPages}}
		if tt.direct {
			l.arenas = &arenaMap{}
		}
		if got := l.setPagesFor(tt.n); got != tt.want {
			t.Errorf("%s: setPagesFor(%d) = %d, want %d", tt.name, tt.n, got, tt.want)
		}
	}
}

func TestSetScratchGrows(t *testing.T) {
	d := newSetScratch(100, 2)
	for _, tt := range []struct{ n, want int }{{0, 0}, {3, 3}, {2, 3}, {4, 6}, {40, 40}, {70, 80}, {90, 100}, {100, 100}} {
		d.fit(tt.n)
		if len(d.keys) != tt.want || len(d.copies) != 2*tt.want {
			t.Errorf("fit(%d) = room for %d pages (%d copies), want %d", tt.n, len(d.keys), len(d.copies), tt.want)
		}
	}
	for _, tt := range []struct{ n, want int }{{3, 3}, {2, 3}, {300, 300}} {
		if d.fitCalls(tt.n); len(d.short) != tt.want {
			t.Errorf("fitCalls(%d) = room for %d calls' answers, want %d", tt.n, len(d.short), tt.want)
		}
	}
}

// TestRunOrder runs five sets through a cycle of four along fake paths
// and checks the order of their stages: loads and staged saves start
// every set whose buffer is free (a staged save's, whose second stage
// runs on the crew, once that stage is done), direct saves keep one set
// ahead, starting it before the set's copies are queued.
func TestRunOrder(t *testing.T) {
	tests := []struct {
		name     string
		oneAhead bool
		crewDone bool
		want     string
	}{
		{"load", false, false, "s1 s2 s3 s4 f1 c1 f2 c2 s5 f3 c3 f4 c4 f5 c5"},
		{"direct save", true, false, "s1 f1 s2 c1 f2 s3 c2 f3 s4 c3 f4 s5 c4 f5 c5"},
		{"staged save", false, true, "s1 s2 s3 s4 f1 c1 d1 f2 c2 s5 d2 f3 c3 d3 f4 c4 d4 f5 c5 d5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sets []*slotSet
			for i := range 4 {
				sets = append(sets, &slotSet{buffer: i})
			}
			p := &pipeline{l: &lane{sets: sets}}
			var log []string
			note := func(stage string, w *setWork) { log = append(log, fmt.Sprintf("%s%d", stage, w.seq)) }
			started := 0
			pt := path{
				start: func() (*setWork, error) {
					if started == 5 {
						return nil, nil
					}
					s, err := p.acquire()
					started++
					w := &setWork{set: s, seq: started}
					note("s", w)
					return w, err
				},
				finish:   func(w *setWork) error { note("f", w); return nil },
				second:   func(w *setWork) error { note("c", w); return nil },
				oneAhead: tt.oneAhead,
			}
			if tt.crewDone {
				pt.done = func(w *setWork) error { note("d", w); return nil }
			}
			if err := p.run(pt); err != nil {
				t.Fatalf("run() error = %v", err)
			}
			if got := strings.Join(log, " "); got != tt.want {
				t.Errorf("run() stages = %q, want %q", got, tt.want)
			}
		})
	}
}

// syncEvent is a set's done event whose Synchronize is sync; nothing
// else of it is called while a pipeline drains.
type syncEvent struct {
	cuda.Event
	sync func() error
}

func (e syncEvent) Synchronize() error { return e.sync() }

// TestDrainEndsViewsAsSetsFinish drains four busy sets of a direct load:
// drain waits for them oldest first, and the views of a set whose copies
// finished end on the crew while the device still copies the sets after
// it (the last set's wait returns only once the first set's views ended;
// the crew's helpers take tasks of more than one call).
// After a failed wait the sets left are freed, their views ended too.
func TestDrainEndsViewsAsSetsFinish(t *testing.T) {
	cr := crew.New(2, crew.DefaultPark, nil)
	defer cr.Close()
	for _, failAt := range []int{-1, 1} {
		var mu sync.Mutex
		var waited []int
		var ended [4]chan struct{}
		var sets []*slotSet
		for i := range ended {
			ended[i] = make(chan struct{})
			var left atomic.Int32 // the set's views not ended yet: four store calls'
			left.Store(4)
			s := &slotSet{buffer: i, busy: true}
			for range left.Load() {
				s.releases = append(s.releases, func() {
					if left.Add(-1) == 0 {
						close(ended[i])
					}
				})
			}
			s.done = syncEvent{sync: func() error {
				mu.Lock()
				waited = append(waited, i)
				mu.Unlock()
				switch {
				case i == failAt:
					return errors.New("device lost")
				case i == len(ended)-1 && failAt < 0:
					select {
					case <-ended[0]:
					case <-time.After(10 * time.Second):
						return errors.New("the first set's views did not end while the last set's copies ran")
					}
				}
				return nil
			}}
			sets = append(sets, s)
		}
		clk := newPhaseClock(false)
		p := &pipeline{l: &lane{sets: sets, crew: cr}, clk: &clk, after: newFinisher()}
		err := p.drain()
		p.end()
		want := []int{0, 1, 2, 3}
		if failAt >= 0 {
			want = want[:failAt+1]
		}
		if (err != nil) != (failAt >= 0) || !slices.Equal(waited, want) {
			t.Errorf("drain (set %d failing) = %v, waited for sets %v; want an error only with a failing set, waits for %v", failAt, err, waited, want)
		}
		for i, s := range sets {
			select {
			case <-ended[i]:
			default:
				t.Errorf("drain (set %d failing): set %d's views not ended", failAt, i)
			}
			if s.busy {
				t.Errorf("drain (set %d failing): set %d still busy", failAt, i)
			}
		}
	}
}
