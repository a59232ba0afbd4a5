package pooltest

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
	"unsafe"

	"github.com/kvctl/kvctl/pool"
)

// errPanicked marks a call that panicked instead of returning an error.
var errPanicked = errors.New("panicked")

// callNoPanic runs call, turning a panic into an error wrapping errPanicked.
func callNoPanic(call func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: %v", errPanicked, r)
		}
	}()
	return call()
}

// testConcurrentWriters races writers of one key, each with its own value,
// against readers, for several keys in turn: exactly one put wins, the
// others are no-ops, and every read, during and after, sees the winner's
// bytes or nothing.
func testConcurrentWriters(f *fixture) {
	for round := range 8 {
		raceOneKey(f, f.key("contended/"+strconv.Itoa(round)))
		if f.t.Failed() {
			return
		}
	}
}

func raceOneKey(f *fixture, k string) {
	const writers, readers, size = 8, 4, 512 << 10
	codes := make([]pool.Code, writers)
	seen := make([][][]byte, readers)
	var wg, writersWG sync.WaitGroup
	stop := make(chan struct{})
	for r := range readers {
		wg.Go(func() { seen[r] = readUntil(f, k, size, stop) })
	}
	for w := range writers {
		writersWG.Go(func() {
			res := make([]pool.Code, 1)
			err := f.s.Put(f.ctx, []pool.PutItem{item(k, value(k+strconv.Itoa(w), size))}, res)
			codes[w] = res[0]
			if err != nil {
				codes[w] = pool.CodeOf(err)
			}
		})
	}
	writersWG.Wait()
	close(stop)
	wg.Wait()
	want := value(k+strconv.Itoa(winnerOf(f, k, codes)), size)
	f.mustGet(k, want)
	for r := range seen {
		for _, got := range seen[r] {
			if string(got) != string(want) {
				f.t.Fatalf("reader %d of %q saw %s during the race, want the winner's %s", r, k, describe(got), describe(want))
			}
		}
	}
}

// winnerOf is the one writer whose put was OK; the others must have been
// no-ops.
func winnerOf(f *fixture, k string, codes []pool.Code) int {
	f.t.Helper()
	winner := -1
	for w, c := range codes {
		switch {
		case c == pool.OK && winner < 0:
			winner = w
		case c == pool.OK:
			f.t.Fatalf("Put(%q) by writers %d and %d both = OK, want exactly one", k, winner, w)
		case c != pool.ObjectAlreadyExists:
			f.t.Fatalf("Put(%q) by writer %d = %v, want OK or OBJECT_ALREADY_EXISTS", k, w, c)
		}
	}
	if winner < 0 {
		f.t.Fatalf("Put(%q) by %d writers: none = OK, want exactly one (codes %v)", k, len(codes), codes)
	}
	return winner
}

// readUntil reads key until stop closes, and once more after, returning
// the values it saw (missing reads are skipped).
func readUntil(f *fixture, key string, size int, stop <-chan struct{}) [][]byte {
	var seen [][]byte
	for done := false; !done; {
		select {
		case <-stop:
			done = true
		default:
		}
		buf := [][]byte{make([]byte, size)}
		n := make([]int64, 1)
		if err := f.s.Get(f.ctx, []string{key}, buf, n); err != nil {
			f.t.Errorf("Get(%q) during the race = %v, want nil", key, err)
			return seen
		}
		// A read that races a put finds nothing yet, or, on a real
		// Mooncake master, the key with its replica still being written:
		// REPLICA_IS_NOT_READY (-703), which the master answers until
		// PutEnd (seen against mooncake_master at 3b5a5941).
		switch {
		case n[0] >= 0:
			seen = append(seen, buf[0][:n[0]])
		case n[0] != int64(pool.ObjectNotFound) && n[0] != int64(pool.ReplicaIsNotReady):
			f.t.Errorf("Get(%q) during the race n = %d, want a size, %d or %d", key, n[0], pool.ObjectNotFound, pool.ReplicaIsNotReady)
		}
	}
	return seen
}

func testList(f *fixture) {
	l, ok := f.s.(pool.Lister)
	if !ok {
		f.t.Skip("backend does not implement pool.Lister")
	}
	want := []string{f.key("dir/a"), f.key("dir/b"), f.key("dir/sub/c"), f.key("other")}
	for _, k := range want {
		f.mustPut(item(k, value(k, 16)))
	}
	got := list(f, l, f.prefix)
	if !slices.Equal(got, sorted(want)) {
		f.t.Errorf("List(%q) = %q, want %q", f.prefix, got, sorted(want))
	}
	if got := list(f, l, f.prefix+"dir/"); !slices.Equal(got, sorted(want[:3])) {
		f.t.Errorf("List(%q) = %q, want %q", f.prefix+"dir/", got, sorted(want[:3]))
	}
	if got := list(f, l, f.prefix+"nothing/"); len(got) != 0 {
		f.t.Errorf("List(%q) = %q, want none", f.prefix+"nothing/", got)
	}
	stopErr := errors.New("stop")
	calls := 0
	err := l.List(f.ctx, f.prefix, func(string) error { calls++; return stopErr })
	if !errors.Is(err, stopErr) || calls != 1 {
		f.t.Errorf("List with fn failing at once = %v after %d calls, want %v after 1", err, calls, stopErr)
	}
}

func list(f *fixture, l pool.Lister, prefix string) []string {
	f.t.Helper()
	var got []string
	if err := l.List(f.ctx, prefix, func(k string) error { got = append(got, k); return nil }); err != nil {
		f.t.Fatalf("List(%q) = %v, want nil", prefix, err)
	}
	return sorted(got)
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

func testExistLeasing(f *fixture) {
	le, ok := f.s.(pool.LeasingExister)
	if !ok {
		f.t.Skip("backend does not implement pool.LeasingExister")
	}
	k, missing := f.key("k"), f.key("missing")
	f.mustPut(item(k, value(k, 8)))
	st := make([]int, 3)
	if err := le.ExistLeasing(f.ctx, []string{k, missing, k}, st); err != nil {
		f.t.Fatalf("ExistLeasing = %v, want nil", err)
	}
	if want := []int{1, 0, 1}; !slices.Equal(st, want) {
		f.t.Errorf("ExistLeasing(k, missing, k) = %v, want %v", st, want)
	}
	if err := callNoPanic(func() error { return le.ExistLeasing(f.ctx, []string{k}, nil) }); err == nil || errors.Is(err, errPanicked) {
		f.t.Errorf("ExistLeasing with mismatched slice lengths = %v, want an error", err)
	}
}

func testSizes(f *fixture) {
	sz, ok := f.s.(pool.Sizer)
	if !ok {
		f.t.Skip("backend does not implement pool.Sizer")
	}
	small, large, missing := f.key("small"), f.key("large"), f.key("missing")
	f.mustPut(item(small, value(small, 1)), item(large, value(large, 3<<20)))
	got := make([]int64, 4)
	if err := sz.Sizes(f.ctx, []string{large, missing, small, large}, got); err != nil {
		f.t.Fatalf("Sizes = %v, want nil", err)
	}
	if want := []int64{3 << 20, int64(pool.ObjectNotFound), 1, 3 << 20}; !slices.Equal(got, want) {
		f.t.Errorf("Sizes(large, missing, small, large) = %v, want %v", got, want)
	}
	if err := callNoPanic(func() error { return sz.Sizes(f.ctx, []string{small}, nil) }); err == nil || errors.Is(err, errPanicked) {
		f.t.Errorf("Sizes with mismatched slice lengths = %v, want an error", err)
	}
}

func testUsage(f *fixture) {
	ur, ok := f.s.(pool.UsageReporter)
	if !ok {
		f.t.Skip("backend does not implement pool.UsageReporter")
	}
	k := f.key("usage")
	before, _ := ur.Usage()
	f.mustPut(item(k, value(k, 1<<20)))
	used, capacity := ur.Usage()
	st, err := f.s.Stat(f.ctx)
	if err != nil {
		f.t.Fatalf("Stat = %v, want nil", err)
	}
	if used < before+1<<20 || used != st.UsedBytes || capacity != st.CapacityBytes {
		f.t.Errorf("Usage() after a 1 MiB put = %d of %d bytes (%d before), want Stat's %d of %d", used, capacity, before, st.UsedBytes, st.CapacityBytes)
	}
}

// testArenasPinned: values put while a caller pins the arenas, and after
// it stopped (twice), read back whole.
func testArenasPinned(f *fixture) {
	po, ok := f.s.(pool.ArenaPinObserver)
	if !ok {
		f.t.Skip("backend does not implement pool.ArenaPinObserver")
	}
	pinned, after := f.key("pinned"), f.key("after")
	unpinned := po.ArenasPinned()
	f.mustPut(item(pinned, value(pinned, 1<<20)))
	unpinned()
	unpinned()
	f.mustPut(item(after, value(after, 1<<20)))
	f.mustGet(pinned, value(pinned, 1<<20))
	f.mustGet(after, value(after, 1<<20))
}

func testLocate(f *fixture) {
	lo, ok := f.s.(pool.Locator)
	if !ok {
		f.t.Skip("backend does not implement pool.Locator")
	}
	a, b, missing := f.key("a"), f.key("b"), f.key("missing")
	f.mustPut(item(a, value(a, 100)), item(b, value(b, 300)))
	got := make([]pool.Location, 3)
	if err := lo.Locate(f.ctx, []string{b, missing, a}, got); err != nil {
		f.t.Fatalf("Locate = %v, want nil", err)
	}
	if got[0].Code != pool.OK || got[0].Size != 300 || got[2].Code != pool.OK || got[2].Size != 100 {
		f.t.Errorf("Locate(b, missing, a) = %+v, want b (300 bytes) and a (100 bytes) located", got)
	}
	if got[1].Code != pool.ObjectNotFound {
		f.t.Errorf("Locate(missing).Code = %v, want %v", got[1].Code, pool.ObjectNotFound)
	}
	segs := segmentNames(f)
	for _, i := range []int{0, 2} {
		if !segs[got[i].Segment] || got[i].Offset < 0 {
			f.t.Errorf("Locate location %+v: want a segment of Stat's %v and an offset >= 0", got[i], segs)
		}
	}
	if got[0].Segment == got[2].Segment && got[0].Offset == got[2].Offset {
		f.t.Errorf("Locate put a and b at the same place %+v", got[0])
	}
	if err := callNoPanic(func() error { return lo.Locate(f.ctx, []string{a}, nil) }); err == nil || errors.Is(err, errPanicked) {
		f.t.Errorf("Locate with mismatched slice lengths = %v, want an error", err)
	}
}

// segmentNames is the set of the store's segment names.
func segmentNames(f *fixture) map[string]bool {
	st, err := f.s.Stat(f.ctx)
	if err != nil {
		f.t.Fatalf("Stat = %v, want nil", err)
	}
	names := map[string]bool{}
	for _, s := range st.Segments {
		names[s.Name] = true
	}
	return names
}

func testLeases(f *fixture) {
	lr, ok := f.s.(pool.LeaseReporter)
	if !ok {
		f.t.Skip("backend does not implement pool.LeaseReporter")
	}
	if ttl := lr.LeaseTTL(); ttl <= 0 {
		f.t.Fatalf("LeaseTTL() = %v, want a positive duration", ttl)
	}
	k, idle, missing := f.key("k"), f.key("idle"), f.key("missing")
	f.mustPut(item(k, value(k, 8)), item(idle, value(idle, 8)))
	before := time.Now()
	if err := f.s.Get(f.ctx, []string{k}, [][]byte{make([]byte, 8)}, make([]int64, 1)); err != nil {
		f.t.Fatalf("Get = %v, want nil", err)
	}
	until := make([]time.Time, 3)
	if err := lr.Leases(f.ctx, []string{k, idle, missing}, until); err != nil {
		f.t.Fatalf("Leases = %v, want nil", err)
	}
	if !until[0].After(before) || !until[1].IsZero() || !until[2].IsZero() {
		f.t.Errorf("Leases(got, idle, missing) = %v, want a deadline after %v, then two zero Times", until, before)
	}
	if err := callNoPanic(func() error { return lr.Leases(f.ctx, []string{k}, nil) }); err == nil || errors.Is(err, errPanicked) {
		f.t.Errorf("Leases with mismatched slice lengths = %v, want an error", err)
	}
}

func testKeysCopied(f *fixture) {
	if _, ok := f.s.(pool.KeyCopier); !ok {
		f.t.Skip("backend does not implement pool.KeyCopier")
	}
	k := f.key("copied-0123456789abcdef0123456789abcdef")
	buf := []byte(k)
	f.mustPut(item(unsafe.String(&buf[0], len(buf)), value(k, 1)))
	clear(buf)
	if got := f.exist(k); got[0] != 1 {
		f.t.Errorf("Exist(%q) after the put's key string was overwritten = %v, want [1]", k, got)
	}
	f.mustGet(k, value(k, 1))
}

func testGetParts(f *fixture) {
	pg, ok := f.s.(pool.PartGetter)
	if !ok {
		f.t.Skip("backend does not implement pool.PartGetter")
	}
	large, missing := f.key("large"), f.key("missing")
	whole := value(large, 3<<20+100)
	f.mustPut(item(large, whole))
	size := int64(len(whole))
	cases := []struct {
		key      string
		off, len int64
		want     int64
	}{
		{large, 0, 1 << 20, size},
		{large, 1 << 20, 2 << 20, size},
		{large, size - 100, 100, size},
		{large, size, 0, size},
		{large, size - 99, 100, int64(pool.InvalidParams)},
		{large, -1, 10, int64(pool.InvalidParams)},
		{missing, 0, 10, int64(pool.ObjectNotFound)},
	}
	keys, offs, bufs := make([]string, len(cases)), make([]int64, len(cases)), make([][]byte, len(cases))
	for i, c := range cases {
		keys[i], offs[i], bufs[i] = c.key, c.off, make([]byte, c.len)
	}
	n := make([]int64, len(cases))
	if err := pg.GetParts(f.ctx, keys, offs, bufs, n); err != nil {
		f.t.Fatalf("GetParts = %v, want nil", err)
	}
	for i, c := range cases {
		if n[i] != c.want {
			f.t.Errorf("GetParts(%s, from %d, %d bytes) = %d, want %d", c.key, c.off, c.len, n[i], c.want)
		} else if c.want == size && !slices.Equal(bufs[i], whole[c.off:c.off+c.len]) {
			f.t.Errorf("GetParts(%s, from %d, %d bytes) copied other bytes than the value's", c.key, c.off, c.len)
		}
	}
	if err := callNoPanic(func() error { return pg.GetParts(f.ctx, []string{large}, nil, [][]byte{nil}, n[:1]) }); err == nil || errors.Is(err, errPanicked) {
		f.t.Errorf("GetParts with mismatched slice lengths = %v, want an error", err)
	}
}
