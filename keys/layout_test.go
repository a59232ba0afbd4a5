package keys

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestShardString(t *testing.T) {
	tests := []struct {
		s    Shard
		want string
	}{
		{Shard{World: 1}, "w1r0"},
		{Shard{World: 8, Rank: 7}, "w8r7"},
		{Shard{World: 8, Rank: 7, Replicated: true}, "replicated"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestParseLayerGroup(t *testing.T) {
	tests := []struct {
		in      string
		want    LayerGroup
		wantErr string
	}{
		{in: "0:64KiB", want: LayerGroup{ID: 0, BytesPerPage: 65536}},
		{in: "3:4096", want: LayerGroup{ID: 3, BytesPerPage: 4096}},
		{in: " 1 : 1MiB", want: LayerGroup{ID: 1, BytesPerPage: 1 << 20}},
		{in: "0", wantErr: "want ID:BYTES_PER_PAGE"},
		{in: "x:64KiB", wantErr: `layer group id "x"`},
		{in: "-1:64KiB", wantErr: `layer group id "-1"`},
		{in: "0:64kb", wantErr: "decimal unit"},
		{in: "0:0", wantErr: "must be positive"},
		{in: "0:", wantErr: "bytes per page"},
	}
	for _, tt := range tests {
		got, err := ParseLayerGroup(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParseLayerGroup(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseLayerGroup(%q) = %+v, %v, want %+v", tt.in, got, err, tt.want)
		}
	}
}

func TestLayoutValidate(t *testing.T) {
	good := Layout{TokensPerBlock: 32, LayerGroups: []LayerGroup{{0, 65536}}, World: 4, Ranks: []int{0, 1, 2, 3}}
	tests := []struct {
		name    string
		edit    func(*Layout)
		wantErr string
	}{
		{"good", func(*Layout) {}, ""},
		{"replicated only", func(l *Layout) { l.LayerGroups, l.Replicated = nil, []LayerGroup{{1, 4096}} }, ""},
		{"same id sharded and replicated", func(l *Layout) { l.Replicated = []LayerGroup{{0, 4096}} }, ""},
		{"T=0", func(l *Layout) { l.TokensPerBlock = 0 }, "tokens per block 0 is outside 1..1048576"},
		{"T too large", func(l *Layout) { l.TokensPerBlock = 1 << 61 }, "tokens per block 2305843009213693952 is outside 1..1048576"},
		{"world 0", func(l *Layout) { l.World = 0 }, "world size 0 is outside 1..4096"},
		{"world too large", func(l *Layout) { l.World = MaxWorld + 1 }, "world size 4097 is outside 1..4096"},
		{"rank outside", func(l *Layout) { l.Ranks = []int{4} }, "rank 4 is outside world size 4"},
		{"negative rank", func(l *Layout) { l.Ranks = []int{-1} }, "rank -1"},
		{"rank twice", func(l *Layout) { l.Ranks = []int{1, 1} }, "rank 1 appears twice"},
		{"no ranks", func(l *Layout) { l.Ranks = nil }, "no ranks"},
		{"no layer groups", func(l *Layout) { l.LayerGroups = nil }, "no layer groups"},
		{"zero page", func(l *Layout) { l.LayerGroups = []LayerGroup{{0, 0}} }, "bytes per page must be positive"},
		{"duplicate id", func(l *Layout) { l.LayerGroups = []LayerGroup{{0, 1}, {0, 2}} }, "layer group 0 appears twice"},
		{"duplicate replicated", func(l *Layout) { l.Replicated = []LayerGroup{{2, 1}, {2, 1}} }, "replicated layer group 2 appears twice"},
	}
	for _, tt := range tests {
		l := good
		l.Ranks = append([]int(nil), good.Ranks...)
		tt.edit(&l)
		err := l.Validate()
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("%s: Validate() = %v, want %q", tt.name, err, tt.wantErr)
		}
	}
}

func TestAppendBlockKeys(t *testing.T) {
	h, _ := ParseHash("34de2f9ab1a94b56f2010f2f4955b452")
	l := Layout{
		TokensPerBlock: 16,
		LayerGroups:    []LayerGroup{{0, 65536}, {1, 4096}},
		Replicated:     []LayerGroup{{2, 1024}},
		World:          2,
		Ranks:          []int{0, 1},
	}
	ns := Namespace{Name: DefaultNamespace, ModelKey: "org/m"} // "/" adds a segment, unescaped
	want := []string{
		"prev",
		"trtllm/org/m/w2r0/lg0/t16b65536/34de2f9ab1a94b56f2010f2f4955b452",
		"trtllm/org/m/w2r1/lg0/t16b65536/34de2f9ab1a94b56f2010f2f4955b452",
		"trtllm/org/m/w2r0/lg1/t16b4096/34de2f9ab1a94b56f2010f2f4955b452",
		"trtllm/org/m/w2r1/lg1/t16b4096/34de2f9ab1a94b56f2010f2f4955b452",
		"trtllm/org/m/replicated/lg2/t16b1024/34de2f9ab1a94b56f2010f2f4955b452",
	}
	got := ns.AppendBlockKeys([]string{"prev"}, l, h)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("AppendBlockKeys (-want +got):\n%s", diff)
	}
	if l.PagesPerBlock() != 5 {
		t.Errorf("PagesPerBlock() = %d, want 5", l.PagesPerBlock())
	}
	for i, k := range got[1:5] {
		r := i % 2
		lg := l.LayerGroups[i/2]
		if pk := ns.PageKey(Shard{World: 2, Rank: r}, lg, 16, h); pk != k {
			t.Errorf("PageKey(w2r%d, lg%d) = %q, want %q", r, lg.ID, pk, k)
		}
	}
	if g := (Namespace{Name: "ns", ModelKey: "m"}).GroupKey(4, h); g != "ns/m/w4/34de2f9ab1a94b56f2010f2f4955b452" {
		t.Errorf("GroupKey(4) = %q", g)
	}
}

func TestAppendBlockKeysManyPages(t *testing.T) {
	l := Layout{TokensPerBlock: 8, World: 8, Ranks: []int{0, 1, 2, 3, 4, 5, 6, 7}}
	for i := range 5 {
		l.LayerGroups = append(l.LayerGroups, LayerGroup{ID: i, BytesPerPage: 512})
	}
	ns := Namespace{Name: "x", ModelKey: "m"}
	got := ns.AppendBlockKeys(nil, l, Hash{})
	if len(got) != 40 {
		t.Fatalf("AppendBlockKeys gave %d keys, want 40", len(got))
	}
	if want := ns.PageKey(Shard{World: 8, Rank: 7}, l.LayerGroups[4], 8, Hash{}); got[39] != want {
		t.Errorf("key 39 = %q, want %q", got[39], want)
	}
}

func TestNamespaceSpelledAsGiven(t *testing.T) {
	h, _ := ParseHash("34de2f9ab1a94b56f2010f2f4955b452")
	lg := LayerGroup{ID: 0, BytesPerPage: 65536}
	for _, tt := range []struct {
		name, wantPage, wantGroup string
	}{
		{"trtllm", "trtllm/m/w1r0/lg0/t16b65536/34de2f9ab1a94b56f2010f2f4955b452", "trtllm/m/w1/34de2f9ab1a94b56f2010f2f4955b452"},
		// An empty name is an empty segment, never the default.
		{"", "/m/w1r0/lg0/t16b65536/34de2f9ab1a94b56f2010f2f4955b452", "/m/w1/34de2f9ab1a94b56f2010f2f4955b452"},
		{"None", "None/m/w1r0/lg0/t16b65536/34de2f9ab1a94b56f2010f2f4955b452", "None/m/w1/34de2f9ab1a94b56f2010f2f4955b452"},
	} {
		ns := Namespace{Name: tt.name, ModelKey: "m"}
		if got := ns.PageKey(Shard{World: 1}, lg, 16, h); got != tt.wantPage {
			t.Errorf("Namespace{Name: %q}.PageKey = %q, want %q", tt.name, got, tt.wantPage)
		}
		if got := ns.GroupKey(1, h); got != tt.wantGroup {
			t.Errorf("Namespace{Name: %q}.GroupKey = %q, want %q", tt.name, got, tt.wantGroup)
		}
		l := Layout{TokensPerBlock: 16, LayerGroups: []LayerGroup{lg}, World: 1, Ranks: []int{0}}
		if got := ns.BlockKeys(l).Append(nil, h); len(got) != 1 || got[0] != tt.wantPage {
			t.Errorf("Namespace{Name: %q}.BlockKeys.Append = %q, want [%q]", tt.name, got, tt.wantPage)
		}
	}
}

func TestNamespaceValidate(t *testing.T) {
	if err := (Namespace{}).Validate(); err == nil {
		t.Error("Namespace{}.Validate() = nil, want a missing model key error")
	}
	if err := (Namespace{ModelKey: "m"}).Validate(); err != nil {
		t.Errorf("Namespace{ModelKey: m}.Validate() = %v, want nil", err)
	}
}

func TestBlockKeysMatchesAppendBlockKeys(t *testing.T) {
	h, _ := ParseHash("34de2f9ab1a94b56f2010f2f4955b452")
	for _, l := range []Layout{
		{TokensPerBlock: 16, LayerGroups: []LayerGroup{{0, 65536}, {1, 4096}}, Replicated: []LayerGroup{{2, 1024}}, World: 2, Ranks: []int{0, 1}},
		{TokensPerBlock: 32, LayerGroups: []LayerGroup{{0, 1}}, World: 1, Ranks: []int{0}},
		{TokensPerBlock: 32, Replicated: []LayerGroup{{7, 3}}, World: 8},
		{},
	} {
		ns := Namespace{Name: "ns", ModelKey: "m"}
		k := ns.BlockKeys(l)
		want := ns.AppendBlockKeys([]string{"x"}, l, h)
		if diff := cmp.Diff(want, k.Append([]string{"x"}, h)); diff != "" {
			t.Errorf("BlockKeys(%+v).Append (-AppendBlockKeys +got):\n%s", l, diff)
		}
		if k.PagesPerBlock() != l.PagesPerBlock() {
			t.Errorf("PagesPerBlock() = %d, want %d", k.PagesPerBlock(), l.PagesPerBlock())
		}
		var lines []byte
		for _, key := range want[1:] {
			lines = append(append(lines, key...), '\n')
		}
		got := k.AppendLines([]byte("x\n"), h)
		if diff := cmp.Diff("x\n"+string(lines), string(got)); diff != "" {
			t.Errorf("BlockKeys(%+v).AppendLines (-AppendBlockKeys one a line +got):\n%s", l, diff)
		}
		if k.LinesSize() != len(lines) {
			t.Errorf("BlockKeys(%+v).LinesSize() = %d, want %d", l, k.LinesSize(), len(lines))
		}
	}
}
