package connector

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/kvctl/kvctl/keys"
)

// baseSettings is what a caller holds before applying a file: every field
// set, so the test sees which ones the file changes.
func baseSettings() keys.Settings {
	return keys.Settings{
		Scheme: keys.SchemeFork, Lookahead: 5,
		Layout: keys.Layout{TokensPerBlock: 16, World: 4, Ranks: []int{2},
			LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 64}}},
		Namespace: keys.Namespace{Name: "old", ModelKey: "old-model"},
		Scope:     keys.Scope{CacheSalt: "salt"},
	}
}

func TestMooncakeConfigApplyKeys(t *testing.T) {
	c, err := ParseMooncakeConfig([]byte(`{"master_server_address": "m:1", "namespace": "prod", "model_key": "r1"}`))
	if err != nil {
		t.Fatal(err)
	}
	got := baseSettings()
	c.ApplyKeys(&got)
	want := baseSettings()
	want.Namespace = keys.Namespace{Name: "prod", ModelKey: "r1"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ApplyKeys() settings (-want +got):\n%s", diff)
	}
}

func TestLLMConfigApplyKeys(t *testing.T) {
	tests := []struct {
		name   string
		yaml   string
		change func(*keys.Settings)
	}{
		{"empty file: TensorRT-LLM's T, no lookahead", ``, func(s *keys.Settings) {
			s.Layout.TokensPerBlock, s.Lookahead = DefaultTokensPerBlock, 0
		}},
		{"T and a vanilla MTP draft", "kv_cache_config: {tokens_per_block: 64}\nspeculative_config: {decoding_type: MTP, num_nextn_predict_layers: 3, use_mtp_vanilla: true}", func(s *keys.Settings) {
			s.Layout.TokensPerBlock, s.Lookahead = 64, 3
		}},
		{"attention DP keys w1r0", "enable_attention_dp: true\ntensor_parallel_size: 8", func(s *keys.Settings) {
			s.Layout.TokensPerBlock, s.Lookahead = DefaultTokensPerBlock, 0
			s.Layout.World, s.Layout.Ranks = 1, []int{0}
		}},
	}
	for _, tt := range tests {
		c, err := ParseLLMConfig([]byte(tt.yaml))
		if err != nil {
			t.Fatalf("%s: ParseLLMConfig() = %v", tt.name, err)
		}
		got, want := baseSettings(), baseSettings()
		c.ApplyKeys(&got)
		tt.change(&want)
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: ApplyKeys() settings (-want +got):\n%s", tt.name, diff)
		}
	}
}
