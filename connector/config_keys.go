package connector

import "github.com/kvctl/kvctl/keys"

// ApplyKeys sets on s what the Mooncake client JSON says about page keys:
// the namespace and the model key. Everything else in s is left as it is.
func (c MooncakeConfig) ApplyKeys(s *keys.Settings) {
	s.Namespace.Name, s.Namespace.ModelKey = c.Namespace, c.ModelKey
}

// ApplyKeys sets on s what the LLM-API YAML says about page keys: tokens
// per block (TensorRT-LLM's default when the YAML leaves it out), the
// prompt lookahead of its draft and, with enable_attention_dp, the shards:
// every attention-DP owner keys its pages w1r0, whatever the TP size.
// Layer groups, namespace, scheme and scope are left as they are.
func (c LLMConfig) ApplyKeys(s *keys.Settings) {
	s.Layout.TokensPerBlock = c.TokensPerBlock
	s.Lookahead = c.Lookahead
	if c.EnableAttentionDP {
		s.Layout.World, s.Layout.Ranks = 1, []int{0}
	}
}
