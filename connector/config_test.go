package connector

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func boolp(b bool) *bool { return &b }

func TestLoadMooncakeConfig(t *testing.T) {
	tests := []struct {
		file string
		want MooncakeConfig
	}{
		{"testdata/config-mooncake-full.json", MooncakeConfig{
			MasterServerAddress: "10.0.0.1:50051", MetadataServer: "etcd://10.0.0.1:2379", Protocol: "tcp",
			DeviceName: "mlx5_0", LocalHostname: "10.0.0.5", GlobalSegmentSize: 16 << 30, LocalBufferSize: 512 << 20,
			Role: "producer", Namespace: "prod", CachePrefix: "trtllm", ModelKey: "deepseek-r1-fp4", TransferBatchSize: 128,
			StageThroughHost: boolp(true), StagingBufferBytes: 2 << 30, AsyncLoad: true, AsyncLoadWorkers: 4,
		}},
		{"testdata/config-mooncake-minimal.json", MooncakeConfig{
			MasterServerAddress: "127.0.0.1:50051", MetadataServer: "P2PHANDSHAKE", Protocol: "rdma",
			GlobalSegmentSize: 3355443200, LocalBufferSize: 1 << 30, Role: "both", Namespace: "trtllm", CachePrefix: "trtllm",
			TransferBatchSize: 64, StagingBufferBytes: 1 << 30, AsyncLoadWorkers: 1,
		}},
	}
	for _, tt := range tests {
		got, err := LoadMooncakeConfig(tt.file)
		if err != nil {
			t.Errorf("LoadMooncakeConfig(%s): %v", tt.file, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("LoadMooncakeConfig(%s) (-want +got):\n%s", tt.file, diff)
		}
	}
}

func TestLoadMooncakeConfigErrors(t *testing.T) {
	_, err := LoadMooncakeConfig("testdata/config-mooncake-decimal.json")
	if err == nil || !strings.Contains(err.Error(), `"testdata/config-mooncake-decimal.json": global_segment_size: size "3GB": decimal unit`) {
		t.Errorf("LoadMooncakeConfig(decimal unit) error = %v", err)
	}
	if _, err := LoadMooncakeConfig("testdata/missing.json"); err == nil {
		t.Error("LoadMooncakeConfig(missing file) = nil error")
	}
	tests := []struct{ json, want string }{
		{`[1]`, "line 1, column 1: not a JSON object"},
		{"{\"namespace\": \"n\",\n  \"model_key\": }", "line 2, column 16: not valid JSON: invalid character '}'"},
		{"{\n\"namespace\": \"n\"", "not a JSON object: unexpected EOF"},
		{`null`, "not a JSON object: null"},
		{`{"master_server_address": "m"} {}`, "more data after the object"},
		{`{"master_server_address": 5}`, "master_server_address: want a string, got 5"},
		{`{"master_server_address": "m", "namespace": 5}`, "namespace: want a string, got 5"},
		{`{"master_server_address": "m", "role": "reader"}`, `role "reader" is not one of both, producer, consumer, capacity`},
		{`{"master_server_address": "m", "local_buffer_size": "1MB"}`, `local_buffer_size: size "1MB": decimal unit`},
		{`{"master_server_address": "m", "local_buffer_size": -1}`, "local_buffer_size: size -1 is negative"},
		{`{"master_server_address": "m", "local_buffer_size": 0}`, "local_buffer_size must be positive"},
		{`{"master_server_address": "m", "global_segment_size": 1.5}`, "global_segment_size: 1.5 is not a whole number of bytes"},
		{`{"master_server_address": "m", "global_segment_size": true}`, "global_segment_size: want a byte count"},
		{`{"master_server_address": "m", "transfer_batch_size": 0}`, "transfer_batch_size must be positive"},
		{`{"master_server_address": "m", "transfer_batch_size": "64"}`, `transfer_batch_size: want an integer, got "64"`},
		{`{"master_server_address": "m", "stage_through_host": "yes"}`, `stage_through_host: want true or false, got "yes"`},
		{`{"master_server_address": "m", "async_load": 1}`, "async_load: want true or false, got 1"},
		{`{"master_server_address": "m", "async_load_workers": 0}`, "async_load_workers must be at least 1"},
	}
	for _, tt := range tests {
		_, err := ParseMooncakeConfig([]byte(tt.json))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseMooncakeConfig(%s) error = %v, want %q", tt.json, err, tt.want)
		}
	}
}

func TestParseMooncakeConfigValues(t *testing.T) {
	tests := []struct {
		json string
		want func(MooncakeConfig) bool
	}{
		{`{"master_server_address": "m", "global_segment_size": 3e9}`, func(c MooncakeConfig) bool { return c.GlobalSegmentSize == 3e9 }},
		{`{"master_server_address": "m", "global_segment_size": "1.5GiB"}`, func(c MooncakeConfig) bool { return c.GlobalSegmentSize == 3<<29 }},
		{`{"master_server_address": "m", "metadata_server": ""}`, func(c MooncakeConfig) bool { return c.MetadataServer == "P2PHANDSHAKE" }},
		{`{"master_server_address": "m"}`, func(c MooncakeConfig) bool { return c.Namespace == "trtllm" && c.CachePrefix == "trtllm" }},
		{`{"master_server_address": "m", "namespace": ""}`, func(c MooncakeConfig) bool { return c.Namespace == "" }},
		{`{"master_server_address": "m", "namespace": null}`, func(c MooncakeConfig) bool { return c.Namespace == "None" }},
		{`{"master_server_address": "m", "cache_prefix": null}`, func(c MooncakeConfig) bool { return c.CachePrefix == "None" && c.Namespace == "trtllm" }},
		{`{"master_server_address": "m", "stage_through_host": false}`, func(c MooncakeConfig) bool { return c.StageThroughHost != nil && !*c.StageThroughHost }},
	}
	for _, tt := range tests {
		got, err := ParseMooncakeConfig([]byte(tt.json))
		if err != nil || !tt.want(got) {
			t.Errorf("ParseMooncakeConfig(%s) = %+v, %v", tt.json, got, err)
		}
	}
}

func TestLoadLLMConfig(t *testing.T) {
	tests := []struct {
		file string
		want LLMConfig
	}{
		{"testdata/config-llm-mtp-eagle.yaml", LLMConfig{
			TokensPerBlock: 64, TokensPerBlockSet: true, EnableAttentionDP: true, TensorParallelSize: 8,
			DecodingType: "MTP", DraftKind: DraftMTPEagle, OneModel: true, MaxDraftLen: 3, Lookahead: 1,
			MooncakeStore: map[string]any{"async_load": true, "stats_interval": 30, "local_reuse_backoff": "align", "soft_pin_ttl_ms": 600000},
		}},
		{"testdata/config-llm-mtp-vanilla.yaml", LLMConfig{
			TokensPerBlock: 32, TokensPerBlockSet: true, DecodingType: "MTP", DraftKind: DraftMTP, OneModel: true, MaxDraftLen: 3, Lookahead: 3,
		}},
		{"testdata/config-llm-eagle3.yaml", LLMConfig{
			TokensPerBlock: 32, DecodingType: "Eagle3", DraftKind: DraftEagle3, OneModel: true, MaxDraftLen: 4, Lookahead: 1,
		}},
		{"testdata/config-llm-plain.yaml", LLMConfig{TokensPerBlock: 32}},
	}
	for _, tt := range tests {
		got, err := LoadLLMConfig(tt.file)
		if err != nil {
			t.Errorf("LoadLLMConfig(%s): %v", tt.file, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("LoadLLMConfig(%s) (-want +got):\n%s", tt.file, diff)
		}
	}
}

func TestParseLLMConfigDrafts(t *testing.T) {
	tests := []struct {
		yaml      string
		kind      string
		lookahead int
	}{
		{"speculative_config: {decoding_type: MTP}", DraftMTPEagle, 1},
		{"speculative_config: {decoding_type: MTP, max_draft_len: 2, mtp_eagle_one_model: false}", DraftMTPEagle, 0},
		{"speculative_config: {decoding_type: MTP, use_mtp_vanilla: true, max_draft_len: 2}", DraftMTP, 2},
		{"speculative_config: {decoding_type: MTP, use_mtp_vanilla: true}", DraftMTP, 1},
		{"speculative_config: {decoding_type: Eagle, max_draft_len: 3, eagle3_one_model: true}", DraftEagle3, 1},
		{"speculative_config: {decoding_type: Eagle3, max_draft_len: 3, eagle3_one_model: false}", DraftEagle3, 0},
		{"speculative_config: {decoding_type: NGram, max_draft_len: 4}", DraftNone, 0},
		{"speculative_config: {decoding_type: Draft_Target, max_draft_len: 4}", DraftNone, 0},
		{"", DraftNone, 0},
	}
	for _, tt := range tests {
		got, err := ParseLLMConfig([]byte(tt.yaml))
		if err != nil || got.DraftKind != tt.kind || got.Lookahead != tt.lookahead {
			t.Errorf("ParseLLMConfig(%q) = kind %q, lookahead %d, %v, want %q, %d", tt.yaml, got.DraftKind, got.Lookahead, err, tt.kind, tt.lookahead)
		}
	}
}

func TestLoadLLMConfigErrors(t *testing.T) {
	_, err := LoadLLMConfig("testdata/config-llm-bad.yaml")
	if err == nil || !strings.Contains(err.Error(), `"testdata/config-llm-bad.yaml"`) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("LoadLLMConfig(bad) error = %v, want the file and line", err)
	}
	tests := []struct{ yaml, want string }{
		{"kv_cache_config: {tokens_per_block: 0}", "tokens_per_block must be positive"},
		{"tensor_parallel_size: -1", "tensor_parallel_size must not be negative"},
		{"speculative_config: {max_draft_len: 3}", "speculative_config: decoding_type is missing"},
		{"speculative_config: {decoding_type: MTP, max_draft_len: -1}", "max_draft_len must not be negative"},
		{"speculative_config: {decoding_type: MTP, use_mtp_vanilla: true, mtp_eagle_one_model: true}", "cannot both be enabled"},
		{"enable_attention_dp: maybe", "cannot unmarshal"},
		{"[1, 2]", "cannot unmarshal"},
	}
	for _, tt := range tests {
		_, err := ParseLLMConfig([]byte(tt.yaml))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseLLMConfig(%q) error = %v, want %q", tt.yaml, err, tt.want)
		}
	}
	path := filepath.Join(t.TempDir(), "missing.yaml")
	if _, err := LoadLLMConfig(path); err == nil || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("LoadLLMConfig(missing) error = %v, want not-exist", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestPromptLookahead(t *testing.T) {
	tests := []struct {
		kind     string
		draftLen int
		oneModel bool
		want     int
	}{
		{DraftMTP, 3, true, 3},
		{DraftMTPEagle, 3, true, 1},
		{DraftEagle3, 4, true, 1},
		{DraftEagle3, 4, false, 0},
		{DraftNone, 4, true, 0},
	}
	for _, tt := range tests {
		if got := PromptLookahead(tt.kind, tt.draftLen, tt.oneModel); got != tt.want {
			t.Errorf("PromptLookahead(%q, %d, %v) = %d, want %d", tt.kind, tt.draftLen, tt.oneModel, got, tt.want)
		}
	}
}

func TestCheckRole(t *testing.T) {
	for _, role := range Roles {
		if err := CheckRole(role); err != nil {
			t.Errorf("CheckRole(%q) = %v, want nil", role, err)
		}
	}
	for _, role := range []string{"", "reader", "Both"} {
		if err := CheckRole(role); !errors.Is(err, ErrBadConfig) {
			t.Errorf("CheckRole(%q) = %v, want ErrBadConfig", role, err)
		}
	}
}

// TestParseMooncakeConfigWithoutMaster: the keys need only namespace and
// model_key; kvctl names a master with a pool URL, not this file.
func TestParseMooncakeConfigWithoutMaster(t *testing.T) {
	got, err := ParseMooncakeConfig([]byte(`{"namespace": "ns", "model_key": "m"}`))
	if err != nil || got.Namespace != "ns" || got.ModelKey != "m" {
		t.Errorf("ParseMooncakeConfig(namespace and model_key only) = %+v, %v, want them read and no error", got, err)
	}
}
