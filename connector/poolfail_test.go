package connector

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool"
)

// failingStore fails every exist, get and put call with err once ok calls
// have succeeded.
type failingStore struct {
	pool.Store
	ok, calls int
	err       error
}

func (f *failingStore) fail() error {
	f.calls++
	if f.calls > f.ok {
		return f.err
	}
	return nil
}

func (f *failingStore) Exist(ctx context.Context, k []string, s []int) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Exist(ctx, k, s)
}

func (f *failingStore) ExistLeasing(ctx context.Context, k []string, s []int) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.(pool.LeasingExister).ExistLeasing(ctx, k, s)
}

func (f *failingStore) Get(ctx context.Context, k []string, b [][]byte, n []int64) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Get(ctx, k, b, n)
}

func (f *failingStore) Put(ctx context.Context, it []pool.PutItem, r []pool.Code) error {
	if err := f.fail(); err != nil {
		return err
	}
	return f.Store.Put(ctx, it, r)
}

var errDown = fmt.Errorf("redis at localhost:1: %w: connection refused", pool.ErrUnreachable)

// TestWorkerGoesOnAfterPoolFailures: a pool call that fails as a whole is
// a miss (lookup, as count_prefix_hit), missing pages (load) or a dropped
// batch (save), reported to PoolFailed; a canceled context or a mover
// error that is not the pool's ends the call.
func TestWorkerGoesOnAfterPoolFailures(t *testing.T) {
	tests := []struct {
		name            string
		ok              int // calls that succeed before the store fails
		err             error
		cancel          bool
		op              func(ctx context.Context, t *testing.T, w *Worker, pages *fakePages) error
		wantCalls       []string
		wantErr         bool
		wantFailed      []string // TakeFailedLoadRequests
		wantSaved       []SubmittedSave
		wantFailedPages int64 // save stats
	}{
		{name: "lookup is a miss", err: errDown, op: lookupNone, wantCalls: []string{CallLookup}},
		{name: "lookup of any error is a miss", err: errors.New("boom"), op: lookupNone, wantCalls: []string{CallLookup}},
		{name: "load batch is missing", err: errDown, op: loadBlock, wantCalls: []string{CallLoad}, wantFailed: []string{"a"}},
		{name: "load batch refused by the pool is missing", err: &pool.Error{Code: pool.RPCFail, Op: "get"}, op: loadBlock,
			wantCalls: []string{CallLoad}, wantFailed: []string{"a"}},
		{name: "load of a device error ends the call", err: errors.New("cuda: illegal address"), op: loadBlock, wantErr: true},
		{name: "save exist drops the batch", err: errDown, op: saveBlock, wantCalls: []string{CallSave},
			wantSaved: []SubmittedSave{{"a", 0, 1}}, wantFailedPages: 2},
		{name: "save put drops the batch", ok: 1, err: errDown, op: saveBlock, wantCalls: []string{CallSave},
			wantSaved: []SubmittedSave{{"a", 0, 1}}, wantFailedPages: 2},
		{name: "save put of a device error ends the call", ok: 1, err: errors.New("cuda: illegal address"), op: saveBlock, wantErr: true},
		{name: "canceled lookup ends the call", err: context.Canceled, cancel: true, op: lookupNone, wantErr: true},
		{name: "canceled save ends the call", err: context.Canceled, cancel: true, op: saveBlock, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			store := &failingStore{Store: newMem(t), ok: tt.ok, err: tt.err}
			pages := newFakePages(testLayout, 2)
			st := NewStats(0, nil, -1, nil)
			var calls []string
			w, err := NewWorker(WorkerOptions{Store: store, Keys: keys.Settings{Layout: testLayout, Namespace: testNS}, Pages: pages, LoadStats: st.Load, SaveStats: st.Save,
				PoolFailed: func(call string, err error) { calls = append(calls, call) }})
			if err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			err = tt.op(ctx, t, w, pages)
			if (err != nil) != tt.wantErr {
				t.Fatalf("error = %v, want error %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.wantCalls, calls); diff != "" {
				t.Errorf("PoolFailed calls (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantFailed, w.TakeFailedLoadRequests()); diff != "" {
				t.Errorf("TakeFailedLoadRequests (-want +got):\n%s", diff)
			}
			if tt.wantErr {
				return
			}
			if diff := cmp.Diff(tt.wantSaved, w.TakeSubmittedSaves()); diff != "" {
				t.Errorf("TakeSubmittedSaves (-want +got):\n%s", diff)
			}
			if got := st.Save.Total().FailedPages; got != tt.wantFailedPages {
				t.Errorf("save stats failed pages = %d, want %d", got, tt.wantFailedPages)
			}
		})
	}
}

func lookupNone(ctx context.Context, t *testing.T, w *Worker, _ *fakePages) error {
	c := chainOf(t, 12, 0)
	hit, present, err := w.CountPrefixHit(ctx, c.Hashes())
	if err == nil && (hit != 0 || !cmp.Equal(present, []bool{false, false, false})) {
		return fmt.Errorf("CountPrefixHit = %d, %v, want 0, all absent", hit, present)
	}
	return err
}

func loadBlock(ctx context.Context, t *testing.T, w *Worker, _ *fakePages) error {
	c := chainOf(t, 4, 0)
	return w.StartLoadKV(ctx, &Meta{Loads: []Transfer{{"a", 0, c.Hash(0), 1}}})
}

func saveBlock(ctx context.Context, t *testing.T, w *Worker, pages *fakePages) error {
	c := chainOf(t, 4, 0)
	pages.fill(0, c.Hash(0))
	return w.WaitForSave(ctx, &Meta{Saves: []Transfer{{"a", 0, c.Hash(0), 0}}})
}
