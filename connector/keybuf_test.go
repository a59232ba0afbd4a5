package connector

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
)

func TestKeySpellerMatchesTheKeys(t *testing.T) {
	l := keys.Layout{TokensPerBlock: 32, World: 2, Ranks: []int{0, 1},
		LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 100}, {ID: 3, BytesPerPage: 50}},
		Replicated:  []keys.LayerGroup{{ID: 7, BytesPerPage: 10}}}
	k := keys.Settings{Layout: l, Namespace: keys.Namespace{Name: "ns", ModelKey: "model"}}
	slots := PageSlots(l, 1)
	s := newKeySpeller(k, slots)
	hashes := []keys.Hash{{1, 2, 3}, {0xff, 0xee}, {}}

	s.start(len(hashes) * len(s.block))
	var got, want []string
	for _, h := range hashes {
		got = s.appendBlock(got, h)
		want = k.AppendBlockKeys(want, h)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("appendBlock (-want +got):\n%s", diff)
	}

	s.start(len(hashes) * len(slots))
	for _, h := range hashes {
		for i, sl := range slots {
			want := k.Namespace.PageKey(sl.Shard, sl.LayerGroup, l.TokensPerBlock, h)
			if got := s.page(i, h); got != want {
				t.Errorf("page(%d, %s) = %q, want %q", i, h, got, want)
			}
			if got := s.owned(i, h); got != want {
				t.Errorf("owned(%d, %s) = %q, want %q", i, h, got, want)
			}
		}
	}
}

func TestKeySpellerBorrowedKeys(t *testing.T) {
	k := keys.Settings{Layout: testLayout, Namespace: testNS}
	s := newKeySpeller(k, PageSlots(testLayout, 0))
	a, b := keys.Hash{1}, keys.Hash{2}

	s.start(1)
	first := s.page(0, a)
	want := k.Namespace.PageKey(keys.Shard{World: 1}, testLayout.LayerGroups[0], testT, a)
	s.start(1)
	if got := s.page(0, b); first != got {
		t.Errorf("after a second call, the first call's key = %q, want %q (the buffer reused)", first, got)
	}

	s.start(1)
	kept := s.page(0, a)
	s.abandon()
	s.start(1)
	s.page(0, b)
	if kept != want {
		t.Errorf("a key borrowed before abandon = %q after the next call, want %q", kept, want)
	}
}
