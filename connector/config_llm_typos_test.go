package connector

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseLLMConfigWarnsOfTypos(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		{"tokens_per_blok", "max_batch_size: 8\nkv_cache_config:\n  free_gpu_memory_fraction: 0.9\n  tokens_per_blok: 16\n",
			[]string{"line 4: kv_cache_config.tokens_per_blok is not a field kvctl reads; did you mean kv_cache_config.tokens_per_block? (it is ignored)"}},
		{"top level", "tensor_paralel_size: 4\n",
			[]string{"line 1: tensor_paralel_size is not a field kvctl reads; did you mean tensor_parallel_size? (it is ignored)"}},
		{"speculative", "speculative_config:\n  decoding_type: MTP\n  max_draft_lne: 2\n",
			[]string{"line 3: speculative_config.max_draft_lne is not a field kvctl reads; did you mean speculative_config.max_draft_len? (it is ignored)"}},
		{"other TensorRT-LLM keys", "max_batch_size: 8\nkv_cache_config:\n  enable_block_reuse: true\n  tokens_per_block: 16\n", nil},
		{"empty", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseLLMConfig([]byte(tt.yaml))
			if err != nil {
				t.Fatalf("ParseLLMConfig(%q) = %v", tt.yaml, err)
			}
			if diff := cmp.Diff(tt.want, c.Warnings); diff != "" {
				t.Errorf("ParseLLMConfig(%q).Warnings (-want +got):\n%s", tt.yaml, diff)
			}
		})
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"tokens_per_block", "tokens_per_blok", 1},
		{"", "abc", 3},
		{"kitten", "sitting", 3},
		{"same", "same", 0},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
