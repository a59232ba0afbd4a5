package connector

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/stats"
)

func TestGetNumNewMatchedTokens(t *testing.T) {
	tests := []struct {
		name        string
		opts        SchedulerOptions
		tokens      int
		computed    int
		present     []bool
		want        int
		wantProbed  int // hashes asked, -1 for no probe
		wantLookups int64
	}{
		{"whole prompt of 3 blocks offers 2", SchedulerOptions{Loads: true}, 12, 0, []bool{true, true, true}, 8, 2, 1},
		{"one token into block 4 offers 3", SchedulerOptions{Loads: true}, 13, 0, []bool{true, true, true}, 12, 3, 1},
		{"candidates start at the local match", SchedulerOptions{Loads: true}, 13, 4, []bool{true, true}, 8, 2, 1},
		{"a hole stops the offer", SchedulerOptions{Loads: true}, 17, 0, []bool{true, false, true, true}, 4, 4, 1},
		{"local match off a block boundary offers nothing", SchedulerOptions{Loads: true}, 13, 2, []bool{true, true, true}, 0, -1, 0},
		{"nothing to ask beyond the local match", SchedulerOptions{Loads: true}, 9, 8, nil, 0, -1, 0},
		{"producer never loads", SchedulerOptions{Saves: true}, 13, 0, []bool{true, true, true}, 0, -1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			holes := stats.NewHolesRecorder()
			tt.opts.Holes = holes
			pr := &recordingProber{fixedProber: fixedProber{present: tt.present}, asked: -1}
			s := NewScheduler(tt.opts, pr)
			r := &Request{ID: "a", Chain: chainOf(t, tt.tokens, 0), NumTokens: tt.tokens}
			got, err := s.GetNumNewMatchedTokens(context.Background(), r, tt.computed)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want || pr.asked != tt.wantProbed {
				t.Errorf("GetNumNewMatchedTokens(%d tokens, computed %d) = %d asking %d hashes, want %d asking %d",
					tt.tokens, tt.computed, got, pr.asked, tt.want, tt.wantProbed)
			}
			if h := holes.Total(); h.Requests != 1 || h.Lookups != tt.wantLookups {
				t.Errorf("hole stats requests, lookups = %d, %d, want 1, %d", h.Requests, h.Lookups, tt.wantLookups)
			}
		})
	}
}

type recordingProber struct {
	fixedProber
	asked int
}

func (r *recordingProber) CountPrefixHit(ctx context.Context, h []keys.Hash) (int, []bool, error) {
	r.asked = len(h)
	return r.fixedProber.CountPrefixHit(ctx, h)
}

func TestUpdateStateAfterAllocValidates(t *testing.T) {
	tests := []struct {
		name           string
		skip, honoured int
		wantErr        bool
		wantLoadBlocks []int
	}{
		{"all honoured", 0, 16, false, []int{0, 1, 2, 3}},
		{"back cancelled", 0, 8, false, []int{0, 1}},
		{"front and back cancelled", 4, 8, false, []int{1, 2}},
		{"none honoured", 0, 0, false, nil},
		{"not whole blocks", 0, 6, true, nil},
		{"more than offered", 8, 12, true, nil},
		{"negative", -4, 4, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScheduler(SchedulerOptions{Loads: true, Saves: true}, &fixedProber{present: []bool{true, true, true, true}})
			r := &Request{ID: "a", Chain: chainOf(t, 17, 0), NumTokens: 17, Blocks: []int32{10, 11, 12, 13, 14}}
			if offer, _ := s.GetNumNewMatchedTokens(context.Background(), r, 0); offer != 16 {
				t.Fatalf("offer = %d, want 16", offer)
			}
			err := s.UpdateStateAfterAlloc(r, 0, tt.skip, tt.honoured)
			if (err != nil) != tt.wantErr {
				t.Fatalf("UpdateStateAfterAlloc(skip %d, honoured %d) error = %v, want error %v", tt.skip, tt.honoured, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			m, err := s.BuildMeta([]Scheduled{{Req: r, Computed: 0, NumScheduled: 1}})
			if err != nil {
				t.Fatal(err)
			}
			var loads []int
			for _, tr := range m.Loads {
				loads = append(loads, tr.Block)
			}
			if diff := cmp.Diff(tt.wantLoadBlocks, loads); diff != "" {
				t.Errorf("loaded blocks (-want +got):\n%s", diff)
			}
		})
	}
}

func TestBuildMetaSavesOnlyComputedBlocks(t *testing.T) {
	tests := []struct {
		name      string
		honoured  int
		computed  int
		scheduled int
		blocks    int // pages allocated
		wantSaves []int
	}{
		// limit = min(addressable, (computed + loaded + scheduled) / T)
		{"loaded blocks are not saved", 8, 0, 9, 5, []int{2, 3}},
		{"a chunk ending mid-block saves only full blocks", 0, 0, 7, 5, []int{0}},
		{"pages allocated ahead are not saved", 0, 0, 3, 5, nil},
		{"addressable caps the limit", 0, 0, 17, 3, []int{0, 1, 2}},
		{"local match is not saved", 0, 8, 9, 5, []int{2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScheduler(SchedulerOptions{Loads: true, Saves: true}, &fixedProber{present: []bool{true, true, true, true}})
			r := &Request{ID: "a", Chain: chainOf(t, 17, 0), NumTokens: 17, Blocks: make([]int32, tt.blocks)}
			if _, err := s.GetNumNewMatchedTokens(context.Background(), r, tt.computed); err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateStateAfterAlloc(r, tt.computed, 0, tt.honoured); err != nil {
				t.Fatal(err)
			}
			m, err := s.BuildMeta([]Scheduled{{Req: r, Computed: tt.computed, NumScheduled: tt.scheduled}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.wantSaves, blocksOf(m.Saves)); diff != "" {
				t.Errorf("saved blocks (-want +got):\n%s", diff)
			}
		})
	}
}

func blocksOf(trs []Transfer) []int {
	var out []int
	for _, tr := range trs {
		out = append(out, tr.Block)
	}
	return out
}

func TestBuildMetaMissingDestination(t *testing.T) {
	s := NewScheduler(SchedulerOptions{Loads: true}, &fixedProber{present: []bool{true, true, true}})
	r := &Request{ID: "a", Chain: chainOf(t, 13, 0), NumTokens: 13, Blocks: []int32{0}}
	if _, err := s.GetNumNewMatchedTokens(context.Background(), r, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.UpdateStateAfterAlloc(r, 0, 0, 12); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildMeta([]Scheduled{{Req: r, NumScheduled: 1}}); err == nil {
		t.Error("BuildMeta with a load block without a page = nil error, want an error")
	}
}

func TestBuildMetaUnsettled(t *testing.T) {
	s := NewScheduler(SchedulerOptions{Loads: true}, &fixedProber{})
	r := &Request{ID: "a", Chain: chainOf(t, 13, 0), NumTokens: 13}
	if _, err := s.BuildMeta([]Scheduled{{Req: r, NumScheduled: 1}}); err == nil {
		t.Error("BuildMeta of a request never settled = nil error, want an error")
	}
}

// TestSaveConfirmation follows one request's saves through passes: emitted
// again until confirmed, kept after finishing until confirmed, and dropped
// by a reset.
func TestSaveConfirmation(t *testing.T) {
	s := NewScheduler(SchedulerOptions{Saves: true}, &fixedProber{})
	r := &Request{ID: "a", Chain: chainOf(t, 17, 0), NumTokens: 17, Blocks: []int32{5, 6, 7, 8, 9}}
	if err := s.UpdateStateAfterAlloc(r, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	pass := func(computed, scheduled int) []int {
		t.Helper()
		m, err := s.BuildMeta([]Scheduled{{Req: r, Computed: computed, NumScheduled: scheduled}})
		if err != nil {
			t.Fatal(err)
		}
		return blocksOf(m.Saves)
	}
	if got := pass(0, 8); !cmp.Equal(got, []int{0, 1}) {
		t.Fatalf("pass 1 saves %v, want [0 1]", got)
	}
	// Pass 1 never reached the worker: its saves come again.
	if got := pass(8, 4); !cmp.Equal(got, []int{0, 1, 2}) {
		t.Fatalf("pass 2 saves %v, want [0 1 2] (unconfirmed 0 and 1 again)", got)
	}
	s.ConfirmSaves([]SubmittedSave{{ReqID: "a", From: 0, To: 3}})
	if got := pass(12, 4); !cmp.Equal(got, []int{3}) {
		t.Fatalf("pass 3 saves %v, want [3]", got)
	}
	if !s.RequestFinished("a") {
		t.Fatal("RequestFinished with a save pending = false, want true (keep the pages)")
	}
	m, err := s.BuildMeta(nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := blocksOf(m.Saves); !cmp.Equal(got, []int{3}) {
		t.Fatalf("saves after finishing %v, want [3] again", got)
	}
	s.ConfirmSaves([]SubmittedSave{{ReqID: "a", From: 3, To: 4}})
	if n := s.PendingSaves("a"); n != 0 {
		t.Errorf("PendingSaves after confirmation = %d, want 0", n)
	}
}

func TestRequestResetDropsUnconfirmedSaves(t *testing.T) {
	s := NewScheduler(SchedulerOptions{Saves: true}, &fixedProber{})
	r := &Request{ID: "a", Chain: chainOf(t, 17, 0), NumTokens: 17, Blocks: []int32{5, 6, 7, 8, 9}}
	if err := s.UpdateStateAfterAlloc(r, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := s.BuildMeta([]Scheduled{{Req: r, NumScheduled: 8}}); err != nil {
		t.Fatal(err)
	}
	if n := s.PendingSaves("a"); n != 2 {
		t.Fatalf("PendingSaves = %d, want 2", n)
	}
	s.RequestReset("a")
	if n := s.PendingSaves("a"); n != 0 {
		t.Errorf("PendingSaves after RequestReset = %d, want 0", n)
	}
	if s.RequestFinished("a") {
		t.Error("RequestFinished after reset = true, want false")
	}
}

// TestSavesStartAfterLookup ports upstream's save-range cases
// (mooncake_store scheduler.py build_connector_meta: saved_upto =
// max(saved_upto, load_first_block + load_blocks), load_first_block 0
// unless the lookup hit): a lookup that missed saves from block 0, the
// locally matched blocks included; one that hit saves from the end of the
// honoured loads.
func TestSavesStartAfterLookup(t *testing.T) {
	const prompt = 26*testT + 1 // 26 full blocks and one token
	all := func(from, to int) []int {
		var out []int
		for b := from; b < to; b++ {
			out = append(out, b)
		}
		return out
	}
	tests := []struct {
		name     string
		computed int // local match, tokens
		present  []bool
		honoured int
		want     []int
	}{
		{"local_match_no_pool_hit_saves_from", 22 * testT, []bool{false, true, true, true}, 0, all(0, 26)},
		{"no_local_match_no_pool_hit", 0, nil, 0, all(0, 26)},
		{"partial_local_match_offers_nothing_saves_from_0", 22*testT - 1, []bool{true, true, true, true}, 0, all(0, 26)},
		{"local_match_and_pool_hit_saves_after_loads", 20 * testT, []bool{true, true, false, false, false, false}, 2 * testT, all(22, 26)},
		{"pool_hit_not_honoured_saves_after_local_match", 20 * testT, []bool{true, true}, 0, all(20, 26)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewScheduler(SchedulerOptions{Loads: true, Saves: true}, &fixedProber{present: tt.present})
			r := &Request{ID: "a", Chain: chainOf(t, prompt, 0), NumTokens: prompt, Blocks: make([]int32, 27)}
			if _, err := s.GetNumNewMatchedTokens(context.Background(), r, tt.computed); err != nil {
				t.Fatal(err)
			}
			if err := s.UpdateStateAfterAlloc(r, tt.computed, 0, tt.honoured); err != nil {
				t.Fatal(err)
			}
			m, err := s.BuildMeta([]Scheduled{{Req: r, Computed: tt.computed, NumScheduled: prompt - tt.computed - tt.honoured}})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, blocksOf(m.Saves)); diff != "" {
				t.Errorf("saved blocks (-want +got):\n%s", diff)
			}
		})
	}
}

// SaveStart is build_connector_meta's saved_upto: where the honoured
// loads end after a hit, block 0 after a miss, whatever the local match.
func TestSaveStart(t *testing.T) {
	tests := []struct {
		name            string
		offered, loadTo int
		want            int
	}{
		{"miss with no local match", 0, 0, 0},
		{"miss after a local match of 20 blocks", 0, 20, 0},
		{"hit of 3 blocks, all honoured", 3, 3, 3},
		{"hit of 4 after a local match of 20, 2 honoured", 4, 22, 22},
	}
	for _, tt := range tests {
		if got := SaveStart(tt.offered, tt.loadTo); got != tt.want {
			t.Errorf("%s: SaveStart(%d, %d) = %d, want %d", tt.name, tt.offered, tt.loadTo, got, tt.want)
		}
	}
}
