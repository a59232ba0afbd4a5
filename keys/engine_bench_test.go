package keys

import (
	"context"
	"testing"
)

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

// BenchmarkEngineRequests hashes 256 prompts of 2,048 tokens under an
// engine one after another (serial, how kvctl keys hashed them before)
// and on HashEngineRequests' pipeline over the cores (pipeline), the path
// TensorRT-LLM's requests take (docs/benchmarks.md).
func BenchmarkEngineRequests(b *testing.B) {
	seed := "0"
	reqs := make([]Request, 256)
	for i := range reqs {
		reqs[i].Tokens = make([]int64, 2048)
		for j := range reqs[i].Tokens {
			reqs[i].Tokens[j] = int64((i+1)*(j+7919)) % 128000
		}
	}
	source := func(yield func(Request) error) error {
		for _, r := range reqs {
			if err := yield(r); err != nil {
				return err
			}
		}
		return nil
	}
	each := func(_ Request, blocks []EngineBlock) int { return len(blocks) }
	for _, bc := range []struct {
		name string
		s    Settings
	}{
		{"vllm-sha256", vllmSettings("sha256", seed, 16)},
		{"sglang", Settings{Engine: EngineSGLang, Layout: Layout{TokensPerBlock: 64}}},
	} {
		bc.s = engineSettings(bc.s)
		b.Run(bc.name+"/serial", func(b *testing.B) {
			for b.Loop() {
				for _, r := range reqs {
					if _, err := bc.s.EngineBlocks(r.Scope, r.Tokens); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.N)*float64(len(reqs)*2048)/b.Elapsed().Seconds(), "tokens/s")
		})
		b.Run(bc.name+"/pipeline", func(b *testing.B) {
			for b.Loop() {
				if err := HashEngineRequests(context.Background(), bc.s, 0, source, each, func(int) error { return nil }); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)*float64(len(reqs)*2048)/b.Elapsed().Seconds(), "tokens/s")
		})
	}
}
