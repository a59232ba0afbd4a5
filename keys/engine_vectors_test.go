package keys

import (
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// engineVectors is testdata/engine-key-vectors.json: golden block hashes
// of the other engines, from upstream fixtures and the recipes.
type engineVectors struct {
	VLLM []struct {
		Name      string  `json:"name"`
		HashAlgo  string  `json:"hash_algo"`
		HashSeed  string  `json:"hash_seed"`
		BlockSize int     `json:"block_size"`
		Tokens    []int64 `json:"tokens"`
		LoRAName  *string `json:"lora_name"`
		CacheSalt *string `json:"cache_salt"`
		Blocks    []struct {
			Digest string `json:"digest"`
			Low64  string `json:"low64"`
		} `json:"blocks"`
	} `json:"vllm"`
	SGLang []struct {
		PageSize int      `json:"page_size"`
		Tokens   []int64  `json:"tokens"`
		Pages    []string `json:"pages"`
	} `json:"sglang"`
	Dynamo []struct {
		BlockSize      int      `json:"block_size"`
		Tokens         []int64  `json:"tokens"`
		LoRAName       *string  `json:"lora_name"`
		Salt           *string  `json:"salt"`
		SaltHash       string   `json:"salt_hash"`
		SequenceSeed   uint64   `json:"sequence_seed"`
		BlockHashes    []string `json:"block_hashes"`
		SequenceHashes []string `json:"sequence_hashes"`
	} `json:"dynamo"`
	LMCache []struct {
		HashAlgo  string   `json:"hash_algo"`
		HashSeed  string   `json:"hash_seed"`
		ChunkSize int      `json:"chunk_size"`
		Tokens    string   `json:"tokens"`
		Chunks    []string `json:"chunks"`
		Key       string   `json:"key_of_chunk_0"`
	} `json:"lmcache"`
	VLLMKeys []struct {
		Model     string `json:"model"`
		HashAlgo  string `json:"hash_algo"`
		HashSeed  string `json:"hash_seed"`
		BlockSize int    `json:"block_size"`
		Tokens    string `json:"tokens"`
		TPRank    int    `json:"tp_rank"`
		Key       string `json:"key"`
	} `json:"vllm_mooncake_keys"`
	SGLangKeys []map[string]any `json:"sglang_keys"`
}

func loadEngineVectors(t *testing.T) engineVectors {
	t.Helper()
	data, err := os.ReadFile("../testdata/engine-key-vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var v engineVectors
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func vllmSettings(algo, seed string, T int) Settings {
	return Settings{
		Engine:  EngineVLLM,
		Engines: EngineOptions{HashAlgo: HashAlgo(algo), HashSeed: &seed},
		Layout:  Layout{TokensPerBlock: T},
	}
}

func TestVLLMVectors(t *testing.T) {
	vs := loadEngineVectors(t).VLLM
	if len(vs) < 18 {
		t.Fatalf("read %d vLLM vectors, want 18", len(vs))
	}
	for _, v := range vs {
		t.Run(v.Name, func(t *testing.T) {
			s := vllmSettings(v.HashAlgo, v.HashSeed, v.BlockSize)
			sc := Scope{LoRAName: deref(v.LoRAName), CacheSalt: deref(v.CacheSalt)}
			got, err := s.EngineBlocks(sc, v.Tokens)
			if err != nil {
				t.Fatal(err)
			}
			want := []EngineBlock{}
			for i, b := range v.Blocks {
				want = append(want, EngineBlock{Start: i * v.BlockSize, End: (i + 1) * v.BlockSize, Hash: b.Digest, EventHash: b.Low64})
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("EngineBlocks(%q) differs (-want +got):\n%s", v.Name, diff)
			}
		})
	}
}

func TestEngineBlocksRefuses(t *testing.T) {
	seed := "0"
	task := int64(3)
	tests := []struct {
		name    string
		s       Settings
		sc      Scope
		refused bool
	}{
		{"no hash seed", Settings{Engine: EngineVLLM, Layout: Layout{TokensPerBlock: 4}}, Scope{}, true},
		{"multimodal", vllmSettings("sha256", seed, 4), Scope{Multimodal: [][8]int32{{1}}}, true},
		{"lora task id", vllmSettings("sha256", seed, 4), Scope{LoRATaskID: &task}, false},
		{"not utf-8", vllmSettings("sha256", seed, 4), Scope{CacheSalt: "\xff"}, false},
		{"unknown algo", vllmSettings("md5", seed, 4), Scope{}, false},
		{"no block size", vllmSettings("sha256", seed, 0), Scope{}, false},
		{"lookahead", Settings{Engine: EngineVLLM, Lookahead: 1, Engines: EngineOptions{HashSeed: &seed}, Layout: Layout{TokensPerBlock: 4}}, Scope{}, false},
		{"unknown engine", Settings{Engine: "tgi", Layout: Layout{TokensPerBlock: 4}}, Scope{}, false},
	}
	for _, tt := range tests {
		_, err := tt.s.EngineBlocks(tt.sc, []int64{1, 2, 3, 4})
		if err == nil {
			t.Errorf("%s: EngineBlocks = nil error, want one", tt.name)
			continue
		}
		if got := errors.Is(err, ErrRefused); got != tt.refused {
			t.Errorf("%s: EngineBlocks error %q: errors.Is(ErrRefused) = %v, want %v", tt.name, err, got, tt.refused)
		}
	}
}

func TestLMCacheVectors(t *testing.T) {
	vs := loadEngineVectors(t).LMCache
	if len(vs) == 0 {
		t.Fatal("no LMCache vectors")
	}
	for _, v := range vs {
		if v.Tokens != "0..299" {
			t.Fatalf("tokens %q: want 0..299", v.Tokens)
		}
		tokens := make([]int64, 300)
		for i := range tokens {
			tokens[i] = int64(i)
		}
		s := Settings{Engine: EngineLMCache, Engines: EngineOptions{HashAlgo: HashAlgo(v.HashAlgo), HashSeed: &v.HashSeed, ChunkSize: v.ChunkSize}, Layout: Layout{TokensPerBlock: 16}}
		got, err := s.EngineBlocks(Scope{}, tokens)
		if err != nil {
			t.Fatal(err)
		}
		var hashes []string
		for _, b := range got {
			hashes = append(hashes, b.Hash)
		}
		if diff := cmp.Diff(v.Chunks, hashes); diff != "" {
			t.Errorf("EngineBlocks(lmcache, 0..299) hashes differ (-want +got):\n%s", diff)
		}
		if n := len(got); n != 2 || got[1].Start != 256 || got[1].End != 300 {
			t.Errorf("EngineBlocks(lmcache, 0..299) = %+v, want chunks 0-256 and 256-300", got)
		}
	}
}

func TestLMCacheFullChunksAreVLLMBlocks(t *testing.T) {
	seed := "0"
	tokens := make([]int64, 600)
	for i := range tokens {
		tokens[i] = int64(i * 7)
	}
	lm := Settings{Engine: EngineLMCache, Engines: EngineOptions{HashAlgo: HashSHA256CBOR, HashSeed: &seed}, Layout: Layout{TokensPerBlock: 16}}
	vl := vllmSettings("sha256_cbor", seed, DefaultChunkSize)
	a, errA := lm.EngineBlocks(Scope{}, tokens)
	b, errB := vl.EngineBlocks(Scope{}, tokens)
	if errA != nil || errB != nil {
		t.Fatal(errA, errB)
	}
	if diff := cmp.Diff(b, a[:len(b)]); diff != "" || len(a) != 3 {
		t.Errorf("LMCache chunks (%d) are not vLLM's blocks at size 256 (-vllm +lmcache):\n%s", len(a), diff)
	}
}

func TestSGLangVectors(t *testing.T) {
	vs := loadEngineVectors(t).SGLang
	if len(vs) == 0 {
		t.Fatal("no SGLang vectors")
	}
	for _, v := range vs {
		s := Settings{Engine: EngineSGLang, Layout: Layout{TokensPerBlock: v.PageSize}}
		got, err := s.EngineBlocks(Scope{}, v.Tokens)
		if err != nil {
			t.Fatal(err)
		}
		var hashes []string
		for _, b := range got {
			hashes = append(hashes, b.Hash)
		}
		if diff := cmp.Diff(v.Pages, hashes); diff != "" {
			t.Errorf("EngineBlocks(sglang, page %d) differs (-want +got):\n%s", v.PageSize, diff)
		}
	}
}

func TestSGLangEagleHashesPairs(t *testing.T) {
	s := Settings{Engine: EngineSGLang, Layout: Layout{TokensPerBlock: 4}}
	eagle := Settings{Engine: EngineSGLang, Engines: EngineOptions{Eagle: true}, Layout: Layout{TokensPerBlock: 2}}
	// A page of the pairs (1,2),(2,3) hashes the tokens 1,2,2,3: a plain page of 4.
	plain, err := s.EngineBlocks(Scope{}, []int64{1, 2, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	pairs, err := eagle.EngineBlocks(Scope{}, []int64{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1 || pairs[0].Hash != plain[0].Hash {
		t.Errorf("EngineBlocks(sglang eagle, 1 2 3 4) = %+v, want one page hashed as tokens 1 2 2 3 (%s)", pairs, plain[0].Hash)
	}
	if pairs[0].End != 2 {
		t.Errorf("EngineBlocks(sglang eagle) page ends at %d, want 2 (pairs)", pairs[0].End)
	}
}

func TestSGLangEventHash(t *testing.T) {
	b := sglangBlock(0, 1, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe, 9})
	if b.EventHash != "-2" {
		t.Errorf("sglangBlock(ff..fe).EventHash = %s, want -2 (signed)", b.EventHash)
	}
}

func TestDynamoVectors(t *testing.T) {
	vs := loadEngineVectors(t).Dynamo
	if len(vs) < 3 {
		t.Fatalf("read %d Dynamo vectors, want 3", len(vs))
	}
	for _, v := range vs {
		sc := Scope{LoRAName: deref(v.LoRAName), CacheSalt: deref(v.Salt)}
		if got := strconv.FormatUint(dynamoSalt(sc), 10); got != v.SaltHash {
			t.Errorf("dynamoSalt(%+v) = %s, want %s", sc, got, v.SaltHash)
		}
		s := Settings{Engine: EngineDynamo, Engines: EngineOptions{SequenceSeed: &v.SequenceSeed}, Layout: Layout{TokensPerBlock: v.BlockSize}}
		got, err := s.EngineBlocks(sc, v.Tokens)
		if err != nil {
			t.Fatal(err)
		}
		var local, seq []string
		for _, b := range got {
			local, seq = append(local, b.LocalHash), append(seq, b.Hash)
		}
		if diff := cmp.Diff(v.BlockHashes, local); diff != "" {
			t.Errorf("EngineBlocks(dynamo seed %d) block hashes differ (-want +got):\n%s", v.SequenceSeed, diff)
		}
		if diff := cmp.Diff(v.SequenceHashes, seq); diff != "" {
			t.Errorf("EngineBlocks(dynamo seed %d) sequence hashes differ (-want +got):\n%s", v.SequenceSeed, diff)
		}
	}
}

func TestEngineTokensOutsideU32(t *testing.T) {
	for _, e := range []Engine{EngineSGLang, EngineDynamo} {
		s := Settings{Engine: e, Layout: Layout{TokensPerBlock: 1}}
		if _, err := s.EngineBlocks(Scope{}, []int64{-1}); err == nil {
			t.Errorf("EngineBlocks(%s, -1) = nil error, want one: tokens are u32", e)
		}
	}
}
