package connector

import (
	"fmt"
	"slices"

	"go.yaml.in/yaml/v3"
)

// llmFields are the keys kvctl reads from an extra LLM-API YAML, by the
// path of the mapping that holds them ("" for the top level).
var llmFields = map[string][]string{
	"":                    {"kv_cache_config", "enable_attention_dp", "tensor_parallel_size", "speculative_config", "kv_connector_config"},
	"kv_cache_config":     {"tokens_per_block"},
	"speculative_config":  {"decoding_type", "max_draft_len", "num_nextn_predict_layers", "use_mtp_vanilla", "mtp_eagle_one_model", "eagle3_one_model"},
	"kv_connector_config": {"mooncake_store"},
}

// maxTypoDistance is how many edits from a field kvctl reads a key may be
// to count as a misspelling of it.
const maxTypoDistance = 2

// llmTypos names the keys of the mappings kvctl reads that are not fields
// it reads but are a few edits from one: likely misspellings that would
// otherwise leave a default in place without a word. Other keys, which
// TensorRT-LLM reads and kvctl does not, pass.
func llmTypos(root *yaml.Node) []string {
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	var out []string
	out = append(out, mappingTypos(root, "")...)
	for k, v := range mappingPairs(root) {
		if _, ok := llmFields[k.Value]; ok {
			out = append(out, mappingTypos(v, k.Value)...)
		}
	}
	return out
}

// mappingTypos checks one mapping's keys against llmFields[path].
func mappingTypos(m *yaml.Node, path string) []string {
	var out []string
	known := llmFields[path]
	for k := range mappingPairs(m) {
		if slices.Contains(known, k.Value) {
			continue
		}
		for _, want := range known {
			if editDistance(k.Value, want) <= maxTypoDistance {
				out = append(out, fmt.Sprintf("line %d: %s is not a field kvctl reads; did you mean %s? (it is ignored)",
					k.Line, dotted(path, k.Value), dotted(path, want)))
				break
			}
		}
	}
	return out
}

// mappingPairs yields a mapping node's keys and values (nothing for
// another kind of node).
func mappingPairs(m *yaml.Node) func(yield func(k, v *yaml.Node) bool) {
	return func(yield func(k, v *yaml.Node) bool) {
		if m == nil || m.Kind != yaml.MappingNode {
			return
		}
		for i := 0; i+1 < len(m.Content); i += 2 {
			if !yield(m.Content[i], m.Content[i+1]) {
				return
			}
		}
	}
}

func dotted(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
