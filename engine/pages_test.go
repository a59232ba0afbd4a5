package engine

import (
	"testing"

	"github.com/kvctl/kvctl/connector"
	"github.com/kvctl/kvctl/internal/hugepages"
)

// The emulated GPU's pages are advised onto huge pages: blocks are taken
// lowest first, so the pages in use stay together and are written whole,
// and a 64 KiB page's first write maps 2 MiB instead of sixteen faults.
func TestPageMemoryAdvisedHugePages(t *testing.T) {
	if m := hugepages.Mode(); m != "madvise" {
		t.Skipf("transparent huge pages: %q", m)
	}
	p, err := newPageMemory([]connector.PageSlot{{Bytes: 64 << 10}, {Bytes: 128}}, 256)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := hugepages.Eligible(p.mem[0][8<<20:])
	if err != nil {
		t.Skip(err)
	}
	if !ok {
		t.Error("16 MiB of 64 KiB pages are not eligible for huge pages")
	}
}
