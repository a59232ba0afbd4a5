package mem

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/kvctl/kvctl/pool"
)

// stressKeys are the keys the stress test's goroutines fight over; each
// key's value has its own size and bytes (contentOf), so that a value
// overwritten while viewed shows.
var stressKeys = keysN("stress/", 300)

// contentOf is key's value: the key repeated over a size picked from it.
func contentOf(key string) []byte {
	var sum int
	for _, c := range []byte(key) {
		sum = sum*31 + int(c)
	}
	n := 1 + sum%3000
	return bytes.Repeat([]byte(key+"|"), n/(len(key)+1)+1)[:n]
}

// stressOp is one goroutine's kind of work: it returns an error for a
// broken invariant.
type stressOp func(s *Store, rng *rand.Rand) error

func pickKeys(rng *rand.Rand, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = stressKeys[rng.IntN(len(stressKeys))]
	}
	return out
}

func stressPut(s *Store, rng *rand.Rand) error {
	keys := pickKeys(rng, 1+rng.IntN(16))
	items := make([]pool.PutItem, len(keys))
	for i, k := range keys {
		items[i] = pool.PutItem{Key: k, Value: contentOf(k)}
	}
	return s.Put(context.Background(), items, make([]pool.Code, len(items)))
}

// stressReserve reserves, writes the values in place and commits, or
// writes junk and aborts.
func stressReserve(commit bool) stressOp {
	return func(s *Store, rng *rand.Rand) error {
		keys := pickKeys(rng, 1+rng.IntN(16))
		items := make([]pool.PutItem, len(keys))
		for i, k := range keys {
			items[i] = pool.PutItem{Key: k, Size: int64(len(contentOf(k)))}
		}
		dsts, codes := make([][]byte, len(keys)), make([]pool.Code, len(keys))
		r, err := s.Reserve(context.Background(), items, dsts, codes)
		if err != nil {
			return err
		}
		for i, d := range dsts {
			if commit {
				copy(d, contentOf(keys[i]))
			} else {
				clear(d)
			}
		}
		runtime.Gosched()
		if commit {
			r.Commit()
		} else {
			r.Abort()
		}
		return nil
	}
}

// stressView views keys, checks their bytes, lets the others run and
// checks them again before releasing them.
func stressView(s *Store, rng *rand.Rand) error {
	keys := pickKeys(rng, 1+rng.IntN(32))
	views, codes := make([][]byte, len(keys)), make([]pool.Code, len(keys))
	release := s.ViewBatch(keys, views, codes)
	defer release()
	for range 2 {
		for i, c := range codes {
			if c == pool.OK && !bytes.Equal(views[i], contentOf(keys[i])) {
				return fmt.Errorf("ViewBatch(%s) = %q..., want its value", keys[i], views[i][:min(len(views[i]), 20)])
			}
		}
		runtime.Gosched()
	}
	return nil
}

// stressGet gets a few keys, or sometimes many, whose copies outgrow
// lockedCopyBytes and so run outside the index lock.
func stressGet(s *Store, rng *rand.Rand) error {
	count := 1 + rng.IntN(8)
	if rng.IntN(4) == 0 {
		count = 256
	}
	keys := pickKeys(rng, count)
	bufs, n := make([][]byte, len(keys)), make([]int64, len(keys))
	for i := range bufs {
		bufs[i] = make([]byte, 3000)
	}
	if err := s.Get(context.Background(), keys, bufs, n); err != nil {
		return err
	}
	for i, k := range keys {
		if n[i] >= 0 && !bytes.Equal(bufs[i][:n[i]], contentOf(k)) {
			return fmt.Errorf("Get(%s) = %q..., want its value", k, bufs[i][:min(n[i], 20)])
		}
	}
	return nil
}

func stressRemove(s *Store, rng *rand.Rand) error {
	keys := pickKeys(rng, 1+rng.IntN(4))
	return s.Remove(context.Background(), keys, true, make([]pool.Code, len(keys)))
}

// TestStressConcurrent runs every kind of call at once on overlapping keys
// of a pool too small for them (run with -race), then checks the
// accounting and that removing everything leaves the allocator coalesced.
func TestStressConcurrent(t *testing.T) {
	s, clock := newTestStore(t, Options{Capacity: 192 << 10, Segments: 3, ArenaSize: 32 << 10})
	ops := []stressOp{stressPut, stressReserve(true), stressReserve(false), stressView, stressView, stressGet, stressRemove}
	var workers, evictor sync.WaitGroup
	for g, op := range ops {
		workers.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for range 2000 {
				if err := op(s, rng); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	stop := make(chan struct{})
	evictor.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				clock.Advance(time.Second) // leases run out
				s.EvictNow()
				runtime.Gosched()
			}
		}
	})
	workers.Wait()
	close(stop)
	evictor.Wait()
	checkInvariants(t, s)
	var keys []string
	var want int64
	s.List(context.Background(), "", func(k string) error { keys = append(keys, k); return nil })
	for _, k := range keys {
		want += int64(len(contentOf(k)))
	}
	if st := stat(t, s); st.UsedBytes != want || st.Keys != int64(len(keys)) {
		t.Errorf("Stat() = %d keys, %d bytes used, want %d keys holding %d bytes", st.Keys, st.UsedBytes, len(keys), want)
	}
	if st := stat(t, s); st.AllocationFailure == 0 || st.EvictionAttempts == 0 {
		t.Errorf("Stat() = %d allocation failures, %d eviction steps, want the pool to have been full", st.AllocationFailure, st.EvictionAttempts)
	}
	removeKeys(t, s, true, keys...)
	if st := stat(t, s); st.UsedBytes != 0 || st.Keys != 0 {
		t.Errorf("Stat() after removing everything = %d keys, %d bytes, want 0, 0", st.Keys, st.UsedBytes)
	}
	checkCoalesced(t, s)
}
