package sensitivity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
)

var _ engine.Observer = (*Tracker)(nil)

// chain returns n block hashes of chain id.
func chain(id byte, n int) []keys.Hash {
	hs := make([]keys.Hash, n)
	for i := range hs {
		hs[i][0], hs[i][1] = id, byte(i)
	}
	return hs
}

// blocks spells presence: '#' present, '.' missing.
func blocks(m string) []bool {
	out := make([]bool, len(m))
	for i := range m {
		out[i] = m[i] == '#'
	}
	return out
}

func TestTrackerAttributesMisses(t *testing.T) {
	evicted := int64(0)
	tr := NewTracker(10_000, 60_000, func() (int64, error) { return evicted, nil })
	a, b, c, d := chain('a', 4), chain('b', 3), chain('c', 3), chain('d', 3)
	// Window 0: a, b and c are read whole; d only up to its hole.
	tr.Lookup(0, a, blocks("####"))
	tr.Lookup(100, b, blocks("###"))
	tr.Lookup(200, c, blocks("###"))
	tr.Lookup(300, d, blocks("#.#"))
	evicted = 40
	// Window 1: a is torn (block 1 gone, 2 and 3 stored), b gone from
	// block 1 on, d misses a block never read.
	tr.Lookup(15_000, a, blocks("#.##"))
	tr.Lookup(15_100, b, blocks("#.."))
	tr.Lookup(15_200, d, blocks("#.#"))
	tr.FirstToken(15_000, 30)
	tr.FirstToken(15_100, 700)
	evicted = 100
	// Window 9: c was read 90 s ago, beyond the 60 s horizon.
	tr.Lookup(95_000, c, blocks("..."))
	evicted = 130
	got, err := tr.Windows()
	if err != nil {
		t.Fatal(err)
	}
	want := make([]Window, 10)
	for i := range want {
		want[i].StartMS = float64(i) * 10_000
	}
	want[0].Lookups, want[0].EvictedKeys = 4, 40
	want[1] = Window{StartMS: 10_000, Lookups: 3, RecentMisses: 2, TornMisses: 1, WholeMisses: 1, EvictedKeys: 60, Requests: 2, TTFTP99MS: 30}
	want[9].Lookups, want[9].EvictedKeys = 1, 30
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tracker windows differ (-want +got):\n%s", diff)
	}
}

func TestTrackerReadsOnlyTheLeadingPresentBlocks(t *testing.T) {
	tr := NewTracker(10_000, 60_000, func() (int64, error) { return 0, nil })
	a := chain('a', 4)
	tr.Lookup(0, a, blocks("#.##")) // blocks 2 and 3 stored behind a hole: not read
	tr.Lookup(1_000, a[2:], blocks(".."))
	tr.Lookup(2_000, a, blocks(".###"))
	got, err := tr.Windows()
	if err != nil {
		t.Fatal(err)
	}
	want := []Window{{Lookups: 3, RecentMisses: 1, TornMisses: 1}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Tracker windows differ (-want +got):\n%s", diff)
	}
}
