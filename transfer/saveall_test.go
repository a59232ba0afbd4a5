package transfer

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// optionsStore records the options each key was put with.
type optionsStore struct {
	*mapStore
	mu   sync.Mutex
	opts map[string]pool.PutOptions
}

func (s *optionsStore) Put(ctx context.Context, items []pool.PutItem, results []pool.Code) error {
	s.mu.Lock()
	for _, it := range items {
		s.opts[it.Key] = it.Options
	}
	s.mu.Unlock()
	return s.mapStore.Put(ctx, items, results)
}

func TestSaveAllAcrossJobs(t *testing.T) {
	for _, buffers := range []int{1, 2} {
		t.Run(fmt.Sprintf("buffers=%d", buffers), func(t *testing.T) {
			f := newFixture(t, 16, newMapStore())
			store := &optionsStore{mapStore: f.store, opts: map[string]pool.PutOptions{}}
			var jobs []SaveJob
			for j := range 3 {
				rs := refs(fmt.Sprintf("j%d", j), j%2, j*5, 5)
				f.fillGPU(t, rs)
				jobs = append(jobs, SaveJob{RequestID: fmt.Sprintf("j%d", j), Pages: rs, Options: pool.PutOptions{GroupID: fmt.Sprintf("g%d", j)}})
			}
			f.store.vals["j1-7"] = []byte("older")
			o := f.options()
			o.Pool, o.Batch, o.StagingBuffers = store, 4, buffers
			s, err := NewSaver(o)
			if err != nil {
				t.Fatalf("NewSaver error = %v", err)
			}
			defer s.Close()
			results, err := s.SaveAll(context.Background(), jobs, nil)
			if err != nil {
				t.Fatalf("SaveAll error = %v", err)
			}
			want := []SaveResult{
				{RequestID: "j0", Pages: 5, Stored: 5, Bytes: 5 * 2048},
				{RequestID: "j1", Pages: 5, Stored: 4, Bytes: 4 * 1024, AlreadyExists: 1},
				{RequestID: "j2", Pages: 5, Stored: 5, Bytes: 5 * 2048},
			}
			if diff := cmp.Diff(want, results); diff != "" {
				t.Errorf("SaveAll results mismatch (-want +got):\n%s", diff)
			}
			for _, j := range jobs {
				for _, r := range j.Pages {
					if got := store.opts[r.Key].GroupID; got != j.Options.GroupID {
						t.Errorf("page %q put in group %q, want %q", r.Key, got, j.Options.GroupID)
					}
					if r.Key != "j1-7" && !bytes.Equal(f.store.vals[r.Key], pageValue(r.Key, f.pools[r.LayerGroup].group.PageBytes())) {
						t.Errorf("pool value of %q differs from its GPU page", r.Key)
					}
				}
			}
			if tot := o.Stats.Totals(); tot.Jobs != 3 || tot.Landed != 14 || tot.StoreCalls != 4 {
				t.Errorf("Totals = %+v, want 3 jobs, 14 stored in 4 puts", tot)
			}
		})
	}
}

func TestSaveAllRejectsBadRefsFirst(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	s, err := NewSaver(f.options())
	if err != nil {
		t.Fatalf("NewSaver error = %v", err)
	}
	defer s.Close()
	jobs := []SaveJob{{RequestID: "ok", Pages: refs("k", 0, 0, 2)}, {RequestID: "bad", Pages: []PageRef{{Key: "x", Page: 4}}}}
	results, err := s.SaveAll(context.Background(), jobs, nil)
	if err == nil || !strings.Contains(err.Error(), `"bad"`) || len(results) != 2 || f.store.putCalls != 0 {
		t.Errorf("SaveAll with a bad reference = %+v, %v (%d puts), want an error naming request \"bad\" and no put", results, err, f.store.putCalls)
	}
}
