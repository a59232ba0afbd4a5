package engine

import (
	"testing"
	"time"
)

func TestReportSeries(t *testing.T) {
	cfg, _ := testConfig(t)
	cfg.StatsInterval = 200 * time.Millisecond
	rep := runOK(t, cfg, testWorkload)
	tl := rep.Timeline
	if len(tl) < 2 {
		t.Fatalf("Timeline has %d samples over %.0f modelled ms, want one every 200 ms", len(tl), rep.DurationMS)
	}
	var prompt, hit int64
	for i, s := range tl {
		prompt, hit = prompt+s.PromptTokens, hit+s.HitTokens
		if s.PoolCapacityBytes != 64<<20 || s.PoolUsedBytes > s.PoolCapacityBytes {
			t.Errorf("sample %d: pool %d of %d bytes, want at most the 64 MiB pool", i, s.PoolUsedBytes, s.PoolCapacityBytes)
		}
		if i > 0 && i < len(tl)-1 && s.AtMS-tl[i-1].AtMS < 200 { // the last is the end of the replay
			t.Errorf("sample %d at %.1f ms, %.1f ms after the last, want 200 or more", i, s.AtMS, s.AtMS-tl[i-1].AtMS)
		}
	}
	if h := rep.PrefixHoles; prompt != h.PromptTokens || hit != h.HitTokens {
		t.Errorf("Timeline adds up to %d prompt, %d hit tokens; want the report's %d and %d", prompt, hit, h.PromptTokens, h.HitTokens)
	}
	if last := tl[len(tl)-1]; last.PoolUsedBytes != rep.Pool.UsedBytes {
		t.Errorf("last sample's pool used %d bytes, want the report's %d", last.PoolUsedBytes, rep.Pool.UsedBytes)
	}
	if n := rep.TTFTHistogram.Total(); n != rep.Completed {
		t.Errorf("TTFTHistogram counts %d, want a sample per completed request, %d", n, rep.Completed)
	}
	if want := rep.OutputTokens - rep.Completed; rep.ITLHistogram.Total() != want {
		t.Errorf("ITLHistogram counts %d, want a sample per token after the first, %d", rep.ITLHistogram.Total(), want)
	}
	if p50, q := rep.TTFTMS.P50, rep.TTFTHistogram.Quantile(0.5); q < p50 || q > p50*1.024 {
		t.Errorf("TTFTHistogram.Quantile(0.5) = %v, want within a bucket above p50 %v", q, p50)
	}
}
