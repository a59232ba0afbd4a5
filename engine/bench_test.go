package engine

import (
	"context"
	"testing"

	"github.com/kvctl/kvctl/workload"
)

// BenchmarkReplay replays a synthetic multi-turn workload (about 1.2M
// prompt tokens) with verification, reporting prompt tokens per second.
// The full-trace figures (wall time, RSS) are measured with a throwaway
// main over the Mooncake trace: see the package documentation.
func BenchmarkReplay(b *testing.B) {
	src := workload.Conversations{Conversations: 100, Turns: 6, System: 1024, User: 256, Output: 64,
		SystemPrompts: 4, IntervalMS: 200, ThinkMS: 5000, Vocab: 32000}
	var tokens int64
	for b.Loop() {
		clk := NewClock()
		p, err := newMemPool(clk, 1<<30)
		if err != nil {
			b.Fatal(err)
		}
		rep, err := Run(context.Background(), Config{Pool: p, Clock: clk, Verify: true}, src, nil)
		if err != nil || rep.VerifyMismatches != 0 {
			b.Fatalf("Run: %v, %d mismatches", err, rep.VerifyMismatches)
		}
		tokens += rep.PromptTokens
		p.Close()
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "prompt-tokens/s")
}
