package connector

import (
	"os"
	"path/filepath"
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
	c, err := ParseMooncakeConfig([]byte(`{"master_server_address": "m:1", "namespace": "prod", "cache_prefix": "old-build", "model_key": "r1"}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		scheme keys.Scheme
		name   string
	}{
		{keys.SchemeTRTLLM, "prod"},
		{"", "prod"}, // the default scheme
		{keys.SchemeFork, "old-build"},
		{keys.SchemeLegacy, "old-build"},
	} {
		got := baseSettings()
		got.Scheme = tt.scheme
		c.ApplyKeys(&got)
		want := baseSettings()
		want.Scheme = tt.scheme
		want.Namespace = keys.Namespace{Name: tt.name, ModelKey: "r1"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("scheme %q: ApplyKeys() settings (-want +got):\n%s", tt.scheme, diff)
		}
	}
}

// TestMooncakeConfigKeyStrings follows a client JSON through
// LoadMooncakeConfig, ApplyKeys and ApplyKeysEnv to page and group key
// strings. The expected prefixes are what upstream's readers make of the
// file: str(raw.get("namespace", "trtllm")) in the current build,
// str(raw.get("cache_prefix", "trtllm")) then a non-empty
// TRTLLM_MOONCAKE_STORE_PREFIX in the older ones, each spelled
// f"{prefix}/{model_key}/w1r0/lg0/t16b65536/{hash}".
func TestMooncakeConfigKeyStrings(t *testing.T) {
	const hash = "34de2f9ab1a94b56f2010f2f4955b452"
	tests := []struct {
		name   string
		json   string // fields besides master_server_address and model_key
		scheme keys.Scheme
		env    string // TRTLLM_MOONCAKE_STORE_PREFIX
		prefix string
	}{
		{"namespace absent", ``, keys.SchemeTRTLLM, "", "trtllm"},
		{"namespace empty", `"namespace": "",`, keys.SchemeTRTLLM, "", ""},
		{"namespace null", `"namespace": null,`, keys.SchemeTRTLLM, "", "None"},
		{"namespace set", `"namespace": "prod/v2",`, keys.SchemeTRTLLM, "", "prod/v2"},
		{"current build reads no cache_prefix", `"cache_prefix": "cp",`, keys.SchemeTRTLLM, "", "trtllm"},
		{"current build reads no prefix variable", `"namespace": "ns",`, keys.SchemeTRTLLM, "env", "ns"},
		{"fork: cache_prefix absent", `"namespace": "ns",`, keys.SchemeFork, "", "trtllm"},
		{"fork: cache_prefix", `"namespace": "ns", "cache_prefix": "cp",`, keys.SchemeFork, "", "cp"},
		{"fork: cache_prefix empty", `"cache_prefix": "",`, keys.SchemeFork, "", ""},
		{"fork: cache_prefix null", `"cache_prefix": null,`, keys.SchemeFork, "", "None"},
		{"fork: the variable wins over the file", `"cache_prefix": "cp",`, keys.SchemeFork, "env", "env"},
		{"fork: the variable without cache_prefix", ``, keys.SchemeFork, "env", "env"},
		{"legacy: the variable wins over the file", `"cache_prefix": "cp",`, keys.SchemeLegacy, "env", "env"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mooncake.json")
			data := `{` + tt.json + ` "master_server_address": "m:1", "model_key": "org/m"}`
			if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
				t.Fatal(err)
			}
			c, err := LoadMooncakeConfig(path)
			if err != nil {
				t.Fatalf("LoadMooncakeConfig(%s) = %v", data, err)
			}
			s := keys.Settings{Scheme: tt.scheme, Layout: keys.Layout{TokensPerBlock: 16, World: 1, Ranks: []int{0},
				LayerGroups: []keys.LayerGroup{{ID: 0, BytesPerPage: 65536}}}}
			c.ApplyKeys(&s)
			ApplyKeysEnv(&s, func(k string) string {
				if k == CachePrefixEnv {
					return tt.env
				}
				return ""
			})
			h, _ := keys.ParseHash(hash)
			want := []string{tt.prefix + "/org/m/w1r0/lg0/t16b65536/" + hash}
			if diff := cmp.Diff(want, s.AppendBlockKeys(nil, h)); diff != "" {
				t.Errorf("page keys of %s (-want +got):\n%s", data, diff)
			}
			if got, want := s.GroupKey(h), tt.prefix+"/org/m/w1/"+hash; got != want {
				t.Errorf("group key of %s = %q, want %q", data, got, want)
			}
		})
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
