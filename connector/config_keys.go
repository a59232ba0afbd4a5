package connector

import "github.com/kvctl/kvctl/keys"

// CachePrefixEnv names the environment variable that overrides the key
// prefix in the builds of schemes trtllm-fork and trtllm-legacy
// (ApplyKeysEnv). The current build does not read it.
const CachePrefixEnv = "TRTLLM_MOONCAKE_STORE_PREFIX"

// ApplyKeys sets on s what the Mooncake client JSON says about page keys,
// as the build of s's scheme reads the file: the model key, and the first
// segment of the keys, which is namespace under scheme trtllm and
// cache_prefix under trtllm-fork and trtllm-legacy (each already holds
// its default when the file leaves it out). Set s.Scheme first; everything
// else in s is left as it is.
func (c MooncakeConfig) ApplyKeys(s *keys.Settings) {
	s.Namespace.Name, s.Namespace.ModelKey = c.Namespace, c.ModelKey
	if readsCachePrefix(s.SeedScheme()) {
		s.Namespace.Name = c.CachePrefix
	}
}

// ApplyKeysEnv applies what the environment says about page keys: under
// schemes trtllm-fork and trtllm-legacy a non-empty CachePrefixEnv
// replaces the key prefix, whatever the client JSON says, as those builds
// apply their environment overrides after reading the file. Under scheme
// trtllm, which reads no such variable, s is left as it is.
func ApplyKeysEnv(s *keys.Settings, getenv func(string) string) {
	if p := getenv(CachePrefixEnv); p != "" && readsCachePrefix(s.SeedScheme()) {
		s.Namespace.Name = p
	}
}

// readsCachePrefix reports the schemes whose builds name the key prefix
// cache_prefix (and CachePrefixEnv) rather than namespace.
func readsCachePrefix(scheme keys.Scheme) bool {
	return scheme == keys.SchemeFork || scheme == keys.SchemeLegacy
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
