package sensitivity

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// steady returns n windows of 10 s with one recent miss (a whole one) and
// 100 evicted keys each: the background a burst stands out from.
func steady(n int) []Window {
	ws := make([]Window, n)
	for i := range ws {
		ws[i] = Window{StartMS: float64(i) * 10_000, Lookups: 20, RecentMisses: 1, WholeMisses: 1, EvictedKeys: 100}
	}
	return ws
}

// with returns steady(10) with window i set to misses recent misses (torn
// of them torn, the rest whole) and evicted keys.
func with(ws []Window, i int, misses, torn, evicted int64) []Window {
	ws[i].RecentMisses, ws[i].TornMisses, ws[i].WholeMisses, ws[i].EvictedKeys = misses, torn, misses-torn, evicted
	return ws
}

func TestDetectBursts(t *testing.T) {
	c := DefaultCriteria()
	tests := []struct {
		name    string
		windows []Window
		want    []Burst
	}{
		{"none in steady misses", steady(10), nil},
		{"no windows", nil, nil},
		{"torn prefixes", with(steady(10), 5, 10, 8, 110), []Burst{
			{StartMS: 50_000, EndMS: 60_000, Windows: 1, RecentMisses: 10, TornMisses: 8, WholeMisses: 2, EvictedKeys: 110, Cause: TornPrefixes},
		}},
		{"capacity eviction", with(steady(10), 5, 10, 2, 110), []Burst{
			{StartMS: 50_000, EndMS: 60_000, Windows: 1, RecentMisses: 10, TornMisses: 2, WholeMisses: 8, EvictedKeys: 110, Cause: CapacityEviction},
		}},
		{"an eviction spike explains the misses", with(steady(10), 5, 10, 8, 250), nil},
		{"a window that evicts nothing can burst", with(steady(10), 5, 10, 8, 0), []Burst{
			{StartMS: 50_000, EndMS: 60_000, Windows: 1, RecentMisses: 10, TornMisses: 8, WholeMisses: 2, Cause: TornPrefixes},
		}},
		{"adjacent windows merge, attributed as a whole", with(with(with(steady(10), 5, 10, 8, 100), 6, 12, 0, 100), 8, 6, 6, 90), []Burst{
			{StartMS: 50_000, EndMS: 70_000, Windows: 2, RecentMisses: 22, TornMisses: 8, WholeMisses: 14, EvictedKeys: 200, Cause: CapacityEviction},
			{StartMS: 80_000, EndMS: 90_000, Windows: 1, RecentMisses: 6, TornMisses: 6, EvictedKeys: 90, Cause: TornPrefixes},
		}},
		{"below the least misses", with(with(steady(10), 5, 2, 2, 100), 0, 0, 0, 100), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := DetectBursts(tt.windows, 10_000, c)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DetectBursts(...) differs (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDetectBurstsAgainstTheMedian(t *testing.T) {
	// Misses everywhere (a pool too small): a burst needs MissFactor
	// times the median, not MinMisses.
	ws := steady(10)
	for i := range ws {
		ws[i].RecentMisses, ws[i].WholeMisses = 5, 5
	}
	with(ws, 3, 19, 0, 100)
	if got := DetectBursts(ws, 10_000, DefaultCriteria()); len(got) != 0 {
		t.Errorf("DetectBursts(19 misses against a median of 5) = %+v, want none", got)
	}
	with(ws, 3, 20, 0, 100)
	if got := DetectBursts(ws, 10_000, DefaultCriteria()); len(got) != 1 || got[0].StartMS != 30_000 {
		t.Errorf("DetectBursts(20 misses against a median of 5) = %+v, want one burst at 30 s", got)
	}
}
