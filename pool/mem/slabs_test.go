package mem

import (
	"sync"
	"testing"
	"unsafe"
)

// The objects taken by concurrent calls are zero and never shared: each
// call marks its own, and every mark is intact at the end; calls larger
// than a slab get objects of their own.
func TestObjectSlabsHandOutEachObjectOnce(t *testing.T) {
	s := newSlabs[object](sharedSlabObjects)
	sizes := []int{1, 3, 64, 256, sharedSlabObjects - 1, sharedSlabObjects, sharedSlabObjects + 1, 7}
	const workers, rounds = 4, 200
	taken := make([][][]object, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range rounds {
				objs := s.take(sizes[(w+r)%len(sizes)])
				for i := range objs {
					if objs[i] != (object{}) {
						t.Errorf("worker %d round %d: object %d is not zero", w, r, i)
						return
					}
					objs[i].seq = uint64(w*rounds+r)<<32 | uint64(i)
				}
				taken[w] = append(taken[w], objs)
			}
		}()
	}
	wg.Wait()
	for w, calls := range taken {
		for r, objs := range calls {
			if want := sizes[(w+r)%len(sizes)]; len(objs) != want || cap(objs) != want {
				t.Fatalf("worker %d round %d: %d objects (room %d), want %d", w, r, len(objs), cap(objs), want)
			}
			for i := range objs {
				if want := uint64(w*rounds+r)<<32 | uint64(i); objs[i].seq != want {
					t.Fatalf("worker %d round %d: object %d was handed to another call too", w, r, i)
				}
			}
		}
	}
}

// Consecutive small calls share a slab: the second call's objects follow
// the first's in memory.
func TestObjectSlabsShareASlab(t *testing.T) {
	s := newSlabs[object](sharedSlabObjects)
	a, b := s.take(3), s.take(5)
	if end := uintptr(unsafe.Pointer(&a[2])) + unsafe.Sizeof(object{}); uintptr(unsafe.Pointer(&b[0])) != end {
		t.Errorf("the second call's objects do not follow the first's in one slab")
	}
}

// A call that finds the first shard's lock held takes from another
// shard's slab, and the first shard's slab goes on where it stopped.
func TestObjectSlabsSpillToAnotherShard(t *testing.T) {
	s := newSlabs[object](sharedSlabObjects)
	follows := func(a, b []object) bool {
		return uintptr(unsafe.Pointer(&a[len(a)-1]))+unsafe.Sizeof(object{}) == uintptr(unsafe.Pointer(&b[0]))
	}
	a := s.take(3)
	s.shards[0].mu.Lock()
	b := s.take(5)
	s.shards[0].mu.Unlock()
	c := s.take(2)
	if follows(a, b) {
		t.Errorf("a call that found the first shard held took from its slab")
	}
	if !follows(a, c) {
		t.Errorf("the first shard's slab did not go on where it stopped")
	}
	if len(s.shards[1].cur) != sharedSlabObjects-5 {
		t.Errorf("the second shard's slab has %d objects left, want %d", len(s.shards[1].cur), sharedSlabObjects-5)
	}
}
