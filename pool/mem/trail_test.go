package mem

import (
	"context"
	"fmt"
	"os"
	"testing"
	"unsafe"

	"github.com/kvctl/kvctl/pool"
)

// mappedRange is a range of a segment's address space given to populate.
type mappedRange struct{ from, to int64 }

// watchPopulate records the ranges g's populate is given, as offsets of
// g's address space.
func watchPopulate(t *testing.T, g *segment) *[]mappedRange {
	var got []mappedRange
	g.populate = func(mem []byte) {
		p := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
		for _, a := range g.arenas {
			base := uintptr(unsafe.Pointer(unsafe.SliceData(a.mem)))
			if p >= base && p < base+uintptr(len(a.mem)) {
				from := a.start + int64(p-base)
				got = append(got, mappedRange{from, from + int64(len(mem))})
				return
			}
		}
		t.Errorf("populate given memory outside the segment's arenas")
	}
	return &got
}

// Small values' arenas have their pages mapped a little ahead of the fill:
// after every put the ranges asked for cover the fill, reach at most
// trailLead past it (or the arena's end), start on pages, follow one
// another and never cross an arena; one call for every trailLead/2 of fill
// or so.
func TestSmallValuesMappedAheadOfTheirFill(t *testing.T) {
	const arenaSize, valueSize, perCall = 8 << 20, 128, 512
	s, err := New(Options{Capacity: 24 << 20, Segments: 1, ArenaSize: arenaSize, Eviction: EvictManual})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	g := s.segs[0]
	got := watchPopulate(t, g)
	for call := 0; int64(call+1)*perCall*valueSize <= 20<<20; call++ {
		items := make([]pool.PutItem, perCall)
		for i := range items {
			items[i] = pool.PutItem{Key: fmt.Sprint("k", call, "-", i), Value: make([]byte, valueSize)}
		}
		if err := s.Put(context.Background(), items, make([]pool.Code, len(items))); err != nil {
			t.Fatalf("Put = %v", err)
		}
		fill := g.used
		if len(*got) == 0 {
			t.Fatalf("after %d bytes put nothing was mapped ahead", fill)
		}
		last := (*got)[len(*got)-1]
		arenaEnd := (fill-1)/arenaSize*arenaSize + arenaSize
		if last.to < fill || last.to > min(fill+trailLead, arenaEnd) {
			t.Fatalf("after %d bytes put the pages are mapped to %d, want %d to %d", fill, last.to, fill, min(fill+trailLead, arenaEnd))
		}
	}
	page := int64(os.Getpagesize())
	prev := int64(0)
	for i, r := range *got {
		if r.from%page != 0 || r.from/arenaSize != (r.to-1)/arenaSize {
			t.Errorf("range %d [%d, %d) does not start on a page or crosses an arena", i, r.from, r.to)
		}
		if r.from > prev || prev-r.from >= page {
			t.Errorf("range %d [%d, %d) does not follow the range before, which ended at %d", i, r.from, r.to, prev)
		}
		prev = r.to
	}
	if n, most := len(*got), int(g.used/(trailLead/2))+3; n > most {
		t.Errorf("%d calls to map %d bytes of fill, want at most %d", n, g.used, most)
	}
}
