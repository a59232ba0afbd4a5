package keys

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDiffSettings(t *testing.T) {
	seed0, seed1 := "0", "1"
	base := Settings{
		Engine:    EngineVLLM,
		Engines:   EngineOptions{HashSeed: &seed0},
		Layout:    Layout{TokensPerBlock: 16, World: 1, Ranks: []int{0}, LayerGroups: []LayerGroup{DefaultLayerGroup}},
		Namespace: Namespace{ModelKey: "m"},
	}
	tests := []struct {
		name   string
		change func(*Settings)
		want   []SettingDiff
	}{
		{"same", func(*Settings) {}, nil},
		{"hash seed", func(s *Settings) { s.Engines.HashSeed = &seed1 }, []SettingDiff{{"Engines.HashSeed", `"0"`, `"1"`}}},
		{"hash seed unset", func(s *Settings) { s.Engines.HashSeed = nil }, []SettingDiff{{"Engines.HashSeed", `"0"`, "unset"}}},
		{"engine and TP", func(s *Settings) {
			s.Engine, s.Layout.World, s.Layout.Ranks = EngineSGLang, 2, []int{0, 1}
		}, []SettingDiff{{"Engine", `"vllm"`, `"sglang"`}, {"Engines.ChunkSize", "16", "0"}, {"Layout.World", "1", "2"}, {"Layout.Ranks", "[0]", "[0 1]"}}},
		{"salt and lora", func(s *Settings) { s.Scope.CacheSalt, s.Scope.LoRAName = "s", "a" }, []SettingDiff{{"Scope.CacheSalt", `""`, `"s"`}, {"Scope.LoRAName", `""`, `"a"`}}},
		{"version given as the default", func(s *Settings) { s.Engines.Version = VersionCurrent }, nil},
		{"version", func(s *Settings) { s.Engines.Version = VersionVLLMPR40900 }, []SettingDiff{{"Engines.Version", `"current"`, `"pr40900"`}}},
		{"chunk size of one block", func(s *Settings) { s.Engines.ChunkSize = 16 }, nil},
		{"chunk size", func(s *Settings) { s.Engines.ChunkSize = 64 }, []SettingDiff{{"Engines.ChunkSize", "16", "64"}}},
		{"layer group", func(s *Settings) { s.Layout.LayerGroups = []LayerGroup{{ID: 0, BytesPerPage: 4096}} }, []SettingDiff{{"Layout.LayerGroups", "[0:128]", "[0:4KiB]"}}},
	}
	for _, tt := range tests {
		b := base
		b.Layout.Ranks = []int{0}
		tt.change(&b)
		if diff := cmp.Diff(tt.want, DiffSettings(base, b)); diff != "" {
			t.Errorf("DiffSettings(%s) (-want +got):\n%s", tt.name, diff)
		}
	}
}

// Dynamo's version sets its sequence seed: both differ between versions,
// and a seed given as another version's is the seed alone.
func TestDiffSettingsDynamoVersion(t *testing.T) {
	seed0 := uint64(0)
	router := Settings{Engine: EngineDynamo, Layout: Layout{TokensPerBlock: 16}}
	tokens := router
	tokens.Engines.Version = VersionDynamoTokens
	want := []SettingDiff{{"Engines.Version", `"router"`, `"tokens"`}, {"Engines.SequenceSeed", "1337", "0"}}
	if diff := cmp.Diff(want, DiffSettings(router, tokens)); diff != "" {
		t.Errorf("DiffSettings(router, tokens) (-want +got):\n%s", diff)
	}
	seeded := router
	seeded.Engines.SequenceSeed = &seed0
	want = []SettingDiff{{"Engines.SequenceSeed", "1337", "0"}}
	if diff := cmp.Diff(want, DiffSettings(router, seeded)); diff != "" {
		t.Errorf("DiffSettings(router, seed 0) (-want +got):\n%s", diff)
	}
}
