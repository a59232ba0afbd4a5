package mem

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/pool"
)

const testHash = "0123456789abcdef0123456789abcdef"

// packCases are keys of every form: packable, not, and those starting with
// 0x00 that must be escaped.
var packCases = []struct {
	key    string
	packed bool
}{
	{"model@tp1@rank0@lg0@32@" + testHash, true},
	{"model@tp1@rank1@lg0@32@" + testHash, true},
	{testHash, true}, // an empty prefix
	{"model@" + strings.ToUpper(testHash), false},
	{"model@" + testHash[:31] + "g", false},
	{testHash[:31], false},
	{"k0001", false},
	{"", false},
	{"\x00", false},
	{"\x00\x01\x02" + strings.Repeat("x", 16), false}, // a packed form's length
	{"\x00\x00\x00" + strings.Repeat("x", 16), false}, // an escaped form's start
	{"\x00" + testHash, true},                         // a prefix that needs no escape once packed
}

func TestKeyPackRoundTrip(t *testing.T) {
	var p keyPacker
	seen := map[string]string{}
	for _, tc := range packCases {
		slab := newKeySlab(1)
		ikey := p.storeKey(tc.key, &slab)
		if got := len(ikey) == packedLen && ikey[0] == 0 && (ikey[1] != 0 || ikey[2] != 0); got != tc.packed {
			t.Errorf("storeKey(%q) = %q packed %v, want packed %v", tc.key, ikey, got, tc.packed)
		}
		if got := p.key(ikey); got != tc.key {
			t.Errorf("key(storeKey(%q)) = %q, want %q", tc.key, got, tc.key)
		}
		var buf [packedLen]byte
		if got := p.lookupKey(tc.key, &buf, &prefixMemo{}); got != ikey {
			t.Errorf("lookupKey(%q) = %q, want storeKey's %q", tc.key, got, ikey)
		}
		if other, ok := seen[ikey]; ok {
			t.Errorf("storeKey(%q) = storeKey(%q) = %q", tc.key, other, ikey)
		}
		seen[ikey] = tc.key
	}
}

// One call's keys of several prefixes, in any order, pack as each would
// alone: the call's memo of its last prefix never lends a key another's
// number.
func TestKeyPackMemoFollowsPrefixes(t *testing.T) {
	var p keyPacker
	keys := []string{"a@" + testHash, "b@" + testHash, "a@" + testHash, "ab@" + testHash, "a@" + testHash, "unknown@" + testHash}
	want := make([]string, len(keys))
	for i, k := range keys[:len(keys)-1] {
		slab := newKeySlab(1)
		want[i] = p.storeKey(k, &slab)
	}
	want[len(keys)-1] = keys[len(keys)-1] // never put: not numbered
	var memo prefixMemo
	for i, k := range keys {
		var buf [packedLen]byte
		if got := p.lookupKey(k, &buf, &memo); got != want[i] {
			t.Errorf("key %d (%q) with the call's memo: %q, want %q", i, k, got, want[i])
		}
	}
	slab := newKeySlab(len(keys))
	for i, k := range keys[:len(keys)-1] {
		if got := p.storeKey(k, &slab); got != want[i] {
			t.Errorf("key %d (%q) stored in one run: %q, want %q", i, k, got, want[i])
		}
	}
}

// A lookup of an unknown prefix numbers nothing; once the table is full,
// keys of new prefixes stay as they are, for their puts and lookups alike.
func TestKeyPackTableFull(t *testing.T) {
	var p keyPacker
	var buf [packedLen]byte
	unknown := "new@" + testHash
	if got := p.lookupKey(unknown, &buf, &prefixMemo{}); got != unknown {
		t.Errorf("lookupKey(%q) on an empty table = %q, want the key", unknown, got)
	}
	if tab := p.table.Load(); tab != nil {
		t.Errorf("a lookup numbered prefixes %q, want none", tab.names)
	}
	for i := range maxPrefixes {
		if id := p.id(fmt.Sprintf("p%d@", i), true); id != uint16(i+1) {
			t.Fatalf("id(p%d@) = %d, want %d", i, id, i+1)
		}
	}
	slab := newKeySlab(1)
	if got := p.storeKey(unknown, &slab); got != unknown {
		t.Errorf("storeKey(%q) on a full table = %q, want the key", unknown, got)
	}
	if got := p.lookupKey(unknown, &buf, &prefixMemo{}); got != unknown {
		t.Errorf("lookupKey(%q) on a full table = %q, want the key", unknown, got)
	}
	known := "p7@" + testHash
	if got := p.lookupKey(known, &buf, &prefixMemo{}); len(got) != packedLen {
		t.Errorf("lookupKey(%q) on a full table = %q, want it packed", known, got)
	}
}

// The pool keeps no caller's key string: keys spelled into a buffer that
// is overwritten after the put are found, listed and snapshotted as put.
func TestPutKeysCopied(t *testing.T) {
	s, _ := newTestStore(t, Options{Capacity: 1 << 20, Segments: 1})
	var want []string
	buf := make([]byte, 0, 1024)
	var items []pool.PutItem
	for _, tc := range packCases {
		if tc.key == "" {
			continue
		}
		want = append(want, tc.key)
		from := len(buf)
		buf = append(buf, tc.key...)
		items = append(items, sized(unsafe.String(&buf[from], len(tc.key)), 8, pool.PutOptions{}))
	}
	mustPut(t, s, items...)
	clear(buf[:cap(buf)])
	var listed []string
	if err := s.List(context.Background(), "", func(k string) error { listed = append(listed, k); return nil }); err != nil {
		t.Fatalf("List = %v", err)
	}
	slices.Sort(listed)
	slices.Sort(want)
	if diff := cmp.Diff(want, listed); diff != "" {
		t.Errorf("List after the callers' keys were overwritten (-want +got):\n%s", diff)
	}
	if got := present(t, s, want...); slices.Contains(got, 0) {
		t.Errorf("Exist(%q) = %v, want all present", want, got)
	}
}

func FuzzKeyPack(f *testing.F) {
	for _, tc := range packCases {
		f.Add(tc.key, "m@"+testHash)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		var p keyPacker
		slab := newKeySlab(2)
		ia, ib := p.storeKey(a, &slab), p.storeKey(b, &slab)
		if (ia == ib) != (a == b) {
			t.Fatalf("storeKey(%q) = %q, storeKey(%q) = %q: equal forms for unequal keys or the reverse", a, ia, b, ib)
		}
		if got := p.key(ia); got != a {
			t.Fatalf("key(storeKey(%q)) = %q, want the key", a, got)
		}
		var buf [packedLen]byte
		var memo prefixMemo // one call's lookups of a, then b
		if got := p.lookupKey(a, &buf, &memo); got != ia {
			t.Fatalf("lookupKey(%q) = %q, want storeKey's %q", a, got, ia)
		}
		if got := p.lookupKey(b, &buf, &memo); got != ib {
			t.Fatalf("lookupKey(%q) after %q = %q, want storeKey's %q", b, a, got, ib)
		}
	})
}
