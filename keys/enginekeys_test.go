package keys

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestVLLMKeyVectors(t *testing.T) {
	for _, v := range loadEngineVectors(t).VLLMKeys {
		if v.Tokens != "101*k for k in 1..16" {
			t.Fatalf("tokens %q: want 101*k for k in 1..16", v.Tokens)
		}
		var tokens []int64
		for k := int64(1); k <= 16; k++ {
			tokens = append(tokens, 101*k)
		}
		s := vllmSettings(v.HashAlgo, v.HashSeed, v.BlockSize)
		s.Namespace.ModelKey, s.Layout.World, s.Layout.Ranks = v.Model, 1, []int{v.TPRank}
		blocks, err := s.EngineBlocks(Scope{}, tokens)
		if err != nil || len(blocks) != 1 {
			t.Fatalf("EngineBlocks = %d blocks, %v; want 1", len(blocks), err)
		}
		if got := s.AppendEngineKeys(nil, blocks[0]); !cmp.Equal(got, []string{v.Key}) {
			t.Errorf("AppendEngineKeys(vllm) = %q, want %q", got, v.Key)
		}
	}
}

func TestSGLangKeyVectors(t *testing.T) {
	for _, v := range loadEngineVectors(t).SGLangKeys {
		tokens := []int64{1, 2, 3, 4}
		base := Settings{Engine: EngineSGLang, Layout: Layout{TokensPerBlock: 4, World: 1, Ranks: []int{0}}}
		blocks, err := base.EngineBlocks(Scope{}, tokens)
		if err != nil || len(blocks) != 1 {
			t.Fatalf("EngineBlocks = %d blocks, %v; want 1", len(blocks), err)
		}
		mla, model := base, base
		mla.Engines.MLA = true
		model.Namespace.ModelKey = "Qwen/Qwen3-8B"
		for name, s := range map[string]Settings{"mha_tp0": base, "mla": mla, "mha_tp0_model_Qwen/Qwen3-8B": model} {
			var want []string
			for _, k := range v[name].([]any) {
				want = append(want, k.(string))
			}
			if got := s.AppendEngineKeys(nil, blocks[0]); !cmp.Equal(got, want) {
				t.Errorf("AppendEngineKeys(sglang %s) = %q, want %q", name, got, want)
			}
		}
	}
}

func TestLMCacheKeyVector(t *testing.T) {
	v := loadEngineVectors(t).LMCache[0]
	s := Settings{Engine: EngineLMCache, Namespace: Namespace{ModelKey: "meta-llama/Llama-3.1-8B-Instruct"}, Layout: Layout{World: 1, Ranks: []int{0}}}
	got := s.AppendEngineKeys(nil, EngineBlock{Hash: v.Chunks[0]})
	if !cmp.Equal(got, []string{v.Key}) {
		t.Errorf("AppendEngineKeys(lmcache) = %q, want %q", got, v.Key)
	}
}

func TestEngineKeysLayouts(t *testing.T) {
	h := EngineBlock{Hash: "ab"}
	tests := []struct {
		name string
		s    Settings
		want []string
	}{
		{"vllm tp4 kv heads 2: ranks pair up", Settings{Engine: EngineVLLM, Engines: EngineOptions{KVHeads: 2},
			Namespace: Namespace{Name: "pre", ModelKey: "/models/m"}, Layout: Layout{World: 4, Ranks: []int{0, 1, 2, 3}}},
			[]string{"pre@m@tp_rank:0@pcp0@dcp0@pp_rank:0@group:0@ab", "pre@m@tp_rank:1@pcp0@dcp0@pp_rank:0@group:0@ab"}},
		{"vllm mla: one key", Settings{Engine: EngineVLLM, Engines: EngineOptions{MLA: true, PPRank: 1, Group: 2},
			Namespace: Namespace{ModelKey: "m"}, Layout: Layout{World: 2, Ranks: []int{0, 1}}},
			[]string{"m@tp_rank:0@pcp0@dcp0@pp_rank:1@group:2@ab"}},
		{"sglang mha pp", Settings{Engine: EngineSGLang, Engines: EngineOptions{PPSize: 2, PPRank: 1},
			Namespace: Namespace{Name: "mooncake"}, Layout: Layout{World: 2, Ranks: []int{1}}},
			[]string{"mooncake_ab_1_1_k", "mooncake_ab_1_1_v"}},
		{"sglang mla pp: the pp rank as mla_suffix", Settings{Engine: EngineSGLang, Engines: EngineOptions{MLA: true, PPSize: 2, PPRank: 1},
			Layout: Layout{World: 2, Ranks: []int{0, 1}}},
			[]string{"ab_1_k"}},
		{"sglang mla: empty mla_suffix", Settings{Engine: EngineSGLang, Engines: EngineOptions{MLA: true},
			Layout: Layout{World: 2, Ranks: []int{0, 1}}},
			[]string{"ab__k"}},
		{"vllm pr40900: no prefix or group", Settings{Engine: EngineVLLM, Engines: EngineOptions{Version: VersionVLLMPR40900},
			Namespace: Namespace{ModelKey: "org/m"}, Layout: Layout{World: 1, Ranks: []int{0}}},
			[]string{"m@tp_rank:0@pcp0@dcp0@pp_rank:0@ab"}},
		{"lmcache tp2", Settings{Engine: EngineLMCache, Engines: EngineOptions{DType: "half"},
			Namespace: Namespace{ModelKey: "org/m"}, Layout: Layout{World: 2, Ranks: []int{0, 1}}},
			[]string{"org/m@2@0@ab@half", "org/m@2@1@ab@half"}},
		{"dynamo: no pool", Settings{Engine: EngineDynamo, Layout: Layout{World: 1, Ranks: []int{0}}}, nil},
	}
	for _, tt := range tests {
		if got := tt.s.AppendEngineKeys(nil, h); !cmp.Equal(got, tt.want) {
			t.Errorf("%s: AppendEngineKeys = %q, want %q", tt.name, got, tt.want)
		}
	}
}
