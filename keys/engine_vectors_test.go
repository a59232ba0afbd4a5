package keys

import (
	"encoding/json"
	"errors"
	"os"
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
