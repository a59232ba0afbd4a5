package mem

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

// TestRemoveAll checks RemoveAll as the master's: without force it keeps
// leased objects and objects being read, with force it removes them too
// (a read object's memory freed at its release), and an object still
// being written stays either way, answering REPLICA_IS_NOT_READY to
// Remove.
func TestRemoveAll(t *testing.T) {
	ctx := context.Background()
	s, clock := newTestStore(t, Options{Capacity: 1 << 20, Segments: 2})
	mustPut(t, s, sized("plain", 100, pool.PutOptions{}), sized("pinned", 100, pool.PutOptions{HardPin: true}),
		sized("leased", 100, pool.PutOptions{}), sized("read", 100, pool.PutOptions{}))
	r, _, _ := reserve(t, s, inPlace("writing", 100, pool.PutOptions{}))
	clock.Advance(time.Second)
	s.ExistLeasing(ctx, []string{"leased"}, make([]int, 1))
	_, release, _ := s.View("read")

	n, err := s.RemoveAll(ctx, false)
	if err != nil || n != 2 {
		t.Fatalf("RemoveAll(no force) = %d, %v, want 2 (plain, pinned)", n, err)
	}
	if got := present(t, s, "plain", "pinned", "leased", "read"); !cmp.Equal(got, []int{0, 0, 1, 1}) {
		t.Errorf("Exist after RemoveAll(no force) = %v, want [0 0 1 1]", got)
	}
	if got := removeKeys(t, s, true, "writing")[0]; got != pool.ReplicaIsNotReady {
		t.Errorf("Remove(key being written, force) = %v, want REPLICA_IS_NOT_READY", got)
	}
	if n, err := s.RemoveAll(ctx, true); err != nil || n != 2 {
		t.Fatalf("RemoveAll(force) = %d, %v, want 2 (leased, read)", n, err)
	}
	if used := stat(t, s).UsedBytes; used != 100+100 {
		t.Errorf("UsedBytes before the read's release = %d, want the read and the reservation's 200", used)
	}
	release()
	r.Commit()
	if st := stat(t, s); st.Keys != 1 || st.UsedBytes != 100 {
		t.Errorf("Stat() after the release and commit = %d keys, %d bytes, want 1 (writing), 100", st.Keys, st.UsedBytes)
	}
	checkInvariants(t, s)
	s.Close()
	if _, err := s.RemoveAll(ctx, true); err == nil {
		t.Errorf("RemoveAll on a closed store = nil error, want ErrClosed")
	}
}
