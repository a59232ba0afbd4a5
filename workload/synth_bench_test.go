package workload

import (
	"os"
	"testing"
)

// BenchmarkSynthesize measures token synthesis over the trace excerpt.
func BenchmarkSynthesize(b *testing.B) {
	recs := readHead(b)
	var s Synthesizer
	var buf []int64
	tokens := int64(0)
	for b.Loop() {
		for _, rec := range recs {
			buf, _ = s.AppendTokens(buf[:0], rec)
			tokens += int64(len(buf))
		}
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkChainSeeds measures block-level synthesis: one seed a block.
func BenchmarkChainSeeds(b *testing.B) {
	recs := readHead(b)
	var s Synthesizer
	var seeds []uint64
	blocks := 0
	for b.Loop() {
		for _, rec := range recs {
			seeds = s.ChainSeeds(seeds[:0], rec.HashIDs)
			blocks += len(seeds)
		}
	}
	b.ReportMetric(float64(blocks)/b.Elapsed().Seconds(), "blocks/s")
}

// BenchmarkConversations measures the synthetic multi-turn generator.
func BenchmarkConversations(b *testing.B) {
	c := DefaultConversations()
	tokens := int64(0)
	for b.Loop() {
		_ = c.Each(func(req Request) error {
			tokens += int64(len(req.Tokens))
			return nil
		})
	}
	b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
}

// BenchmarkFullTrace streams the trace named by $KVCTL_TRACE (the full
// Mooncake conversation trace) through the Source with token synthesis,
// and reports its ideal prefix reuse at 32 tokens a block.
func BenchmarkFullTrace(b *testing.B) {
	path := os.Getenv("KVCTL_TRACE")
	if path == "" {
		b.Skip("set KVCTL_TRACE to a Mooncake trace")
	}
	src, err := Open(path, FormatAuto)
	if err != nil {
		b.Fatal(err)
	}
	src.ReuseTokens = true
	b.Run("synthesize", func(b *testing.B) {
		tokens := int64(0)
		for b.Loop() {
			if err := src.Each(func(req Request) error { tokens += int64(len(req.Tokens)); return nil }); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(tokens)/b.Elapsed().Seconds(), "tokens/s")
	})
	b.Run("reuse32", func(b *testing.B) {
		var r Reuse
		for b.Loop() {
			if r, err = IdealPrefixReuse(src, 32); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(r.Fraction, "ideal-reuse")
		b.ReportMetric(float64(r.PromptTokens), "prompt-tokens")
	})
}
