package stats

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// presence turns a hole map back into block presence.
func presence(m string) []bool {
	p := make([]bool, len(m))
	for i := range m {
		p[i] = m[i] == '#'
	}
	return p
}

func TestAnalyze(t *testing.T) {
	tests := []struct {
		m    string
		want RequestHoles
	}{
		{"", RequestHoles{}},
		{"####", RequestHoles{Blocks: 4, HitBlocks: 4}},
		{"....", RequestHoles{Blocks: 4}},
		{"##..", RequestHoles{Blocks: 4, HitBlocks: 2}},
		{".#", RequestHoles{Blocks: 2, Holes: 1, HoleBlocks: 1, BehindHoleBlocks: 1}},
		{"####.##..#", RequestHoles{Blocks: 10, HitBlocks: 4, Holes: 2, HoleBlocks: 3, BehindHoleBlocks: 3}},
		{"#..#.#..", RequestHoles{Blocks: 8, HitBlocks: 1, Holes: 2, HoleBlocks: 3, BehindHoleBlocks: 2}},
	}
	for _, tt := range tests {
		want := tt.want
		want.Map = tt.m
		want.TokensPerBlock = 16
		want.PromptTokens = want.Blocks * 16
		want.RecomputedTokens = want.BehindHoleBlocks * 16
		got := Analyze(presence(tt.m), 16)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Analyze(%q, 16) mismatch (-want +got):\n%s", tt.m, diff)
		}
	}
}

func TestRequestHolesJSON(t *testing.T) {
	r := Analyze(presence("####.##..#"), 16)
	r.ID = "A"
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"A","blocks":10,"hit_blocks":4,"holes":2,"hole_blocks":3,"behind_hole_blocks":3,` +
		`"recomputed_tokens":48,"prompt_tokens":160,"map":"####.##..#"}`
	if string(b) != want {
		t.Errorf("json.Marshal(RequestHoles) = %s, want %s", b, want)
	}
}

func TestBlockPresence(t *testing.T) {
	tests := []struct {
		status  []int
		pages   int
		want    []bool
		wantErr string
	}{
		{[]int{1, 1, 1, 0, 0, 1, -704, 1}, 2, []bool{true, false, false, false}, ""},
		{[]int{1, 0, 1}, 1, []bool{true, false, true}, ""},
		{[]int{}, 3, []bool{}, ""},
		{[]int{1, 1, 1}, 2, nil, "not a whole number"},
		{[]int{1}, 0, nil, "not positive"},
	}
	for _, tt := range tests {
		got, err := BlockPresence(tt.status, tt.pages)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("BlockPresence(%v, %d) error = %v, want %q", tt.status, tt.pages, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !cmp.Equal(got, tt.want) {
			t.Errorf("BlockPresence(%v, %d) = %v, %v, want %v", tt.status, tt.pages, got, err, tt.want)
		}
	}
}

// exampleHoles is the four-request example of the docs.
func exampleHoles() Holes {
	var h Holes
	for _, m := range []string{"####.##..#", "######", ".####", "......"} {
		h.Add(Analyze(presence(m), 16))
	}
	return h
}

func TestHolesAdd(t *testing.T) {
	want := Holes{Requests: 4, Lookups: 4, Blocks: 27, LookedUpBlocks: 27, HitBlocks: 10, Holes: 3,
		HoleBlocks: 4, BehindHoleBlocks: 7, RecomputedTokens: 112, PromptTokens: 432, HitTokens: 160}
	got := exampleHoles()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Holes.Add mismatch (-want +got):\n%s", diff)
	}
	if r := got.HitRate(); r < 0.3703 || r > 0.3704 {
		t.Errorf("HitRate() = %v, want 160/432", r)
	}
	if r := got.BlockHitRate(); r != 10.0/27 {
		t.Errorf("BlockHitRate() = %v, want 10/27", r)
	}
	if r := (Holes{}).HitRate(); r != 0 {
		t.Errorf("Holes{}.HitRate() = %v, want 0", r)
	}
}

func TestHolesAddLookupAndMerge(t *testing.T) {
	var h Holes
	h.AddRequest(100, 6)
	h.AddLookup(Analyze(presence("##.#"), 16))
	h.AddLookup(Analyze(presence("####"), 16)) // looked up again after a restart
	want := Holes{Requests: 1, Lookups: 2, Blocks: 6, LookedUpBlocks: 8, HitBlocks: 6, Holes: 1,
		HoleBlocks: 1, BehindHoleBlocks: 1, RecomputedTokens: 16, PromptTokens: 100, HitTokens: 96}
	if diff := cmp.Diff(want, h); diff != "" {
		t.Errorf("AddRequest+AddLookup mismatch (-want +got):\n%s", diff)
	}
	m := exampleHoles()
	m.Merge(h)
	ex := exampleHoles()
	if m.Requests != ex.Requests+1 || m.HitTokens != ex.HitTokens+96 || m.LookedUpBlocks != 35 {
		t.Errorf("Merge = %+v, want the sum of %+v and %+v", m, ex, h)
	}
}

func TestHolesJSON(t *testing.T) {
	b, err := json.Marshal(exampleHoles())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"requests":4,"lookups":4,"blocks":27,"looked_up_blocks":27,"hit_blocks":10,"holes":3,` +
		`"hole_blocks":4,"behind_hole_blocks":7,"recomputed_tokens":112,"prompt_tokens":432,` +
		`"hit_tokens":160,"hit_rate":0.37037037037037035}`
	if string(b) != want {
		t.Errorf("json.Marshal(Holes) = %s, want %s", b, want)
	}
	var back Holes
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(exampleHoles(), back); diff != "" {
		t.Errorf("json round trip mismatch (-want +got):\n%s", diff)
	}
}
