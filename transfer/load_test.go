package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/kvctl/kvctl/cuda"
)

func TestLoadRoundTrip(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		for _, direct := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/direct=%v", mode, direct), func(t *testing.T) {
				f := newFixture(t, 20, newArenaMapStore(8<<10))
				jobs := []LoadJob{
					{RequestID: "a", Pages: append(refs("a0", 0, 0, 5), refs("a1", 1, 0, 5)...)},
					{RequestID: "b", Pages: refs("b", 0, 10, 7)},
					{RequestID: "c", Pages: refs("c", 1, 12, 3)},
				}
				for _, j := range jobs {
					f.seed(t, j.Pages)
				}
				o := f.options()
				o.Mode, o.Direct, o.Batch = mode, direct, 4
				l := openLoader(t, o)
				results, err := l.Load(context.Background(), jobs)
				if err != nil {
					t.Fatalf("Load error = %v", err)
				}
				for i, r := range results {
					if !r.OK() || r.RequestID != jobs[i].RequestID {
						t.Errorf("Load result %d = %+v, want request %q whole", i, r, jobs[i].RequestID)
					}
					f.checkLanded(t, jobs[i].Pages)
				}
				tot := o.Stats.Totals()
				if tot.Pages != 20 || tot.Landed != 20 || tot.Missing != 0 || tot.StoreCalls != 5 {
					t.Errorf("Totals = %+v, want 20 pages landed in 5 store calls", tot)
				}
				if f.store.views != 0 {
					t.Errorf("%d views not released", f.store.views)
				}
			})
		}
	}
}

func TestLoadMissing(t *testing.T) {
	tests := []struct {
		name    string
		direct  bool
		staging int64 // staging_buffer_bytes; 0: the default
		// landed are a's pages copied before a-3 was found missing:
		// those of sets queued before a-3's set.
		landed int
		// keys are those asked of Get (staged only), sorted: a's pages
		// after a-3's set are skipped.
		keys []string
	}{
		// Staging of two buffers of two pages: sets of one batch.
		// Items: a-0 a-1 | a-2 a-3 | (a-4 a-5 skipped) b-6 b-7 | b-8 b-9.
		{name: "staged/sets of 2", staging: 2 * 2 * 2048, landed: 2,
			keys: []string{"a-0", "a-1", "a-2", "a-3", "b-6", "b-7", "b-8", "b-9"}},
		// Every page fits one set, looked up before one launch copies
		// them all, so a-0 and a-1 are skipped with a-3.
		{name: "staged/one set", keys: []string{"a-0", "a-1", "a-2", "a-3", "a-4", "a-5", "b-6", "b-7", "b-8", "b-9"}},
		{name: "direct", direct: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, 20, newArenaMapStore(64<<10))
			a := refs("a", 0, 0, 6) // a-3 is missing
			b := refs("b", 0, 6, 4)
			f.seed(t, append(append(a[:3:3], a[4:]...), b...))
			o := f.options()
			o.Batch, o.Direct, o.StagingBytes = 2, tt.direct, tt.staging
			l, err := NewLoader(o)
			if err != nil {
				t.Fatalf("NewLoader error = %v", err)
			}
			defer l.Close()
			results, err := l.Load(context.Background(), []LoadJob{{RequestID: "a", Pages: a}, {RequestID: "b", Pages: b}})
			if err != nil {
				t.Fatalf("Load error = %v", err)
			}
			landedA := a[:tt.landed:tt.landed]
			want := []LoadResult{
				{RequestID: "a", Pages: 6, Landed: len(landedA), Bytes: int64(len(landedA)) * 2048, Missing: []string{"a-3"}},
				{RequestID: "b", Pages: 4, Landed: 4, Bytes: 4 * 2048},
			}
			if diff := cmp.Diff(want, results, cmpopts.IgnoreFields(LoadResult{}, "Err")); diff != "" {
				t.Errorf("Load results mismatch (-want +got):\n%s", diff)
			}
			f.checkLanded(t, append(landedA, b...))
			// a-2 was fetched in a-3's set but must not be scattered.
			if got := f.gpuPage(t, 0, 2); !bytes.Equal(got, make([]byte, 2048)) {
				t.Errorf("GPU page 2 (a-2, set of the missing a-3) was written, want it left alone")
			}
			if !tt.direct {
				// The calls of one set run concurrently: in any order.
				if diff := cmp.Diff(tt.keys, slices.Sorted(slices.Values(f.store.gotKeys))); diff != "" {
					t.Errorf("keys asked of Get mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestLoadMissingInSetsAhead loads through four buffers of two pages, so
// that every set's Gets are queued before a-3's set finishes: a-5, missing
// too, lies in a set taken before a's failure was known, so it is looked
// up but neither listed as missing nor landed.
func TestLoadMissingInSetsAhead(t *testing.T) {
	f := newFixture(t, 20, newMapStore())
	a := refs("a", 0, 0, 6) // a-3 and a-5 are missing
	b := refs("b", 0, 6, 4)
	f.seed(t, append(append(a[:3:3], a[4]), b...))
	o := f.options()
	o.Batch, o.StagingBytes, o.StagingBuffers = 2, 4*2*2048, 4
	l, err := NewLoader(o)
	if err != nil {
		t.Fatalf("NewLoader error = %v", err)
	}
	defer l.Close()
	results, err := l.Load(context.Background(), []LoadJob{{RequestID: "a", Pages: a}, {RequestID: "b", Pages: b}})
	if err != nil {
		t.Fatalf("Load error = %v", err)
	}
	want := []LoadResult{
		{RequestID: "a", Pages: 6, Landed: 2, Bytes: 2 * 2048, Missing: []string{"a-3"}},
		{RequestID: "b", Pages: 4, Landed: 4, Bytes: 4 * 2048},
	}
	if diff := cmp.Diff(want, results, cmpopts.IgnoreFields(LoadResult{}, "Err")); diff != "" {
		t.Errorf("Load results mismatch (-want +got):\n%s", diff)
	}
	f.checkLanded(t, append(a[:2:2], b...))
	if got := f.gpuPage(t, 0, 4); !bytes.Equal(got, make([]byte, 2048)) {
		t.Errorf("GPU page 4 (a-4, after a's failure) was written, want it left alone")
	}
}

// TestLoadManySetsAfterAFailure loads through four buffers of two pages a
// request that fails in its second set and then one of 16 pages, so that
// several sets built once the failure was known (their pages picked past
// the failed request's) are in flight together: each must keep its own
// pages while the next are picked.
func TestLoadManySetsAfterAFailure(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, 30, newMapStore())
			a := refs("a", 0, 0, 10) // a-3 is missing
			b := refs("b", 0, 10, 16)
			f.seed(t, append(append(a[:3:3], a[4:]...), b...))
			o := f.options()
			o.Batch, o.StagingBytes, o.StagingBuffers, o.Mode = 2, 4*2*2048, 4, mode
			l := openLoader(t, o)
			results, err := l.Load(context.Background(), []LoadJob{{RequestID: "a", Pages: a}, {RequestID: "b", Pages: b}})
			if err != nil {
				t.Fatalf("Load error = %v", err)
			}
			if r := results[1]; !r.OK() || r.Landed != 16 {
				t.Errorf("Load result of b = %+v, want its 16 pages landed", r)
			}
			f.checkLanded(t, append(a[:2:2], b...))
		})
	}
}

func TestLoadWrongSizeIsMissing(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	f.store.vals["short"] = make([]byte, 100)
	l, err := NewLoader(f.options())
	if err != nil {
		t.Fatalf("NewLoader error = %v", err)
	}
	defer l.Close()
	results, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: []PageRef{{Key: "short", Page: 1}}}})
	if err != nil || len(results[0].Missing) != 1 || results[0].Landed != 0 {
		t.Errorf("Load of a value of the wrong size = %+v, %v, want it missing", results, err)
	}
}

func TestLoadRejectsBadRefs(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	l, err := NewLoader(f.options())
	if err != nil {
		t.Fatalf("NewLoader error = %v", err)
	}
	defer l.Close()
	tests := []PageRef{
		{Key: "", Page: 0},
		{Key: "k", LayerGroup: 2, Page: 0},
		{Key: "k", LayerGroup: -1, Page: 0},
		{Key: "k", Page: 4},
		{Key: "k", Page: -1},
	}
	for _, ref := range tests {
		_, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: []PageRef{{Key: "ok", Page: 0}, ref}}})
		if err == nil {
			t.Errorf("Load(%+v) succeeded, want an error", ref)
		}
	}
	if f.store.getCalls != 0 {
		t.Errorf("Get called %d times for bad references, want 0", f.store.getCalls)
	}
}

func TestLoadPoolError(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	f.store.getErr = errors.New("connection refused")
	l, err := NewLoader(f.options())
	if err != nil {
		t.Fatalf("NewLoader error = %v", err)
	}
	defer l.Close()
	results, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: refs("r", 0, 0, 2)}})
	if !errors.Is(err, f.store.getErr) || len(results) != 1 || results[0].Landed != 0 {
		t.Errorf("Load with a failing pool = %+v, %v, want the pool's error", results, err)
	}
}

func TestLoadCancelled(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	l, err := NewLoader(f.options())
	if err != nil {
		t.Fatalf("NewLoader error = %v", err)
	}
	defer l.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.Load(ctx, []LoadJob{{RequestID: "r", Pages: refs("r", 0, 0, 2)}}); !errors.Is(err, context.Canceled) {
		t.Errorf("Load(cancelled) error = %v, want context.Canceled", err)
	}
}

func TestLoadWaitsForFence(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	rs := refs("r", 0, 0, 3)
	f.seed(t, rs)
	s, err := f.dev.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	fence, err := f.dev.NewEvent()
	if err != nil {
		t.Fatal(err)
	}
	if err := fence.Record(s); err != nil {
		t.Fatal(err)
	}
	l, err := NewLoader(f.options())
	if err != nil {
		t.Fatalf("NewLoader error = %v", err)
	}
	defer l.Close()
	results, err := l.Load(context.Background(), []LoadJob{{RequestID: "r", Pages: rs, Fence: fence}})
	if err != nil || !results[0].OK() {
		t.Fatalf("Load with a fence = %+v, %v, want every page", results, err)
	}
	f.checkLanded(t, rs)
}

func TestNewLoaderRejects(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	tests := []struct {
		name string
		edit func(o *Options)
	}{
		{"no device", func(o *Options) { o.Device = nil }},
		{"no pool", func(o *Options) { o.Pool = nil }},
		{"no pools", func(o *Options) { o.Pools = nil }},
		{"nil pool", func(o *Options) { o.Pools = []*PagePool{nil} }},
		{"negative batch", func(o *Options) { o.Batch = -1 }},
		{"unknown mode", func(o *Options) { o.Mode = "dma" }},
	}
	for _, tt := range tests {
		o := f.options()
		tt.edit(&o)
		if l, err := NewLoader(o); err == nil {
			l.Close()
			t.Errorf("NewLoader(%s) succeeded, want an error", tt.name)
		}
	}
}
