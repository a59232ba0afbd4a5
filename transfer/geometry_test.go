package transfer

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/stats"
)

func TestStagingGeometry(t *testing.T) {
	tests := []struct {
		batch       int
		staging     int64
		page        int64
		slots       int
		wantWarning bool
	}{
		{256, 1 << 30, 64 << 10, 256, false},
		{256, 1 << 20, 64 << 10, 16, true},
		{256, 1 << 20, 4 << 10, 256, false},
		{8, 1000, 4096, 1, true},
		{1, 1 << 30, 1 << 20, 1, false},
		{64, 64 * 100, 100, 64, false},
		{65, 64 * 100, 100, 64, true},
	}
	for _, tt := range tests {
		g := StagingGeometry(tt.batch, tt.staging, tt.page)
		if g.Slots != tt.slots || (g.Warning != "") != tt.wantWarning {
			t.Errorf("StagingGeometry(%d, %d, %d) = %d slots, warning %q; want %d slots, warning %v",
				tt.batch, tt.staging, tt.page, g.Slots, g.Warning, tt.slots, tt.wantWarning)
		}
		if g.AllocBytes() != int64(g.Slots)*tt.page {
			t.Errorf("StagingGeometry(%d, %d, %d).AllocBytes() = %d, want %d", tt.batch, tt.staging, tt.page, g.AllocBytes(), int64(g.Slots)*tt.page)
		}
	}
}

func TestWorkerGeometry(t *testing.T) {
	tests := []struct {
		batch       int
		staging     int64
		page        int64
		workers     int
		slots       int
		wantWarning bool
	}{
		// An even share: 1 GiB / 4 workers / 64 KiB = 4096 slots, capped by the batch.
		{256, 1 << 30, 64 << 10, 4, 256, false},
		// The share is 4 slots; the floor min(64, batch) wins.
		{256, 1 << 20, 64 << 10, 4, 64, true},
		// The floor is the batch when the batch is below 64.
		{16, 1 << 20, 64 << 10, 8, 16, true},
		// A share between the floor and the batch.
		{256, 16 << 20, 64 << 10, 2, 128, true},
		{256, 1 << 30, 64 << 10, 0, 256, false},
	}
	for _, tt := range tests {
		g := WorkerGeometry(tt.batch, tt.staging, tt.page, tt.workers)
		if g.Slots != tt.slots || (g.Warning != "") != tt.wantWarning {
			t.Errorf("WorkerGeometry(%d, %d, %d, %d) = %d slots, warning %q; want %d slots, warning %v",
				tt.batch, tt.staging, tt.page, tt.workers, g.Slots, g.Warning, tt.slots, tt.wantWarning)
		}
	}
}

func TestUniformLayout(t *testing.T) {
	l, err := UniformLayout(2, 4, 64<<10)
	if err != nil {
		t.Fatalf("UniformLayout(2, 4, 64KiB) error = %v", err)
	}
	want := Layout{Groups: []LayerGroup{
		{RegionBytes: []int64{16 << 10, 16 << 10, 16 << 10, 16 << 10}},
		{RegionBytes: []int64{16 << 10, 16 << 10, 16 << 10, 16 << 10}},
	}}
	if diff := cmp.Diff(want, l); diff != "" {
		t.Errorf("UniformLayout(2, 4, 64KiB) mismatch (-want +got):\n%s", diff)
	}
	if got := l.MaxPageBytes(); got != 64<<10 {
		t.Errorf("MaxPageBytes() = %d, want %d", got, 64<<10)
	}
	for _, bad := range [][3]int64{{0, 1, 4}, {1, 0, 4}, {1, 1, 0}, {1, 3, 100}} {
		if _, err := UniformLayout(int(bad[0]), int(bad[1]), bad[2]); err == nil {
			t.Errorf("UniformLayout(%d, %d, %d) succeeded, want an error", bad[0], bad[1], bad[2])
		}
	}
}

func TestLayoutValidate(t *testing.T) {
	tests := []struct {
		name    string
		layout  Layout
		wantErr bool
	}{
		{"ok", testLayout, false},
		{"no groups", Layout{}, true},
		{"no regions", Layout{Groups: []LayerGroup{{}}}, true},
		{"zero region", Layout{Groups: []LayerGroup{{RegionBytes: []int64{8, 0}}}}, true},
	}
	for _, tt := range tests {
		if err := tt.layout.Validate(); (err != nil) != tt.wantErr {
			t.Errorf("Validate(%s) = %v, want error %v", tt.name, err, tt.wantErr)
		}
	}
}

func TestPagePoolRegions(t *testing.T) {
	f := newFixture(t, 10, newMapStore())
	p := f.pools[1] // regions 512, 200, 312
	base := p.Base()
	tests := []struct {
		page, region int
		want         int64 // offset from base
	}{
		{0, 0, 0},
		{3, 0, 3 * 512},
		{0, 1, 10 * 512},
		{2, 1, 10*512 + 2*200},
		{9, 2, 10*512 + 10*200 + 9*312},
	}
	for _, tt := range tests {
		if got := p.Region(tt.page, tt.region); got != base.Add(tt.want) {
			t.Errorf("Region(%d, %d) = base+%d, want base+%d", tt.page, tt.region, int64(got-base), tt.want)
		}
	}
	if p.Bytes() != 10*1024 || p.Pages() != 10 {
		t.Errorf("Bytes(), Pages() = %d, %d, want %d, 10", p.Bytes(), p.Pages(), 10*1024)
	}
}

// TestNewPagePoolCounts checks that a pool's page count is refused, before
// any memory is asked for, outside 1 to math.MaxInt32 (a resolved page
// keeps its page as an int32).
func TestNewPagePoolCounts(t *testing.T) {
	f := newFixture(t, 1, newMapStore())
	group := LayerGroup{RegionBytes: []int64{1}}
	for _, pages := range []int{0, -1, math.MaxInt32 + 1} {
		p, err := NewPagePool(f.dev, group, pages)
		if err == nil {
			ClosePagePools([]*PagePool{p})
		}
		if err == nil || !strings.Contains(err.Error(), strconv.Itoa(pages)+" pages") {
			t.Errorf("NewPagePool(%d pages) error = %v, want one naming the count", pages, err)
		}
	}
	p, err := NewPagePool(f.dev, group, 3)
	if err != nil || p.Pages() != 3 {
		t.Fatalf("NewPagePool(3 pages) = %v, %v", p, err)
	}
	ClosePagePools([]*PagePool{p})
}

func TestPagePoolFirstPages(t *testing.T) {
	f := newFixture(t, 10, newMapStore())
	p := f.pools[1] // regions 512, 200, 312
	s, err := f.dev.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	in, out := p.NewRegionBufs(), p.NewRegionBufs()
	for r := range in {
		for i := range in[r] {
			in[r][i] = byte(r + i)
		}
	}
	if err := p.WriteFirst(s, in, 3); err != nil {
		t.Fatalf("WriteFirst(3) error = %v", err)
	}
	if err := p.ReadFirst(s, out, 10); err != nil {
		t.Fatalf("ReadFirst(10) error = %v", err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	for r, rb := range p.Group().RegionBytes {
		first := 3 * int(rb)
		if !bytes.Equal(out[r][:first], in[r][:first]) {
			t.Errorf("region %d: the first 3 pages read back differ from those written", r)
		}
		if !bytes.Equal(out[r][first:], make([]byte, len(out[r])-first)) {
			t.Errorf("region %d: pages after the first 3 changed, want them zero", r)
		}
	}
	for _, n := range []int{-1, 11} {
		if err := p.WriteFirst(s, in, n); err == nil {
			t.Errorf("WriteFirst(%d) of a 10-page pool succeeded, want an error", n)
		}
		if err := p.ReadFirst(s, out, n); err == nil {
			t.Errorf("ReadFirst(%d) of a 10-page pool succeeded, want an error", n)
		}
	}
}

func TestPhaseTimesMilliseconds(t *testing.T) {
	times := PhaseTimes{stats.PhaseGet: 2 * time.Millisecond, stats.PhaseSync: 500 * time.Microsecond}
	want := map[string]float64{"get": 2, "sync": 0.5}
	if diff := cmp.Diff(want, times.Milliseconds()); diff != "" {
		t.Errorf("Milliseconds() mismatch (-want +got):\n%s", diff)
	}
}

func TestWithStagedSets(t *testing.T) {
	tests := []struct {
		name          string
		shape         setShape
		slots, want   int
		page, budget  int64
		threads       int
		pages, buffer int
	}{
		{name: "4 KiB: SetBytes", shape: saveSets, slots: 64, want: 4, page: 4 << 10, budget: 1 << 30, threads: 16, pages: 4096, buffer: 4},
		{name: "64 KiB: SetBytes", shape: saveSets, slots: 64, want: 4, page: 64 << 10, budget: 1 << 30, threads: 16, pages: 256, buffer: 4},
		{name: "1 MiB save: four a thread, flightBytes", shape: saveSets, slots: 64, want: 4, page: 1 << 20, budget: 1 << 30, threads: 16, pages: 64, buffer: 2},
		{name: "4 KiB load: LoadSetBytes", shape: loadSets, slots: 64, want: 4, page: 4 << 10, budget: 1 << 30, threads: 16, pages: 2048, buffer: 4},
		{name: "1 MiB load: one a thread", shape: loadSets, slots: 64, want: 4, page: 1 << 20, budget: 1 << 30, threads: 16, pages: 16, buffer: 4},
		{name: "4 MiB save: maxSetBytes, flightBytes", shape: saveSets, slots: 64, want: 4, page: 4 << 20, budget: 1 << 30, threads: 16, pages: 16, buffer: 2},
		{name: "4 MiB load: one a thread", shape: loadSets, slots: 64, want: 4, page: 4 << 20, budget: 1 << 30, threads: 16, pages: 16, buffer: 2},
		{name: "2 MiB load: one a thread", shape: loadSets, slots: 64, want: 4, page: 2 << 20, budget: 1 << 30, threads: 16, pages: 16, buffer: 4},
		{name: "8 MiB load: maxSetBytes", shape: loadSets, slots: 64, want: 4, page: 8 << 20, budget: 1 << 30, threads: 16, pages: 8, buffer: 2},
		{name: "32 MiB save: maxSetBytes", shape: saveSets, slots: 64, want: 4, page: 32 << 20, budget: 1 << 30, threads: 2, pages: 2, buffer: 2},
		{name: "32 MiB load: one a thread", shape: loadSets, slots: 64, want: 4, page: 32 << 20, budget: 1 << 30, threads: 2, pages: 2, buffer: 2},
		{name: "128 MiB: one page", shape: saveSets, slots: 64, want: 4, page: 128 << 20, budget: 1 << 30, threads: 16, pages: 1, buffer: 2},
		{name: "four async workers share SetBytes", shape: asyncSets(4), slots: 64, want: 4, page: 64 << 10, budget: 256 << 20, threads: 4, pages: 64, buffer: 4},
		{name: "four async workers, 1 MiB: one a thread", shape: asyncSets(4), slots: 64, want: 4, page: 1 << 20, budget: 256 << 20, threads: 4, pages: 4, buffer: 4},
		{name: "many async workers: minSetBytes", shape: asyncSets(64), slots: 64, want: 4, page: 4 << 10, budget: 16 << 20, threads: 1, pages: 512, buffer: 4},
		{name: "budget shrinks the sets", shape: loadSets, slots: 64, want: 4, page: 4 << 10, budget: 4 << 20, threads: 16, pages: 256, buffer: 4},
		{name: "then the buffers", shape: loadSets, slots: 64, want: 4, page: 4 << 10, budget: 512 << 10, threads: 16, pages: 64, buffer: 2},
		{name: "one buffer at least", shape: saveSets, slots: 64, want: 4, page: 4 << 10, budget: 4 << 10, threads: 16, pages: 64, buffer: 1},
	}
	for _, tt := range tests {
		g := Geometry{Slots: tt.slots, SlotBytes: tt.page}.withStagedSets(tt.shape, tt.want, tt.budget, tt.threads)
		if g.SetPages != tt.pages || g.Buffers != tt.buffer {
			t.Errorf("%s: withStagedSets(%+v, %d, %d, %d) = %d pages a set, %d buffers; want %d, %d",
				tt.name, tt.shape, tt.want, tt.budget, tt.threads, g.SetPages, g.Buffers, tt.pages, tt.buffer)
		}
	}
}
