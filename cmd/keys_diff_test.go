package cmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSplitFlags(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"--engine vllm  --hash-seed 0", []string{"--engine", "vllm", "--hash-seed", "0"}},
		{`--namespace 'a b' --model-key "org/m x"`, []string{"--namespace", "a b", "--model-key", "org/m x"}},
		{`--namespace ''`, []string{"--namespace", ""}},
		{"\t--tp=2\n", []string{"--tp=2"}},
	}
	for _, tt := range tests {
		got, err := splitFlags(tt.in)
		if err != nil {
			t.Errorf("splitFlags(%q) = %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("splitFlags(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
	if _, err := splitFlags(`--namespace "a`); err == nil {
		t.Error(`splitFlags("--namespace \"a") succeeded, want an unterminated quote error`)
	}
}

func TestCompareSides(t *testing.T) {
	blk := func(hash string, keys ...string) diffBlock { return diffBlock{Hash: hash, Keys: keys} }
	tests := []struct {
		name       string
		a, b       []diffBlock
		wantShared int
		wantIndex  int
		wantWhat   string // "" for none
	}{
		{"same", []diffBlock{blk("1", "k1"), blk("2", "k2")}, []diffBlock{blk("1", "k1"), blk("2", "k2")}, 2, 0, ""},
		{"hash at 1", []diffBlock{blk("1"), blk("2")}, []diffBlock{blk("1"), blk("3")}, 1, 1, "hash"},
		{"keys at 0", []diffBlock{blk("1", "a@1")}, []diffBlock{blk("1", "b@1")}, 0, 0, "keys"},
		{"one side longer", []diffBlock{blk("1")}, []diffBlock{blk("1"), blk("2")}, 1, 1, "blocks"},
		{"both empty", nil, nil, 0, 0, ""},
		{"bounds at 0: a chunk of two blocks against a block", []diffBlock{{Start: 0, End: 8, Hash: "2"}}, []diffBlock{{Start: 0, End: 4, Hash: "1"}, {Start: 4, End: 8, Hash: "2"}}, 0, 0, "bounds"},
	}
	for _, tt := range tests {
		shared, d := compareSides(tt.a, tt.b)
		what, index := "", 0
		if d != nil {
			what, index = d.What, d.Index
		}
		if shared != tt.wantShared || what != tt.wantWhat || index != tt.wantIndex {
			t.Errorf("compareSides(%s) = %d shared, first diff %q at %d; want %d, %q at %d", tt.name, shared, what, index, tt.wantShared, tt.wantWhat, tt.wantIndex)
		}
	}
}
