package connector

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultTokensPerBlock is TensorRT-LLM's kv_cache_config.tokens_per_block
// when the YAML does not set it.
const DefaultTokensPerBlock = 32

// The draft kinds whose prompt lookahead is known (LLMConfig.DraftKind).
const (
	DraftNone     = ""
	DraftMTP      = "mtp"       // vanilla MTP: one module per draft token
	DraftMTPEagle = "mtp-eagle" // MTP-Eagle: one MTP module run repeatedly
	DraftEagle3   = "eagle3"
)

// LLMConfig is what kvctl takes from a TensorRT-LLM extra LLM-API YAML
// (trtllm-serve --config / --extra_llm_api_options).
type LLMConfig struct {
	// TokensPerBlock is kv_cache_config.tokens_per_block (default 32).
	TokensPerBlock int
	// TokensPerBlockSet says the YAML set tokens_per_block itself.
	TokensPerBlockSet bool
	// EnableAttentionDP is enable_attention_dp.
	EnableAttentionDP bool
	// TensorParallelSize is tensor_parallel_size, 0 when absent.
	TensorParallelSize int
	// DecodingType is speculative_config.decoding_type as written.
	DecodingType string
	// DraftKind is DraftMTP, DraftMTPEagle, DraftEagle3 or DraftNone (no
	// speculative_config, or a decoding type without prompt lookahead).
	DraftKind string
	// OneModel says the draft runs inside the target model's engine
	// (mtp_eagle_one_model, eagle3_one_model; vanilla MTP always does).
	OneModel bool
	// MaxDraftLen is max_draft_len, or num_nextn_predict_layers for MTP.
	MaxDraftLen int
	// Lookahead is the prompt lookahead the keys use: PromptLookahead.
	Lookahead int
	// MooncakeStore holds kv_connector_config.mooncake_store as written.
	MooncakeStore map[string]any
	// Warnings name keys that look like misspellings of the fields read
	// (kv_cache_config.tokens_per_blok), with their lines: they are
	// ignored, and the field keeps its default.
	Warnings []string
}

type llmYAML struct {
	KVCacheConfig struct {
		TokensPerBlock *int `yaml:"tokens_per_block"`
	} `yaml:"kv_cache_config"`
	EnableAttentionDP  bool      `yaml:"enable_attention_dp"`
	TensorParallelSize int       `yaml:"tensor_parallel_size"`
	SpeculativeConfig  *specYAML `yaml:"speculative_config"`
	KVConnectorConfig  struct {
		MooncakeStore map[string]any `yaml:"mooncake_store"`
	} `yaml:"kv_connector_config"`
}

type specYAML struct {
	DecodingType          string `yaml:"decoding_type"`
	MaxDraftLen           *int   `yaml:"max_draft_len"`
	NumNextnPredictLayers *int   `yaml:"num_nextn_predict_layers"`
	UseMTPVanilla         bool   `yaml:"use_mtp_vanilla"`
	MTPEagleOneModel      *bool  `yaml:"mtp_eagle_one_model"`
	Eagle3OneModel        *bool  `yaml:"eagle3_one_model"`
}

// LoadLLMConfig reads a TensorRT-LLM extra LLM-API YAML file: tokens per
// block, attention DP, TP size, the speculative config (for the prompt
// lookahead) and kv_connector_config.mooncake_store. Other keys are
// ignored; the keys read are type-checked, and a key a few letters from
// one of them is named in Warnings.
func LoadLLMConfig(path string) (LLMConfig, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return LLMConfig{}, fmt.Errorf("reading LLM config: %w", err)
	}
	c, err := ParseLLMConfig(data)
	if err != nil {
		return c, fmt.Errorf("reading LLM config %q: %w", path, err)
	}
	return c, nil
}

// ParseLLMConfig parses the contents of an extra LLM-API YAML file, as
// LoadLLMConfig does.
func ParseLLMConfig(data []byte) (LLMConfig, error) {
	var (
		root yaml.Node
		y    llmYAML
	)
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&root); err != nil && !errors.Is(err, io.EOF) {
		return LLMConfig{}, err
	}
	if err := root.Decode(&y); err != nil && root.Kind != 0 {
		return LLMConfig{}, err
	}
	c := LLMConfig{
		TokensPerBlock:     DefaultTokensPerBlock,
		EnableAttentionDP:  y.EnableAttentionDP,
		TensorParallelSize: y.TensorParallelSize,
		MooncakeStore:      y.KVConnectorConfig.MooncakeStore,
		Warnings:           llmTypos(&root),
	}
	if t := y.KVCacheConfig.TokensPerBlock; t != nil {
		if *t <= 0 {
			return c, fmt.Errorf("kv_cache_config.tokens_per_block must be positive, got %d", *t)
		}
		c.TokensPerBlock, c.TokensPerBlockSet = *t, true
	}
	if y.TensorParallelSize < 0 {
		return c, fmt.Errorf("tensor_parallel_size must not be negative, got %d", y.TensorParallelSize)
	}
	if y.SpeculativeConfig != nil {
		if err := c.setDraft(*y.SpeculativeConfig); err != nil {
			return c, fmt.Errorf("speculative_config: %w", err)
		}
	}
	return c, nil
}

// setDraft reads the draft kind and length from speculative_config.
func (c *LLMConfig) setDraft(s specYAML) error {
	c.DecodingType = s.DecodingType
	for name, v := range map[string]*int{"max_draft_len": s.MaxDraftLen, "num_nextn_predict_layers": s.NumNextnPredictLayers} {
		if v != nil && *v < 0 {
			return fmt.Errorf("%s must not be negative, got %d", name, *v)
		}
	}
	if s.MaxDraftLen != nil {
		c.MaxDraftLen = *s.MaxDraftLen
	}
	switch strings.ToLower(strings.TrimSpace(s.DecodingType)) {
	case "mtp":
		if s.MaxDraftLen == nil {
			c.MaxDraftLen = 1
			if s.NumNextnPredictLayers != nil {
				c.MaxDraftLen = *s.NumNextnPredictLayers
			}
		}
		switch {
		case s.UseMTPVanilla && s.MTPEagleOneModel != nil && *s.MTPEagleOneModel:
			return errors.New("mtp_eagle_one_model and use_mtp_vanilla cannot both be enabled")
		case s.UseMTPVanilla:
			c.DraftKind, c.OneModel = DraftMTP, true
		default:
			c.DraftKind, c.OneModel = DraftMTPEagle, s.MTPEagleOneModel == nil || *s.MTPEagleOneModel
		}
	case "eagle3", "eagle":
		c.DraftKind, c.OneModel = DraftEagle3, s.Eagle3OneModel == nil || *s.Eagle3OneModel
	case "":
		return errors.New("decoding_type is missing")
	}
	c.Lookahead = PromptLookahead(c.DraftKind, c.MaxDraftLen, c.OneModel)
	return nil
}

// PromptLookahead returns the prompt lookahead L a draft adds to block keys
// (spec/keys.md): a one-model draft's prefill reads L tokens past each
// block, so a block is keyed with them. Vanilla MTP (DraftMTP) looks ahead
// maxDraftLen tokens; MTP-Eagle and EAGLE3 one token. Two-model drafts and
// every other kind add none.
func PromptLookahead(draftKind string, maxDraftLen int, oneModel bool) int {
	if !oneModel {
		return 0
	}
	switch draftKind {
	case DraftMTP:
		return max(0, maxDraftLen)
	case DraftMTPEagle, DraftEagle3:
		return 1
	}
	return 0
}
