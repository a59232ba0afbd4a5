package keys

import "testing"

// BenchmarkEngineBlocks hashes a 32,768-token prompt under each engine
// (vLLM at block size 16, the others at their usual sizes), the blocks'
// hash strings included; compare its tokens/s with BenchmarkChain's, the
// TensorRT-LLM path (docs/benchmarks.md: every engine within 2x).
func BenchmarkEngineBlocks(b *testing.B) {
	seed := "0"
	tokens := make([]int64, 32768)
	for i := range tokens {
		tokens[i] = int64(i*7919) % 128000
	}
	for _, bc := range []struct {
		name string
		s    Settings
	}{
		{"vllm-sha256", vllmSettings("sha256", seed, 16)},
		{"vllm-sha256_cbor", vllmSettings("sha256_cbor", seed, 16)},
		{"vllm-xxhash", vllmSettings("xxhash", seed, 16)},
		{"lmcache-sha256", Settings{Engine: EngineLMCache, Engines: EngineOptions{HashSeed: &seed}, Layout: Layout{TokensPerBlock: 16}}},
		{"sglang", Settings{Engine: EngineSGLang, Layout: Layout{TokensPerBlock: 64}}},
		{"dynamo", Settings{Engine: EngineDynamo, Layout: Layout{TokensPerBlock: 16}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tokens)) * 8)
			for b.Loop() {
				if _, err := bc.s.EngineBlocks(Scope{}, tokens); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(len(tokens))/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
