package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeFigure reads serve's JSON with its series and from before it
// had them: both draw, the older through its percentiles and without a
// timeline.
func TestServeFigure(t *testing.T) {
	tests := []struct {
		file      string
		want, not []string
	}{
		{filepath.Join("..", "chart", "testdata", "serve.json"),
			[]string{"Pool over the replay", "TTFT", "ITL", "Pool loads: where the time went"}, []string{"through p50"}},
		{filepath.Join("testdata", "serve_no_series.json"),
			[]string{"TTFT (through p50, p90, p99)", "ITL (through p50, p90, p99)", "Pool loads: where the time went"}, []string{"Pool over the replay"}},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(tt.file)
		if err != nil {
			t.Fatal(err)
		}
		in, err := Read(tt.file, b)
		if err != nil {
			t.Fatalf("Read(%s) = %v", tt.file, err)
		}
		charts, err := in.Charts()
		if err != nil || len(charts) != 1 {
			t.Fatalf("Read(%s).Charts() = %d figures, %v; want 1", tt.file, len(charts), err)
		}
		var svg strings.Builder
		if err := charts[0].InlineSVG(&svg); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(svg.String(), ">"+w+"<") {
				t.Errorf("%s: the figure has no text %q", tt.file, w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(svg.String(), n) {
				t.Errorf("%s: the figure has %q", tt.file, n)
			}
		}
	}
}
