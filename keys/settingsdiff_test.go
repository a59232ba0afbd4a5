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
		}, []SettingDiff{{"Engine", `"vllm"`, `"sglang"`}, {"Layout.World", "1", "2"}, {"Layout.Ranks", "[0]", "[0 1]"}}},
		{"salt and lora", func(s *Settings) { s.Scope.CacheSalt, s.Scope.LoRAName = "s", "a" }, []SettingDiff{{"Scope.CacheSalt", `""`, `"s"`}, {"Scope.LoRAName", `""`, `"a"`}}},
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
