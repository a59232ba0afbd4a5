package transfer

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	gocmp "github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

// splitCase is a parallel and staging-buffer setting; with 2 KiB pages
// and batches of 256 (512 KiB), Parallel 4 splits a full batch into 4
// store calls of MinCallBytes.
type splitCase struct {
	parallel, buffers int
	batch             int   // 256 unless set
	calls             int64 // store calls for pages 0-599
}

var splitCases = []splitCase{
	{parallel: 1, buffers: 1, calls: 3},
	{parallel: 4, buffers: 1, calls: 4 + 4 + 1},
	{parallel: 1, buffers: 2, calls: 3},
	{parallel: 4, buffers: 2, calls: 4 + 4 + 1},
	{parallel: 16, buffers: 3, calls: 4 + 4 + 1},
	// Ten batches of 128 KiB (one call each) cycle through the buffers.
	{parallel: 4, buffers: 3, batch: 64, calls: 10},
	{parallel: 4, buffers: 2, batch: 64, calls: 10},
}

func (c splitCase) String() string {
	return fmt.Sprintf("parallel=%d/buffers=%d/batch=%d", c.parallel, c.buffers, c.slots())
}

func (c splitCase) slots() int { return cmp.Or(c.batch, 256) }

func (c splitCase) options(f *fixture) Options {
	o := f.options()
	o.Batch, o.Parallel, o.StagingBuffers, o.Mode = c.slots(), c.parallel, c.buffers, cuda.ModeKernel
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
			if g := l.Geometry(); g.Buffers != c.buffers || g.Slots != c.slots() {
				t.Errorf("Geometry() = %+v, want %d buffers of %d slots", g, c.buffers, c.slots())
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
					wantCalls += int64((600 + c.slots() - 1) / c.slots()) // one Exist per batch
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
	set := int64(4 * 2048) // one buffer of Batch 4 slots of the largest page
	tests := []struct {
		staging int64
		asked   int
		want    int
	}{
		{staging: 0, asked: 0, want: DefaultStagingBuffers},
		{staging: set, asked: 0, want: 1},
		{staging: 2*set - 1, asked: 2, want: 1},
		{staging: 2 * set, asked: 2, want: 2},
		{staging: 3 * set, asked: 4, want: 3},
		{staging: 1 << 20, asked: 1, want: 1},
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
		if g.Buffers != tt.want || g.Slots != 4 || g.PinnedBytes() != int64(tt.want)*set {
			t.Errorf("NewLoader(staging %d, buffers %d).Geometry() = %+v, want %d buffers of 4 slots", tt.staging, tt.asked, g, tt.want)
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

func TestFanoutCalls(t *testing.T) {
	tests := []struct {
		most, count int
		bytes       int64
		want        int
	}{
		{most: 8, count: 256, bytes: 256 << 16, want: 8},
		{most: 8, count: 256, bytes: 256 << 12, want: 8},
		{most: 8, count: 256, bytes: 256 << 10, want: 2},
		{most: 8, count: 3, bytes: 3 << 20, want: 3},
		{most: 1, count: 256, bytes: 256 << 16, want: 1},
		{most: 8, count: 1, bytes: 100, want: 1},
		{most: 8, count: 0, bytes: 0, want: 1},
	}
	for _, tt := range tests {
		if got := (fanout{most: tt.most}).calls(tt.count, tt.bytes); got != tt.want {
			t.Errorf("fanout{most: %d}.calls(%d, %d) = %d, want %d", tt.most, tt.count, tt.bytes, got, tt.want)
		}
	}
}

func TestFanoutCoversAndReportsFirstError(t *testing.T) {
	errBad := errors.New("bad range")
	for _, tc := range []struct{ measure, inline bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		measure := tc.measure
		f := fanout{most: 4, crew: newCrew(3, crewPark, measure)}
		defer f.crew.close()
		seen := make([]int, 100)
		n, _, err := f.start(100, 100*MinCallBytes, tc.inline, func(lo, hi int) error {
			for i := lo; i < hi; i++ {
				seen[i]++
			}
			if lo > 0 {
				return fmt.Errorf("range %d: %w", lo, errBad)
			}
			return nil
		}).wait()
		if n != 4 || !errors.Is(err, errBad) || err.Error() != "range 25: bad range" {
			t.Errorf("fanout.start(measure %v, inline %v) = %d calls, %v; want 4 calls and the error of range 25", measure, tc.inline, n, err)
		}
		for i, c := range seen {
			if c != 1 {
				t.Fatalf("fanout.start(measure %v, inline %v) covered index %d %d times, want once", measure, tc.inline, i, c)
			}
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
