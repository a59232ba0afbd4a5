package report

import (
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sweepHead = `{"kvctl": {"command": "serve", "version": "v0", "format": 1}, `

// TestServeSweepSection reads a sweep with a burst: a row per capacity,
// the burst in a table of its own, the costs in the title, one figure.
func TestServeSweepSection(t *testing.T) {
	data := sweepHead + `"model": "llama-3-70b", "costs": {"iteration_ms": 15, "prefill_ms_per_token": 0.18, "decode_ms_per_request": 0.14, "pool_link_gbps": 25},
		"runs": [{"capacity_bytes": 1099511627776, "capacity_blocks": 104857, "hit_rate": 0.14, "evicted_keys": 9, "ttft_ms": {"p50": 500, "p99": 3000},
			"recent_misses": 4, "torn_misses": 1, "whole_misses": 3,
			"bursts": [{"start_ms": 20000, "end_ms": 30000, "windows": 1, "recent_misses": 3, "torn_misses": 1, "whole_misses": 2,
				"evicted_keys": 7, "ttft_p99_ms": 3100, "cause": "capacity eviction"}], "report": {"requests": 3}},
			{"capacity_bytes": 2199023255552, "hit_rate": 0.2, "bursts": []}]}`
	in, err := Read("sweep.json", []byte(data))
	if err != nil {
		t.Fatalf("Read(sweep) = %v", err)
	}
	s, err := newSection(in)
	if err != nil {
		t.Fatalf("newSection(sweep) = %v", err)
	}
	if len(s.Figures) != 1 || len(s.Tables) != 2 {
		t.Fatalf("newSection(sweep) = %d figures and %d tables, want 1 and 2", len(s.Figures), len(s.Tables))
	}
	if title := s.Tables[0].Title; !strings.Contains(title, "llama-3-70b costs: 15 ms a step, 0.18 ms a prefill token") {
		t.Errorf("the capacities' title = %q, want the model's costs", title)
	}
	want := [][]string{
		{"1.0 TiB", "104857", "14.0%", "0", "0", "9", "500 / 3000", "4 (1 / 3)", "1"},
		{"2.0 TiB", "0", "20.0%", "0", "0", "0", "0 / 0", "0 (0 / 0)", "0"},
	}
	if diff := cmp.Diff(want, s.Tables[0].Rows); diff != "" {
		t.Errorf("the capacities' rows (-want +got):\n%s", diff)
	}
	wantBursts := [][]string{{"1.0 TiB", "20-30", "3 (1 / 2)", "7", "3100", "capacity eviction"}}
	if diff := cmp.Diff(wantBursts, s.Tables[1].Rows); diff != "" {
		t.Errorf("the bursts' rows (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(s.Figures[0]), ">capacity with bursts<") {
		t.Error("the figure does not mark the capacity with bursts")
	}
}

func TestReadServeSweepErrors(t *testing.T) {
	tests := []struct {
		runs, want string
	}{
		{`[{"capacity_bytes": 0}]`, "run 0: capacity 0 bytes, want above 0"},
		{`[{"capacity_bytes": 1, "ttft_ms": {"p50": -1}}]`, "run 0: ttft_ms p50 -1, p99 0, want 0 to 1e+12"},
		{`[{"capacity_bytes": 1, "evicted_keys": -5}]`, "run 0: a negative count"},
	}
	for _, tt := range tests {
		_, err := Read("s.json", []byte(sweepHead+`"runs": `+tt.runs+`}`))
		if want := "s.json: output of kvctl v0 serve: " + tt.want; err == nil || err.Error() != want {
			t.Errorf("Read(runs %s) = %v, want %q", tt.runs, err, want)
		}
	}
}

// FuzzReadServeSweep reads serve --sweep outputs: one that Read takes
// draws without a panic.
func FuzzReadServeSweep(f *testing.F) {
	f.Add([]byte(sweepHead + `"runs": [{"capacity_bytes": 1024, "hit_rate": 0.5, "ttft_ms": {"p50": 1, "p99": 2},
		"evicted_keys": 3, "recent_misses": 4, "bursts": [{"start_ms": 0, "end_ms": 10000}]}]}`))
	f.Add([]byte(sweepHead + `"runs": [{"capacity_bytes": 1, "hit_rate": 0}, {"capacity_bytes": 1, "hit_rate": 1}]}`))
	f.Add([]byte(sweepHead + `"runs": []}`))
	f.Add([]byte(sweepHead + `"runs": [{"capacity_bytes": 9223372036854775807, "ttft_ms": {"p99": 1e12}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, err := Read("fuzz.json", data)
		if err != nil || in.Kind != ServeSweep {
			return
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
