package transfer

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/cuda"
	"github.com/kvctl/kvctl/pool"
)

func TestSaveRoundTrip(t *testing.T) {
	for _, mode := range cuda.CopyModes {
		t.Run(string(mode), func(t *testing.T) {
			f := newFixture(t, 16, newMapStore())
			rs := append(refs("g0", 0, 0, 7), refs("g1", 1, 3, 6)...)
			f.fillGPU(t, rs)
			o := f.options()
			o.Mode, o.Batch = mode, 4
			s := openSaver(t, o)
			res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, nil)
			if err != nil {
				t.Fatalf("Save error = %v", err)
			}
			want := SaveResult{RequestID: "r", Pages: 13, Stored: 13, Bytes: 7*2048 + 6*1024}
			if diff := cmp.Diff(want, res); diff != "" {
				t.Errorf("Save result mismatch (-want +got):\n%s", diff)
			}
			for _, r := range rs {
				if v := f.store.vals[r.Key]; !bytes.Equal(v, pageValue(r.Key, f.pools[r.LayerGroup].group.PageBytes())) {
					t.Errorf("pool value of %q differs from its GPU page", r.Key)
				}
			}
			if tot := o.Stats.Totals(); tot.Landed != 13 || tot.StoreCalls != 4 || tot.Jobs != 1 {
				t.Errorf("Totals = %+v, want 13 stored in 4 puts", tot)
			}
		})
	}
}

func TestSaveExistingAndFailures(t *testing.T) {
	for _, skip := range []bool{false, true} {
		f := newFixture(t, 8, newMapStore())
		rs := refs("k", 0, 0, 6)
		f.fillGPU(t, rs)
		old := []byte("older value")
		f.store.vals["k-1"] = old
		f.store.putFail["k-4"] = pool.NoAvailableHandle
		o := f.options()
		o.SkipExisting, o.Batch = skip, 4
		s, err := NewSaver(o)
		if err != nil {
			t.Fatalf("NewSaver error = %v", err)
		}
		ev, err := f.dev.NewEvent()
		if err != nil {
			t.Fatal(err)
		}
		res, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: rs}, ev)
		s.Close()
		if err != nil {
			t.Fatalf("Save(skip existing %v) error = %v", skip, err)
		}
		want := SaveResult{RequestID: "r", Pages: 6, Stored: 4, Bytes: 4 * 2048, Failed: 1, FailedKeys: []string{"k-4"}}
		if skip {
			want.Existing = 1
		} else {
			want.AlreadyExists = 1
		}
		if diff := cmp.Diff(want, res); diff != "" {
			t.Errorf("Save(skip existing %v) result mismatch (-want +got):\n%s", skip, diff)
		}
		if !bytes.Equal(f.store.vals["k-1"], old) {
			t.Errorf("Save(skip existing %v) overwrote an existing key", skip)
		}
	}
}

func TestSaveErrors(t *testing.T) {
	f := newFixture(t, 4, newMapStore())
	o := f.options()
	o.Direct = true
	if s, err := NewSaver(o); err == nil {
		s.Close()
		t.Errorf("NewSaver(direct) succeeded, want an error")
	}
	s, err := NewSaver(f.options())
	if err != nil {
		t.Fatalf("NewSaver error = %v", err)
	}
	defer s.Close()
	if _, err := s.Save(context.Background(), SaveJob{RequestID: "r", Pages: []PageRef{{Key: "k", Page: 9}}}, nil); err == nil {
		t.Errorf("Save of a page beyond the pool succeeded, want an error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Save(ctx, SaveJob{RequestID: "r", Pages: refs("k", 0, 0, 2)}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("Save(cancelled) error = %v, want context.Canceled", err)
	}
}
