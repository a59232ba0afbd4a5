package sensitivity

import (
	"slices"
)

// Window is one stretch of a replay's modelled time, WidthMS long from
// StartMS (Tracker).
type Window struct {
	StartMS float64 `json:"start_ms"`
	// Lookups are the pool lookups made in the window.
	Lookups int64 `json:"lookups"`
	// RecentMisses are the lookups whose first missing block had been
	// found by a lookup within the recency horizon before: a recently
	// read chain that stopped being found.
	RecentMisses int64 `json:"recent_misses"`
	// TornMisses are those of RecentMisses with a later block of the
	// chain still in the pool (a middle block evicted); WholeMisses the
	// others, gone from the first missing block on (capacity eviction).
	TornMisses  int64 `json:"torn_misses"`
	WholeMisses int64 `json:"whole_misses"`
	// EvictedKeys are the keys the pool evicted in the window.
	EvictedKeys int64 `json:"evicted_keys"`
	// Requests are the requests that arrived in the window and got a
	// first token; TTFTP99MS is their time to first token's 99th
	// percentile (modelled ms), 0 without any.
	Requests  int64   `json:"requests"`
	TTFTP99MS float64 `json:"ttft_p99_ms"`
}

// Cause is what a burst's misses are attributed to.
type Cause string

// The causes of a burst.
const (
	// CapacityEviction: most missed chains were gone whole from their
	// first missing block on, as eviction of the oldest chains leaves
	// them.
	CapacityEviction Cause = "capacity eviction"
	// TornPrefixes: most missed chains had a block missing in the middle
	// while later blocks were still stored.
	TornPrefixes Cause = "torn prefixes"
)

// Burst is a run of consecutive burst windows (DetectBursts).
type Burst struct {
	StartMS      float64 `json:"start_ms"`
	EndMS        float64 `json:"end_ms"`
	Windows      int     `json:"windows"`
	RecentMisses int64   `json:"recent_misses"`
	TornMisses   int64   `json:"torn_misses"`
	WholeMisses  int64   `json:"whole_misses"`
	EvictedKeys  int64   `json:"evicted_keys"`
	// TTFTP99MS is the highest TTFT p99 of its windows.
	TTFTP99MS float64 `json:"ttft_p99_ms"`
	Cause     Cause   `json:"cause"`
}

// Criteria say which windows are burst windows.
type Criteria struct {
	// MinMisses is the fewest recent misses a burst window has.
	MinMisses int64 `json:"min_misses"`
	// MissFactor: a burst window has at least this many times the
	// median recent misses of the windows with lookups.
	MissFactor float64 `json:"miss_factor"`
	// EvictionFactor: a burst window evicts at most this many times the
	// median eviction volume of the windows that evicted anything (near
	// the median: not an eviction spike).
	EvictionFactor float64 `json:"eviction_factor"`
}

// DefaultCriteria are the criteria kvctl serve --sweep uses.
func DefaultCriteria() Criteria {
	return Criteria{MinMisses: 3, MissFactor: 4, EvictionFactor: 2}
}

// DetectBursts returns the bursts of windows, consecutive windows of
// widthMS each as a Tracker cuts them, in order: runs of consecutive windows that have at least c.MinMisses
// recent misses and c.MissFactor times the median recent misses (over the
// windows with lookups), while evicting at most c.EvictionFactor times the
// median eviction volume (over the windows that evicted anything; a
// window that evicted nothing qualifies). A burst's cause is torn
// prefixes when its torn misses outnumber its whole ones, else capacity
// eviction.
func DetectBursts(windows []Window, widthMS float64, c Criteria) []Burst {
	missBar := max(float64(c.MinMisses), c.MissFactor*medianOf(windows, func(w Window) (int64, bool) { return w.RecentMisses, w.Lookups > 0 }))
	evictBar := c.EvictionFactor * medianOf(windows, func(w Window) (int64, bool) { return w.EvictedKeys, w.EvictedKeys > 0 })
	var out []Burst
	open := false
	for _, w := range windows {
		if float64(w.RecentMisses) < missBar || float64(w.EvictedKeys) > evictBar {
			open = false
			continue
		}
		if !open {
			out = append(out, Burst{StartMS: w.StartMS})
		}
		open = true
		addWindow(&out[len(out)-1], w, widthMS)
	}
	return out
}

// addWindow adds window w to burst b and attributes b again.
func addWindow(b *Burst, w Window, widthMS float64) {
	b.EndMS = w.StartMS + widthMS
	b.Windows++
	b.RecentMisses += w.RecentMisses
	b.TornMisses += w.TornMisses
	b.WholeMisses += w.WholeMisses
	b.EvictedKeys += w.EvictedKeys
	b.TTFTP99MS = max(b.TTFTP99MS, w.TTFTP99MS)
	b.Cause = CapacityEviction
	if b.TornMisses > b.WholeMisses {
		b.Cause = TornPrefixes
	}
}

// medianOf is the median of the values of the windows that count, 0
// when none does (the lower middle value of an even count).
func medianOf(windows []Window, value func(Window) (int64, bool)) float64 {
	var xs []int64
	for _, w := range windows {
		if v, ok := value(w); ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return 0
	}
	slices.Sort(xs)
	return float64(xs[(len(xs)-1)/2])
}
