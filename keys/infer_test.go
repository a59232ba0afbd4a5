package keys

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parsedBlocks spells and parses the page keys of n blocks of l.
func parsedBlocks(t *testing.T, l Layout, n int, from byte) []ParsedKey {
	t.Helper()
	ns := Namespace{Name: "trtllm", ModelKey: "m"}
	var out []ParsedKey
	for i := range n {
		for _, s := range ns.AppendBlockKeys(nil, l, Hash{from + byte(i)}) {
			k, err := ParseKey(s)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, k)
		}
	}
	return out
}

func TestLayoutsOf(t *testing.T) {
	small := Layout{TokensPerBlock: 32, World: 1, Ranks: []int{0}, LayerGroups: []LayerGroup{{0, 128}}}
	big := Layout{TokensPerBlock: 32, World: 1, Ranks: []int{0}, LayerGroups: []LayerGroup{{0, 4 << 10}}}
	tp := Layout{TokensPerBlock: 16, World: 2, Ranks: []int{0, 1}, LayerGroups: []LayerGroup{{0, 1024}, {1, 2048}}, Replicated: []LayerGroup{{2, 64}}}
	tests := []struct {
		name  string
		pages []ParsedKey
		want  []Layout
	}{
		{"none", nil, nil},
		{"one layout", parsedBlocks(t, small, 3, 0), []Layout{small}},
		{"every rank, two groups and a replicated one", parsedBlocks(t, tp, 2, 0), []Layout{tp}},
		{"a block with pages missing is part of the layout", append(parsedBlocks(t, tp, 2, 0)[:7], parsedBlocks(t, tp, 1, 9)...), []Layout{tp}},
		{"two page sizes, the same prompts", append(parsedBlocks(t, big, 2, 0), parsedBlocks(t, small, 3, 0)...), []Layout{small, big}},
		{"group keys are ignored", []ParsedKey{{Prefix: "trtllm/m/", Group: true, Shard: Shard{World: 1}}}, nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, LayoutsOf(tt.pages)); diff != "" {
			t.Errorf("LayoutsOf(%s) (-want +got):\n%s", tt.name, diff)
		}
	}
}

func TestLayoutString(t *testing.T) {
	tests := []struct {
		l    Layout
		want string
	}{
		{Layout{TokensPerBlock: 32, World: 1, Ranks: []int{0}, LayerGroups: []LayerGroup{{0, 4 << 10}}}, "t32 world 1 rank 0 layer group 0:4KiB"},
		{Layout{TokensPerBlock: 16, World: 2, Ranks: []int{0, 1}, LayerGroups: []LayerGroup{{0, 1024}, {1, 100}}, Replicated: []LayerGroup{{2, 64}}},
			"t16 world 2 ranks 0,1 layer groups 0:1KiB,1:100 replicated 2:64"},
	}
	for _, tt := range tests {
		if got := tt.l.String(); got != tt.want {
			t.Errorf("Layout.String() = %q, want %q", got, tt.want)
		}
	}
}

func TestPageSegments(t *testing.T) {
	l := Layout{TokensPerBlock: 16, World: 2, Ranks: []int{0, 1}, LayerGroups: []LayerGroup{{0, 1024}}, Replicated: []LayerGroup{{2, 64}}}
	want := []string{"w2r0/lg0/t16b1024", "w2r1/lg0/t16b1024", "replicated/lg2/t16b64"}
	if diff := cmp.Diff(want, l.PageSegments()); diff != "" {
		t.Errorf("PageSegments() (-want +got):\n%s", diff)
	}
}
