package keys

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// parseLayouts are the layouts the parser is tested on: one rank, every TP
// rank, attention DP's w1r0, replicated groups and several layer groups.
var parseLayouts = []Layout{
	{TokensPerBlock: 32, World: 1, Ranks: []int{0}, LayerGroups: []LayerGroup{DefaultLayerGroup}},
	{TokensPerBlock: 16, World: 4, Ranks: []int{0, 1, 2, 3}, LayerGroups: []LayerGroup{{0, 64 << 10}, {1, 128}}},
	{TokensPerBlock: 512, World: 8, Ranks: []int{5}, LayerGroups: []LayerGroup{{3, 160 << 20}}, Replicated: []LayerGroup{{7, 100}}},
	{TokensPerBlock: 1, World: 1, Ranks: []int{0}, Replicated: []LayerGroup{{0, 1}}},
}

var parseNamespaces = []Namespace{
	{Name: "trtllm", ModelKey: "m"},
	{Name: "", ModelKey: "llama-70b"},
	{Name: "None", ModelKey: "org/model"},
	{Name: "a/b", ModelKey: "w1"},
}

// Every key the package spells, for every scheme and scope, parses back to
// what spelled it.
func TestParseKeyInvertsSpelling(t *testing.T) {
	task := int64(7)
	scopes := []Scope{{}, {CacheSalt: "s"}, {LoRATaskID: &task}, {Multimodal: [][8]int32{{1, 2, 3, 4, 5, 6, 7, 8}}}}
	for _, scheme := range Schemes {
		for _, scope := range scopes {
			seed, err := Seed(scheme, scope, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, ns := range parseNamespaces {
				for _, l := range parseLayouts {
					checkParsedBlock(t, ns, l, seed)
				}
			}
		}
	}
}

func checkParsedBlock(t *testing.T, ns Namespace, l Layout, h Hash) {
	t.Helper()
	var want []ParsedKey
	for _, lg := range l.LayerGroups {
		for _, r := range l.Ranks {
			want = append(want, ParsedKey{Prefix: ns.KeyPrefix(), Shard: Shard{World: l.World, Rank: r}, LayerGroup: lg, TokensPerBlock: l.TokensPerBlock, Hash: h})
		}
	}
	for _, lg := range l.Replicated {
		want = append(want, ParsedKey{Prefix: ns.KeyPrefix(), Shard: Shard{Replicated: true}, LayerGroup: lg, TokensPerBlock: l.TokensPerBlock, Hash: h})
	}
	spelled := ns.AppendBlockKeys(nil, l, h)
	var got []ParsedKey
	for _, s := range spelled {
		k, err := ParseKey(s)
		if err != nil {
			t.Fatalf("ParseKey(%q) error = %v", s, err)
		}
		got = append(got, k)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ParseKey of %v's keys (-want +got):\n%s", l, diff)
	}
	g, err := ParseKey(ns.GroupKey(l.World, h))
	wantGroup := ParsedKey{Prefix: ns.KeyPrefix(), Group: true, Shard: Shard{World: l.World}, Hash: h}
	if err != nil || g != wantGroup {
		t.Errorf("ParseKey(%q) = %+v, %v, want %+v", ns.GroupKey(l.World, h), g, err, wantGroup)
	}
}

func TestParseKeyRefuses(t *testing.T) {
	const h = "34de2f9ab1a94b56f2010f2f4955b452"
	tests := []struct{ key, want string }{
		{"", "too few segments"},
		{"m/w1r0/lg0/t32b4096/" + h, "too few segments"},
		{"trtllm/m/w1r0/lg0/t32b4096/" + strings.ToUpper(h), "lower-case hex"},
		{"trtllm/m/w1r0/lg0/t32b4096/abc", "lower-case hex"},
		{"trtllm/m/w1r0/lg0/t032b4096/" + h, "not t{T}b{bytes_per_page}"},
		{"trtllm/m/w1r0/lg0/t32b0/" + h, "not t{T}b{bytes_per_page}"},
		{"trtllm/m/w1r0/lg0/t0b4096/" + h, "tokens per block 0 is outside"},
		{"trtllm/m/w1r0/lg0/32b4096/" + h, "not t{T}b{bytes_per_page}"},
		{"trtllm/m/w1r0/lgx/t32b4096/" + h, "not lg{id}"},
		{"trtllm/m/w1r1/lg0/t32b4096/" + h, "rank 1 is outside world size 1"},
		{"trtllm/m/w0r0/lg0/t32b4096/" + h, "world size 0 is outside"},
		{"trtllm/m/r0/lg0/t32b4096/" + h, "not w{world}r{rank}"},
		{"trtllm/m/w-1r0/lg0/t32b4096/" + h, "not w{world}r{rank}"},
		{"trtllm/w0/" + h, "too few segments"},
		{"x/trtllm/m/w0/" + h, "world size 0 is outside"},
		{"m/w1/" + h, "too few segments"},
	}
	for _, tt := range tests {
		if _, err := ParseKey(tt.key); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseKey(%q) error = %v, want one saying %q", tt.key, err, tt.want)
		}
	}
}

// FuzzParseKey: ParseKey never panics, and a key spelled from valid parts
// parses back to them.
func FuzzParseKey(f *testing.F) {
	f.Add("trtllm", "m", 32, int64(4096), 1, 0, 0, false, []byte("0123456789abcdef"))
	f.Add("", "a/b", 16, int64(100), 8, 7, 3, true, []byte{0xff})
	f.Fuzz(func(t *testing.T, name, model string, tokens int, bytes int64, world, rank, lgID int, replicated bool, hash []byte) {
		var h Hash
		copy(h[:], hash)
		_, _ = ParseKey(name + "/" + model) // any text: no panic
		_, _ = ParseKey(model)
		if model == "" || tokens < 1 || tokens > MaxTokensPerBlock || bytes <= 0 || world < 1 || world > MaxWorld || rank < 0 || rank >= world || lgID < 0 {
			return
		}
		ns := Namespace{Name: name, ModelKey: model}
		shard := Shard{World: world, Rank: rank, Replicated: replicated}
		if replicated {
			shard = Shard{Replicated: true}
		}
		lg := LayerGroup{ID: lgID, BytesPerPage: bytes}
		want := ParsedKey{Prefix: ns.KeyPrefix(), Shard: shard, LayerGroup: lg, TokensPerBlock: tokens, Hash: h}
		if got, err := ParseKey(ns.PageKey(shard, lg, tokens, h)); err != nil || got != want {
			t.Errorf("ParseKey(%q) = %+v, %v, want %+v", ns.PageKey(shard, lg, tokens, h), got, err, want)
		}
		wantGroup := ParsedKey{Prefix: ns.KeyPrefix(), Group: true, Shard: Shard{World: world}, Hash: h}
		if got, err := ParseKey(ns.GroupKey(world, h)); err != nil || got != wantGroup {
			t.Errorf("ParseKey(%q) = %+v, %v, want %+v", ns.GroupKey(world, h), got, err, wantGroup)
		}
	})
}

func TestLayerGroupString(t *testing.T) {
	tests := []struct {
		lg   LayerGroup
		want string
	}{
		{LayerGroup{ID: 0, BytesPerPage: 4 << 10}, "0:4KiB"},
		{LayerGroup{ID: 2, BytesPerPage: 128}, "2:128"},
		{LayerGroup{ID: 1, BytesPerPage: 160 << 20}, "1:160MiB"},
	}
	for _, tt := range tests {
		if got := tt.lg.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.lg, got, tt.want)
		}
		if back, err := ParseLayerGroup(tt.want); err != nil || back != tt.lg {
			t.Errorf("ParseLayerGroup(%q) = %v, %v, want %v", tt.want, back, err, tt.lg)
		}
	}
}
