package mem

import (
	"reflect"
	"testing"

	"github.com/kvctl/kvctl/internal/linetest"
)

// TestStoreLayout checks that the fields every call reads do not share a
// cache line with those the calls write, nor the groups written with each
// other (Store's doc comment).
func TestStoreLayout(t *testing.T) {
	read := []string{"opts", "address", "segs", "maxAlloc", "runLimit", "qbits", "closed", "stop", "done",
		"index", "keys", "objs", "keyMem"}
	calls := []string{"mu", "inflight"}
	counts := []string{"nextSeg", "seq", "published", "used"}
	leases := []string{"draws", "lastGrant", "pinners"}
	rest := []string{"epoch", "count", "needEviction", "softPins", "groupsMu", "groups"}
	if err := linetest.Apart(reflect.TypeFor[Store](), read, calls, counts, leases, rest); err != nil {
		t.Error(err)
	}
}

// TestSlabsLayout checks that the fields every take reads are a line away
// from the shards' locks.
func TestSlabsLayout(t *testing.T) {
	if err := linetest.Apart(reflect.TypeFor[slabs[object]](), []string{"size", "ahead", "making"}, []string{"shards"}); err != nil {
		t.Error(err)
	}
}

// TestKeyIndexLayout checks that what every lookup reads is a line away
// from the stripes' locks.
func TestKeyIndexLayout(t *testing.T) {
	if err := linetest.Apart(reflect.TypeFor[keyIndex](), []string{"heads", "size", "seed", "crowded", "retired"}, []string{"stripes"}); err != nil {
		t.Error(err)
	}
}
