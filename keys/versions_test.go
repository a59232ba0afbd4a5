package keys

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLookupEngineVersion(t *testing.T) {
	tests := []struct {
		e       Engine
		v       EngineVersion
		want    EngineVersion
		refused bool
		errText string
	}{
		{e: EngineVLLM, want: VersionCurrent},
		{e: EngineVLLM, v: VersionVLLMPR40900, want: VersionVLLMPR40900},
		{e: EngineLMCache, want: VersionCurrent},
		{e: EngineLMCache, v: VersionLMCacheFmt, refused: true, errText: "integer"},
		{e: EngineSGLang, want: VersionCurrent},
		{e: EngineDynamo, want: VersionDynamoRouter},
		{e: EngineDynamo, v: VersionDynamoTokens, want: VersionDynamoTokens},
		{e: EngineTRTLLM, want: VersionCurrent},
		{e: EngineTRTLLM, v: "pr40900", errText: "seed scheme"},
		{e: EngineDynamo, v: "pr40900", errText: "want router or tokens"},
		{e: EngineVLLM, v: "0.9", errText: "want current or pr40900"},
	}
	for _, tt := range tests {
		got, err := LookupEngineVersion(tt.e, tt.v)
		if tt.errText != "" {
			if err == nil || !strings.Contains(err.Error(), tt.errText) || errors.Is(err, ErrRefused) != tt.refused {
				t.Errorf("LookupEngineVersion(%s, %q) = %v, want an error with %q (refused %v)", tt.e, tt.v, err, tt.errText, tt.refused)
			}
			continue
		}
		if err != nil || got.Name != tt.want {
			t.Errorf("LookupEngineVersion(%s, %q) = %q, %v, want %q", tt.e, tt.v, got.Name, err, tt.want)
		}
	}
}

func TestEngineVersionsEveryEngineCurrentFirst(t *testing.T) {
	seen := map[Engine]bool{}
	for _, v := range EngineVersions {
		if !seen[v.Engine] && v.Refused != "" {
			t.Errorf("EngineVersions: %s's first version %s is refused, want a reproduced one first", v.Engine, v.Name)
		}
		seen[v.Engine] = true
		if v.Source == "" {
			t.Errorf("EngineVersions: %s %s names no upstream source", v.Engine, v.Name)
		}
	}
	for _, e := range Engines[1:] {
		if !seen[e] {
			t.Errorf("EngineVersions has no version of %s", e)
		}
	}
}

// The Dynamo fixtures of lib/tokens hash sequences with seed 1337 and 0:
// the versions name them.
func TestDynamoVersionsReproduceFixtures(t *testing.T) {
	for _, v := range loadEngineVectors(t).Dynamo {
		if v.LoRAName != nil || v.Salt != nil {
			continue
		}
		version := VersionDynamoRouter
		if v.SequenceSeed == DynamoSequenceSeedTokens {
			version = VersionDynamoTokens
		}
		s := Settings{Engine: EngineDynamo, Engines: EngineOptions{Version: version}, Layout: Layout{TokensPerBlock: v.BlockSize}}
		blocks, err := s.EngineBlocks(Scope{}, v.Tokens)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, b := range blocks {
			got = append(got, b.Hash)
		}
		if diff := cmp.Diff(v.SequenceHashes, got); diff != "" {
			t.Errorf("EngineBlocks(version %s) sequence hashes differ (-want +got):\n%s", version, diff)
		}
	}
}

func TestEngineVersionConflicts(t *testing.T) {
	seed, zero, one := "0", uint64(0), uint64(1337)
	vllm := func(v EngineVersion) Settings {
		s := vllmSettings("sha256", seed, 4)
		s.Engines.Version = v
		return s
	}
	tests := []struct {
		name    string
		s       Settings
		errText string
	}{
		{"pr40900 with a cache prefix", func() Settings { s := vllm(VersionVLLMPR40900); s.Namespace.Name = "p"; return s }(), "no cache prefix"},
		{"pr40900 with a group", func() Settings { s := vllm(VersionVLLMPR40900); s.Engines.Group = 1; return s }(), "no cache prefix"},
		{"pr40900 with chunks", func() Settings { s := vllm(VersionVLLMPR40900); s.Engines.ChunkSize = 8; return s }(), "no chunks"},
		{"current with chunks", func() Settings { s := vllm(""); s.Engines.ChunkSize = 8; return s }(), ""},
		{"chunk not a multiple", func() Settings { s := vllm(""); s.Engines.ChunkSize = 6; return s }(), "not a multiple"},
		{"tokens with seed 1337", Settings{Engine: EngineDynamo, Engines: EngineOptions{Version: VersionDynamoTokens, SequenceSeed: &one}, Layout: Layout{TokensPerBlock: 4}}, "seed 0, not 1337"},
		{"tokens with seed 0", Settings{Engine: EngineDynamo, Engines: EngineOptions{Version: VersionDynamoTokens, SequenceSeed: &zero}, Layout: Layout{TokensPerBlock: 4}}, ""},
		{"no version with seed 0", Settings{Engine: EngineDynamo, Engines: EngineOptions{SequenceSeed: &zero}, Layout: Layout{TokensPerBlock: 4}}, ""},
		{"trtllm with a version", Settings{Engines: EngineOptions{Version: VersionCurrent}, Layout: Layout{TokensPerBlock: 4}}, "seed scheme"},
	}
	for _, tt := range tests {
		err := tt.s.validateEngine()
		if (tt.errText == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.errText) {
			t.Errorf("%s: validateEngine() = %v, want error %q", tt.name, err, tt.errText)
		}
	}
}

// vLLM's pr40900 keys are the current ones without the @group: segment
// (mooncake_store_data.py: PoolKey.to_string), on the golden key's block.
func TestVLLMPR40900Keys(t *testing.T) {
	v := loadEngineVectors(t).VLLMKeys[0]
	tokens := make([]int64, 16)
	for k := range tokens {
		tokens[k] = int64(101 * (k + 1))
	}
	for _, tt := range []struct {
		version EngineVersion
		want    string
	}{
		{"", v.Key},
		{VersionVLLMPR40900, strings.Replace(v.Key, "@group:0", "", 1)},
	} {
		s := vllmSettings(v.HashAlgo, v.HashSeed, v.BlockSize)
		s.Engines.Version = tt.version
		s.Namespace.ModelKey, s.Layout.World, s.Layout.Ranks = v.Model, 1, []int{v.TPRank}
		got, n, err := s.AppendLookupKeys(nil, Scope{}, tokens)
		if err != nil || n != 1 || len(got) != 1 || got[0] != tt.want {
			t.Errorf("AppendLookupKeys(version %q) = %q, %d, %v, want [%q], 1", tt.version, got, n, err, tt.want)
		}
	}
}

// A chunk of several hash blocks is keyed by its last block's digest
// (store/data.py: chunk_hashes_for_block_size), on the upstream fixture's
// two blocks; a partial trailing chunk is left out.
func TestVLLMChunksKeyedByLastBlock(t *testing.T) {
	v := loadEngineVectors(t).VLLM[0]
	for _, tt := range []struct {
		chunk  int
		tokens []int64
		want   []EngineBlock
	}{
		{0, v.Tokens, []EngineBlock{
			{Start: 0, End: 4, Hash: v.Blocks[0].Digest, EventHash: v.Blocks[0].Low64},
			{Start: 4, End: 8, Hash: v.Blocks[1].Digest, EventHash: v.Blocks[1].Low64}}},
		{8, v.Tokens, []EngineBlock{{Start: 0, End: 8, Hash: v.Blocks[1].Digest, EventHash: v.Blocks[1].Low64}}},
		{8, append(append([]int64{}, v.Tokens...), 9, 10, 11, 12), []EngineBlock{{Start: 0, End: 8, Hash: v.Blocks[1].Digest, EventHash: v.Blocks[1].Low64}}},
		{16, v.Tokens, []EngineBlock{}},
	} {
		s := vllmSettings(v.HashAlgo, v.HashSeed, v.BlockSize)
		s.Engines.ChunkSize = tt.chunk
		got, err := s.EngineBlocks(Scope{}, tt.tokens)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("EngineBlocks(chunk %d, %d tokens) differs (-want +got):\n%s", tt.chunk, len(tt.tokens), diff)
		}
		if s.BlockTokens() != max(tt.chunk, v.BlockSize) {
			t.Errorf("BlockTokens() = %d, want %d", s.BlockTokens(), max(tt.chunk, v.BlockSize))
		}
	}
}

// A vLLM lookup asks for every pp rank's key of a block (worker.py:
// MooncakeStoreWorker.lookup); a rank writes its own.
func TestVLLMLookupEveryPPRank(t *testing.T) {
	s := vllmSettings("sha256", "0", 4)
	s.Namespace.ModelKey, s.Layout.World, s.Layout.Ranks = "m", 1, []int{0}
	s.Engines.PPSize, s.Engines.PPRank = 2, 1
	b := EngineBlock{Hash: "ab"}
	if got, want := s.AppendEngineKeys(nil, b), []string{"m@tp_rank:0@pcp0@dcp0@pp_rank:1@group:0@ab"}; !cmp.Equal(got, want) {
		t.Errorf("AppendEngineKeys = %q, want %q", got, want)
	}
	want := []string{"m@tp_rank:0@pcp0@dcp0@pp_rank:0@group:0@ab", "m@tp_rank:0@pcp0@dcp0@pp_rank:1@group:0@ab"}
	if got := s.AppendLookupBlockKeys(nil, b); !cmp.Equal(got, want) || s.KeysPerBlock() != 2 {
		t.Errorf("AppendLookupBlockKeys = %q (KeysPerBlock %d), want %q", got, s.KeysPerBlock(), want)
	}
}
