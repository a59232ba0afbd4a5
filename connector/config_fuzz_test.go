package connector

import (
	"os"
	"path/filepath"
	"testing"
)

func addConfigSeeds(f *testing.F, pattern string) {
	files, _ := filepath.Glob(pattern)
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
}

// FuzzParseMooncakeConfig checks that whatever is accepted is valid.
func FuzzParseMooncakeConfig(f *testing.F) {
	addConfigSeeds(f, "testdata/config-mooncake-*.json")
	f.Add([]byte(`{"master_server_address": "m", "namespace": "", "cache_prefix": null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseMooncakeConfig(data)
		if err != nil {
			return
		}
		if verr := c.Validate(); verr != nil {
			t.Fatalf("ParseMooncakeConfig(%q) accepted an invalid config: %v", data, verr)
		}
		if c.GlobalSegmentSize < 0 || c.StagingBufferBytes <= 0 {
			t.Fatalf("ParseMooncakeConfig(%q) = sizes %d, %d", data, c.GlobalSegmentSize, c.StagingBufferBytes)
		}
	})
}

// FuzzParseLLMConfig checks the invariants of an accepted LLM config.
func FuzzParseLLMConfig(f *testing.F) {
	addConfigSeeds(f, "testdata/config-llm-*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseLLMConfig(data)
		if err != nil {
			return
		}
		if c.TokensPerBlock <= 0 || c.Lookahead < 0 || c.Lookahead != PromptLookahead(c.DraftKind, c.MaxDraftLen, c.OneModel) {
			t.Fatalf("ParseLLMConfig(%q) = %+v", data, c)
		}
	})
}
