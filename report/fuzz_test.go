package report

import (
	"io"
	"testing"

	"github.com/kvctl/kvctl/chart"
)

// FuzzReadServe reads serve outputs: one that Read takes draws without a
// panic, and its latency distributions rise from 0 to 1.
// The seeds are small: the fuzzer minimizes inputs by drawing them
// again and again.
func FuzzReadServe(f *testing.F) {
	head := `{"kvctl": {"command": "serve", "version": "v0", "format": 1}, `
	f.Add([]byte(head + `"ttft_ms": {"p50": 20, "p90": 40, "p99": 90}, "itl_ms": {"p50": 2, "p90": 2.2, "p99": 2.4},
		"load": {"op": "load", "phases": {"get": {"wall_ms": 3}, "sync": {"wall_ms": 1}}},
		"timeline": [{"at_ms": 1000, "prompt_tokens": 10, "hit_tokens": 4, "hit_rate": 0.4, "pool_used_bytes": 5, "pool_capacity_bytes": 10},
			{"at_ms": 2000, "hit_rate": 0, "pool_used_bytes": 7, "pool_capacity_bytes": 10}],
		"ttft_histogram": {"buckets_per_decade": 100, "first": 130, "counts": [1, 0, 0, 2, 5]},
		"itl_histogram": {"buckets_per_decade": 100, "first": 30, "counts": [7]}}`))
	f.Add([]byte(head + `"ttft_histogram": {"buckets_per_decade": 100, "first": -300, "counts": [1, 0, 3]}}`))
	f.Add([]byte(head + `"timeline": [{"at_ms": 1, "hit_rate": 2, "pool_used_bytes": 5, "pool_capacity_bytes": 1}]}`))
	f.Add([]byte(head + `"ttft_ms": {"p50": 1, "p90": 0, "p99": -1}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Read("fuzz.json", data)
		if err != nil || in.Kind != Serve {
			return
		}
		if h := in.serve.TTFTHistogram; h != nil && h.Total() > 0 {
			if d := latency("TTFT", h, in.serve.TTFTMS); !rising(d.Quantiles) {
				t.Errorf("the TTFT histogram of %q draws %v, want shares rising from 0 to 1", data, d.Quantiles)
			}
		}
		charts, err := in.Charts()
		if err != nil {
			return
		}
		for _, c := range charts {
			_ = c.InlineSVG(io.Discard)
		}
	})
}

// rising reports whether qs climb in both time and share, from 0 to 1.
func rising(qs []chart.Quantile) bool {
	if len(qs) == 0 {
		return true
	}
	for i := 1; i < len(qs); i++ {
		if qs[i].MS < qs[i-1].MS || qs[i].P < qs[i-1].P {
			return false
		}
	}
	return qs[0].P == 0 && qs[len(qs)-1].P == 1
}
