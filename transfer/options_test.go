package transfer

import (
	"runtime"
	"testing"
)

// TestParallelDefaults checks the crew sizes a loader, saver or async
// worker gets without Options.Parallel: staged, the cores but one from
// five cores up for loads, but two from eight up for saves; direct, three
// quarters of them, all of up to three; each of several async workers an
// even share of all the cores (staged) or of three quarters (direct).
func TestParallelDefaults(t *testing.T) {
	cases := []struct {
		cores, workers int
		direct, save   bool
		want           int
	}{
		{16, 1, false, false, 15},
		{16, 1, false, true, 14},
		{8, 1, false, true, 6},
		{7, 1, false, true, 6},
		{16, 1, true, true, 12},
		{16, 1, true, false, 12},
		{16, 4, false, false, 4},
		{16, 3, false, false, 5},
		{5, 1, false, false, 4},
		{4, 1, false, false, 4},
		{2, 1, false, false, 2},
		{16, 4, true, false, 3},
		{2, 1, true, false, 2},
		{3, 1, true, false, 3},
		{4, 1, true, false, 3},
		{2, 4, true, false, 1},
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range cases {
		runtime.GOMAXPROCS(c.cores)
		if got := (Options{Direct: c.direct}).parallelFor(c.workers, c.save); got != c.want {
			t.Errorf("%d cores, %d workers, direct %v, save %v: %d threads, want %d", c.cores, c.workers, c.direct, c.save, got, c.want)
		}
	}
	runtime.GOMAXPROCS(16)
	if got := (Options{Parallel: 5, Direct: true}).parallelFor(4, true); got != 5 {
		t.Errorf("Parallel 5: %d threads a worker, want 5", got)
	}
}
