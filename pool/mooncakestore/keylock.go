package mooncakestore

import (
	"hash/maphash"
	"slices"
	"sync"
)

// keyLocks serialises the puts of one key within a Store, so that of racing
// puts exactly one finds the key absent and stores it.
type keyLocks struct {
	seed    maphash.Seed
	stripes [256]sync.Mutex
}

func newKeyLocks() *keyLocks { return &keyLocks{seed: maphash.MakeSeed()} }

// lock locks the stripes of keys, in order, and returns the unlock.
func (l *keyLocks) lock(keys []string) (unlock func()) {
	idx := make([]int, 0, len(keys))
	for _, k := range keys {
		idx = append(idx, int(maphash.String(l.seed, k)%uint64(len(l.stripes))))
	}
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for _, i := range idx {
		l.stripes[i].Lock()
	}
	return func() {
		for _, i := range idx {
			l.stripes[i].Unlock()
		}
	}
}
