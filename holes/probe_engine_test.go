package holes

import (
	"context"
	"strings"
	"testing"

	"github.com/kvctl/kvctl/keys"
	"github.com/kvctl/kvctl/pool/mem"
)

// TestProbeEngines probes pools written by other engines' connectors: a
// block is present only if every key its lookup asks for is stored, so a
// block with one key missing is a hole.
func TestProbeEngines(t *testing.T) {
	seed := "0"
	layout := keys.Layout{TokensPerBlock: 4, World: 2, Ranks: []int{0, 1}}
	tests := []struct {
		name     string
		s        keys.Settings
		drop     string // the key of block 1 left out of the pool ends so
		wantKeys int    // keys per block
	}{
		{"sglang: rank 1's v page missing", keys.Settings{Engine: keys.EngineSGLang, Layout: layout, Namespace: keys.Namespace{ModelKey: "org/m"}}, "_1_v", 4},
		{"sglang without a model prefix", keys.Settings{Engine: keys.EngineSGLang, Layout: layout}, "_0_k", 4},
		{"vllm: rank 1's key missing", keys.Settings{Engine: keys.EngineVLLM, Engines: keys.EngineOptions{HashSeed: &seed}, Layout: layout, Namespace: keys.Namespace{ModelKey: "org/m"}}, "", 2},
		{"lmcache: worker 0's chunk missing", keys.Settings{Engine: keys.EngineLMCache, Engines: keys.EngineOptions{HashSeed: &seed, ChunkSize: 4}, Layout: layout, Namespace: keys.Namespace{ModelKey: "org/m"}}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tokens := seq(14, 1) // 3 full blocks and a partial one
			all, blocks, err := tt.s.AppendLookupKeys(nil, keys.Scope{}, tokens)
			if err != nil || blocks != 3 || tt.s.KeysPerBlock() != tt.wantKeys {
				t.Fatalf("AppendLookupKeys = %d blocks of %d keys, %v; want 3 of %d", blocks, tt.s.KeysPerBlock(), err, tt.wantKeys)
			}
			var stored []string
			for i, k := range all {
				block, last := i/tt.wantKeys, i%tt.wantKeys == tt.wantKeys-1
				if block == 1 && (strings.HasSuffix(k, tt.drop) && tt.drop != "" || tt.drop == "" && last) {
					continue
				}
				stored = append(stored, k)
			}
			st, _ := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
			defer st.Close()
			fill(t, st, stored)
			rep, err := Probe(context.Background(), st, "mem", sliceSource{{ID: "r", Tokens: tokens}}, ProbeOptions{Keys: tt.s})
			if err != nil {
				t.Fatal(err)
			}
			if got := rep.Requests[0]; got.Map != "#.#" || got.TokensPerBlock != 4 || got.HitBlocks != 1 {
				t.Errorf("Probe(%s) = map %q, %d hit, T %d; want \"#.#\", 1 hit, T 4", tt.name, got.Map, got.HitBlocks, got.TokensPerBlock)
			}
		})
	}
}

// TestProbeDynamo refuses to probe Dynamo's router blocks: no pool keys.
func TestProbeDynamo(t *testing.T) {
	s := keys.Settings{Engine: keys.EngineDynamo, Layout: keys.Layout{TokensPerBlock: 4, World: 1, Ranks: []int{0}}, Namespace: keys.Namespace{ModelKey: "m"}}
	st, _ := mem.New(mem.Options{Capacity: 1 << 20, Segments: 1, ArenaSize: 1 << 20})
	defer st.Close()
	if _, err := Probe(context.Background(), st, "mem", sliceSource{{ID: "r", Tokens: seq(8, 1)}}, ProbeOptions{Keys: s}); err == nil || !strings.Contains(err.Error(), "no pool") {
		t.Errorf("Probe(dynamo) error = %v, want one saying it keeps no pool", err)
	}
}

// TestProbeVLLMChunks probes a pool vLLM's connector wrote with chunks of
// two hash blocks: each chunk is stored under its last block's key only,
// so the probe finds every chunk there, and none in a pool holding the
// other blocks' keys.
func TestProbeVLLMChunks(t *testing.T) {
	seed := "0"
	perBlock := keys.Settings{Engine: keys.EngineVLLM, Engines: keys.EngineOptions{HashSeed: &seed},
		Layout: keys.Layout{TokensPerBlock: 2, World: 1, Ranks: []int{0}}, Namespace: keys.Namespace{ModelKey: "m"}}
	chunked := perBlock
	chunked.Engines.ChunkSize = 4
	tokens := seq(14, 1) // 7 hash blocks: 3 full chunks and a partial one
	blockKeys, _, err := perBlock.AppendLookupKeys(nil, keys.Scope{}, tokens)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		odd  int // stores the keys of the hash blocks with i%2 == odd
		want string
	}{{1, "###"}, {0, "..."}} {
		var stored []string
		for i, k := range blockKeys {
			if i%2 == tt.odd {
				stored = append(stored, k)
			}
		}
		st, _ := mem.New(mem.Options{Capacity: 64 << 20, Segments: 1, ArenaSize: 1 << 20, Eviction: mem.EvictManual})
		fill(t, st, stored)
		rep, err := Probe(context.Background(), st, "mem", sliceSource{{ID: "r", Tokens: tokens}}, ProbeOptions{Keys: chunked})
		st.Close()
		if err != nil {
			t.Fatal(err)
		}
		if got := rep.Requests[0]; got.Map != tt.want || got.TokensPerBlock != 4 {
			t.Errorf("Probe(chunks of 4, blocks %%2 == %d stored) = map %q, T %d; want %q, T 4", tt.odd, got.Map, got.TokensPerBlock, tt.want)
		}
	}
}
