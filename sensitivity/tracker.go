package sensitivity

import (
	"cmp"
	"slices"

	"github.com/kvctl/kvctl/engine"
	"github.com/kvctl/kvctl/keys"
)

// Tracker is an engine.Observer that cuts a replay into windows of
// modelled time and counts, per window, the lookups, the recently read
// chains they missed (attributed as torn or evicted whole), the keys the
// pool evicted and the requests' TTFT tail. A block is read when a lookup
// finds it within the chain's leading present blocks (the blocks it can
// load); a lookup misses a recently read chain when its first missing
// block was read within the recency horizon before.
//
// Evictions are sampled from the pool at the first event of each window
// (its statistics walk the whole pool), and credited to the window before:
// a window's eviction volume is what the pool evicted from its first event
// to the next window's.
type Tracker struct {
	widthMS, recentMS float64
	evicted           func() (int64, error)
	lastRead          map[keys.Hash]float64
	windows           []Window
	ttft              [][]float64 // per window, by arrival
	sampledEvicted    int64
	sampledAt         int // the window the last sample opened
	err               error
}

// NewTracker returns a tracker of windows widthMS long that calls a chain
// recently read within recentMS; evicted returns the pool's keys evicted
// so far.
func NewTracker(widthMS, recentMS float64, evicted func() (int64, error)) *Tracker {
	return &Tracker{widthMS: widthMS, recentMS: recentMS, evicted: evicted, lastRead: map[keys.Hash]float64{}, sampledAt: -1}
}

// Lookup counts one lookup (engine.Observer).
func (t *Tracker) Lookup(atMS float64, hashes []keys.Hash, present []bool) {
	w := t.at(atMS)
	w.Lookups++
	first := slices.Index(present, false)
	hit := len(hashes)
	if first >= 0 {
		hit = first
	}
	if first >= 0 {
		if read, ok := t.lastRead[hashes[first]]; ok && atMS-read <= t.recentMS {
			w.RecentMisses++
			if slices.Contains(present[first+1:], true) {
				w.TornMisses++
			} else {
				w.WholeMisses++
			}
		}
	}
	for _, h := range hashes[:hit] {
		t.lastRead[h] = atMS
	}
}

// FirstToken counts a request's first token in its arrival's window
// (engine.Observer).
func (t *Tracker) FirstToken(arrivalMS, ttftMS float64) {
	t.at(arrivalMS + ttftMS)
	i := t.index(arrivalMS)
	t.windows[i].Requests++
	t.ttft[i] = append(t.ttft[i], ttftMS)
}

// Windows samples the pool's evictions once more, credits them to the
// window the last sample opened, and returns the windows, or the first
// error of a sample. Call it once, after the replay.
func (t *Tracker) Windows() ([]Window, error) {
	if t.sampledAt >= 0 {
		t.sample(t.sampledAt)
	}
	for i := range t.windows {
		t.windows[i].TTFTP99MS = engine.PercentilesOf(t.ttft[i]).P99
	}
	return t.windows, t.err
}

// at returns the window of modelled time atMS, opening windows up to it;
// the first event of a window samples the pool's evictions.
func (t *Tracker) at(atMS float64) *Window {
	i := t.index(atMS)
	if i > t.sampledAt {
		t.sample(i)
		t.forget(atMS)
	}
	return &t.windows[i]
}

// index opens windows up to the one holding atMS and returns its index.
func (t *Tracker) index(atMS float64) int {
	i := max(0, int(atMS/t.widthMS))
	for len(t.windows) <= i {
		t.windows = append(t.windows, Window{StartMS: float64(len(t.windows)) * t.widthMS})
		t.ttft = append(t.ttft, nil)
	}
	return i
}

// sample reads the pool's evictions at the first event of window i and
// credits those since the last sample to the window that sample opened.
func (t *Tracker) sample(i int) {
	n, err := t.evicted()
	if err != nil {
		t.err = cmp.Or(t.err, err)
		return
	}
	if t.sampledAt >= 0 {
		t.windows[t.sampledAt].EvictedKeys += n - t.sampledEvicted
	}
	t.sampledEvicted, t.sampledAt = n, i
}

// forget drops the blocks read longer ago than the recency horizon.
func (t *Tracker) forget(nowMS float64) {
	for h, read := range t.lastRead {
		if nowMS-read > t.recentMS {
			delete(t.lastRead, h)
		}
	}
}
