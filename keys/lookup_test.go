package keys

import (
	"strings"
	"testing"
)

func seedZero() *string { s := "0"; return &s }

// TestAppendLookupKeys counts the keys a lookup asks for per block and the
// blocks it looks up, engine by engine.
func TestAppendLookupKeys(t *testing.T) {
	base := Settings{
		Layout:    Layout{TokensPerBlock: 4, World: 4, Ranks: []int{0, 1, 2, 3}, LayerGroups: []LayerGroup{DefaultLayerGroup}},
		Namespace: Namespace{Name: "trtllm", ModelKey: "org/m"},
	}
	tokens := make([]int64, 10)
	for i := range tokens {
		tokens[i] = int64(i + 1)
	}
	tests := []struct {
		name              string
		engine            Engine
		opts              EngineOptions
		perBlock, blocks  int
		firstKeySuffix    string
		firstKeyHasPrefix string
	}{
		{"trtllm: every shard's page", EngineTRTLLM, EngineOptions{}, 4, 2, "", "trtllm/org/m/w4r0/"},
		{"sglang MHA: _k and _v per rank", EngineSGLang, EngineOptions{}, 8, 2, "_0_k", "org-m_"},
		{"sglang MLA: one key", EngineSGLang, EngineOptions{MLA: true}, 1, 2, "__k", "org-m_"},
		{"vllm: one key per rank", EngineVLLM, EngineOptions{HashSeed: seedZero()}, 4, 2, "", "m@tp_rank:0@"},
		{"vllm: 2 KV heads on TP 4 replicate twice", EngineVLLM, EngineOptions{HashSeed: seedZero(), KVHeads: 2}, 2, 2, "", "m@tp_rank:0@"},
		{"vllm MLA: one key", EngineVLLM, EngineOptions{HashSeed: seedZero(), MLA: true}, 1, 2, "", "m@tp_rank:0@"},
		{"lmcache: full chunks only", EngineLMCache, EngineOptions{HashSeed: seedZero(), ChunkSize: 3}, 4, 3, "@bfloat16", "org/m@4@0@"},
	}
	for _, tt := range tests {
		s := base
		s.Engine, s.Engines = tt.engine, tt.opts
		if tt.engine != EngineTRTLLM {
			s.Namespace.Name = ""
		}
		got, blocks, err := s.AppendLookupKeys(nil, Scope{}, tokens)
		if err != nil {
			t.Fatalf("%s: AppendLookupKeys = %v", tt.name, err)
		}
		if s.KeysPerBlock() != tt.perBlock || blocks != tt.blocks || len(got) != tt.perBlock*tt.blocks {
			t.Errorf("%s: AppendLookupKeys = %d keys of %d blocks, KeysPerBlock %d; want %d blocks of %d",
				tt.name, len(got), blocks, s.KeysPerBlock(), tt.blocks, tt.perBlock)
			continue
		}
		if !strings.HasPrefix(got[0], tt.firstKeyHasPrefix) || !strings.HasSuffix(got[0], tt.firstKeySuffix) {
			t.Errorf("%s: first key = %q, want %q...%q", tt.name, got[0], tt.firstKeyHasPrefix, tt.firstKeySuffix)
		}
	}
}

func TestAppendLookupKeysDynamo(t *testing.T) {
	s := Settings{Engine: EngineDynamo, Layout: Layout{TokensPerBlock: 4, World: 1, Ranks: []int{0}}}
	if _, _, err := s.AppendLookupKeys(nil, Scope{}, make([]int64, 8)); err == nil || !strings.Contains(err.Error(), "no pool") {
		t.Errorf("AppendLookupKeys(dynamo) error = %v, want one saying it keeps no pool", err)
	}
}

func TestBlockTokens(t *testing.T) {
	tests := []struct {
		s    Settings
		want int
	}{
		{Settings{Layout: Layout{TokensPerBlock: 16}}, 16},
		{Settings{Engine: EngineVLLM, Layout: Layout{TokensPerBlock: 16}}, 16},
		{Settings{Engine: EngineLMCache, Layout: Layout{TokensPerBlock: 16}}, DefaultChunkSize},
		{Settings{Engine: EngineLMCache, Engines: EngineOptions{ChunkSize: 8}, Layout: Layout{TokensPerBlock: 16}}, 8},
	}
	for _, tt := range tests {
		if got := tt.s.BlockTokens(); got != tt.want {
			t.Errorf("Settings{Engine: %q}.BlockTokens() = %d, want %d", tt.s.Engine, got, tt.want)
		}
	}
}
