package keys

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The golden vectors of spec/keys.md, produced by the upstream Python.
type vectorFile struct {
	ScopeSeeds []struct {
		Scope           string            `json:"scope"`
		CacheSalt       *string           `json:"cache_salt"`
		LoRATaskID      *int64            `json:"lora_task_id"`
		Multimodal      [][8]int32        `json:"multimodal_hashes_int32x8"`
		FramedHex       string            `json:"framed_hex"`
		SeedHex         string            `json:"seed_hex"`
		LookaheadSeeds  map[string]string `json:"lookahead_seeds_hex"`
		MultimodalBytes []string          `json:"multimodal_digests_hex"`
	} `json:"scope_seeds"`
	Chains []vectorChain `json:"chains"`
	Keys   []struct {
		Namespace    string `json:"namespace"`
		ModelKey     string `json:"model_key"`
		ShardKey     string `json:"shard_key"`
		LayerGroupID int    `json:"layer_group_id"`
		T            int    `json:"tokens_per_block"`
		BytesPerPage int64  `json:"bytes_per_page"`
		World        int    `json:"world"`
		BlockHashHex string `json:"block_hash_hex"`
		Key          string `json:"key"`
		Kind         string `json:"kind"`
	} `json:"keys"`
	Fork   []vectorChain `json:"fork_variant_chains"`
	Legacy []vectorChain `json:"legacy_variant_chains"`
}

type vectorChain struct {
	Variant         string          `json:"variant"`
	Scope           string          `json:"scope"`
	CacheSalt       *string         `json:"cache_salt"`
	SeedHex         string          `json:"seed_hex"`
	Tokens          json.RawMessage `json:"tokens"`
	T               int             `json:"tokens_per_block"`
	Lookahead       int             `json:"prompt_lookahead"`
	NumBlocks       *int            `json:"num_blocks"`
	HashesHex       []string        `json:"hashes_hex"`
	FirstBlockBytes string          `json:"token_bytes_hex_first_block"`
}

func loadVectors(t *testing.T) vectorFile {
	t.Helper()
	data, err := os.ReadFile("../testdata/trtllm-key-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vectorFile
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if len(v.ScopeSeeds) == 0 || len(v.Chains) == 0 || len(v.Keys) == 0 || len(v.Fork) == 0 || len(v.Legacy) == 0 {
		t.Fatal("vector file is missing a section")
	}
	return v
}

// vectorTokens reads a token list spelled as a JSON array or "range(N)".
func vectorTokens(t *testing.T, raw json.RawMessage) []int64 {
	t.Helper()
	var spelled string
	if err := json.Unmarshal(raw, &spelled); err != nil {
		var tokens []int64
		if err := json.Unmarshal(raw, &tokens); err != nil {
			t.Fatalf("tokens %s: %v", raw, err)
		}
		return tokens
	}
	n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(spelled, "range("), ")"))
	if err != nil || !strings.HasPrefix(spelled, "range(") {
		t.Fatalf("tokens %q: want range(N)", spelled)
	}
	tokens := make([]int64, n)
	for i := range tokens {
		tokens[i] = int64(i)
	}
	return tokens
}

func hexHashes(hs []Hash) []string {
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

func TestVectorScopeSeeds(t *testing.T) {
	v := loadVectors(t)
	for _, s := range v.ScopeSeeds {
		scope := Scope{LoRATaskID: s.LoRATaskID, Multimodal: s.Multimodal}
		if s.CacheSalt != nil {
			scope.CacheSalt = *s.CacheSalt
		}
		if got := hex.EncodeToString(scope.Framed()); got != s.FramedHex {
			t.Errorf("%s: Framed() = %s, want %s", s.Scope, got, s.FramedHex)
		}
		seed, err := Seed(SchemeTRTLLM, scope, 0)
		if err != nil || seed.String() != s.SeedHex {
			t.Errorf("%s: Seed(trtllm, 0) = %s, %v, want %s", s.Scope, seed, err, s.SeedHex)
		}
		if len(s.LookaheadSeeds) == 0 {
			t.Errorf("%s: no lookahead seeds in the vectors", s.Scope)
		}
		for l, want := range s.LookaheadSeeds {
			L, _ := strconv.Atoi(l)
			got, err := Seed(SchemeTRTLLM, scope, L)
			if err != nil || got.String() != want {
				t.Errorf("%s: Seed(trtllm, %d) = %s, %v, want %s", s.Scope, L, got, err, want)
			}
		}
	}
}

// scopeByName maps the vectors' scope names to their scopes.
func scopeByName(t *testing.T, v vectorFile) map[string]Scope {
	t.Helper()
	m := map[string]Scope{}
	for _, s := range v.ScopeSeeds {
		sc := Scope{LoRATaskID: s.LoRATaskID, Multimodal: s.Multimodal}
		if s.CacheSalt != nil {
			sc.CacheSalt = *s.CacheSalt
		}
		m[s.Scope] = sc
	}
	return m
}

// checkChain hashes tokens one-shot and in several chunkings and compares
// every result with want.
func checkChain(t *testing.T, name string, seed Hash, tokens []int64, T, L int, want []string) {
	t.Helper()
	for _, chunk := range []int{0, 1, 3, T - 1, T, T + 1, 2*T + 5} {
		c, err := NewChain(seed, T, L)
		if err != nil {
			t.Fatalf("%s: NewChain: %v", name, err)
		}
		if chunk <= 0 {
			c.Extend(tokens)
		} else {
			for i := 0; i < len(tokens); i += chunk {
				c.Extend(tokens[i:min(i+chunk, len(tokens))])
			}
		}
		if diff := cmp.Diff(want, hexHashes(c.Hashes())); diff != "" {
			t.Errorf("%s, chunks of %d: hashes differ (-want +got):\n%s", name, chunk, diff)
		}
		if c.NumTokens() != len(tokens) || c.NumBlocks() != len(want) {
			t.Errorf("%s, chunks of %d: NumTokens, NumBlocks = %d, %d, want %d, %d", name, chunk, c.NumTokens(), c.NumBlocks(), len(tokens), len(want))
		}
	}
}

func TestVectorChains(t *testing.T) {
	v := loadVectors(t)
	scopes := scopeByName(t, v)
	for _, c := range v.Chains {
		name := fmt.Sprintf("%s T=%d L=%d tokens=%s", c.Scope, c.T, c.Lookahead, c.Tokens)
		scope, ok := scopes[c.Scope]
		if !ok || c.Variant != string(SchemeTRTLLM) {
			t.Fatalf("%s: unknown scope or variant %q", name, c.Variant)
		}
		if c.NumBlocks == nil || *c.NumBlocks != len(c.HashesHex) {
			t.Fatalf("%s: num_blocks does not match hashes_hex", name)
		}
		seed, err := Seed(SchemeTRTLLM, scope, c.Lookahead)
		if err != nil {
			t.Fatal(err)
		}
		tokens := vectorTokens(t, c.Tokens)
		checkChain(t, name, seed, tokens, c.T, c.Lookahead, c.HashesHex)
		if c.FirstBlockBytes != "" {
			if got := hex.EncodeToString(encodeTokens(tokens[:c.T+c.Lookahead])); got != c.FirstBlockBytes {
				t.Errorf("%s: first block bytes = %s, want %s", name, got, c.FirstBlockBytes)
			}
		}
	}
}

func TestVectorVariantChains(t *testing.T) {
	v := loadVectors(t)
	for _, c := range append(append([]vectorChain{}, v.Fork...), v.Legacy...) {
		scheme, err := ParseScheme(c.Variant)
		if err != nil {
			t.Fatal(err)
		}
		var scope Scope
		if c.CacheSalt != nil {
			scope.CacheSalt = *c.CacheSalt
		}
		name := fmt.Sprintf("%s salt=%v T=%d L=%d", scheme, c.CacheSalt != nil, c.T, c.Lookahead)
		seed, err := Seed(scheme, scope, c.Lookahead)
		if err != nil || seed.String() != c.SeedHex {
			t.Errorf("%s: Seed = %s, %v, want %s", name, seed, err, c.SeedHex)
		}
		checkChain(t, name, seed, vectorTokens(t, c.Tokens), c.T, c.Lookahead, c.HashesHex)
	}
}

// parseShard reads the vectors' shard spelling.
func parseShard(t *testing.T, s string) Shard {
	t.Helper()
	if s == "replicated" {
		return Shard{Replicated: true}
	}
	var sh Shard
	if _, err := fmt.Sscanf(s, "w%dr%d", &sh.World, &sh.Rank); err != nil {
		t.Fatalf("shard %q: %v", s, err)
	}
	return sh
}

func TestVectorKeys(t *testing.T) {
	v := loadVectors(t)
	for _, k := range v.Keys {
		h, err := ParseHash(k.BlockHashHex)
		if err != nil {
			t.Fatal(err)
		}
		ns := Namespace{Name: k.Namespace, ModelKey: k.ModelKey}
		var got string
		switch k.Kind {
		case "page":
			shard := parseShard(t, k.ShardKey)
			if shard.String() != k.ShardKey {
				t.Errorf("Shard.String() = %q, want %q", shard, k.ShardKey)
			}
			got = ns.PageKey(shard, LayerGroup{ID: k.LayerGroupID, BytesPerPage: k.BytesPerPage}, k.T, h)
		case "group":
			got = ns.GroupKey(k.World, h)
		default:
			t.Fatalf("unknown key kind %q", k.Kind)
		}
		if got != k.Key {
			t.Errorf("%s key = %q, want %q", k.Kind, got, k.Key)
		}
	}
}
