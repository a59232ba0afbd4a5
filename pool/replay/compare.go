package replay

import "slices"

// Same reports whether two outcomes left the same keys: the same keys
// present, evicted and failed to put.
func Same(a, b Outcome) bool {
	return slices.Equal(a.PresentAfter, b.PresentAfter) &&
		slices.Equal(a.Evicted, b.Evicted) &&
		slices.Equal(a.PutFailures, b.PutFailures)
}

// MatchingRun returns the index of the first recorded run whose outcome
// is Same as o, or -1.
func (rec *Recording) MatchingRun(o Outcome) int {
	return slices.IndexFunc(rec.Runs, func(r Outcome) bool { return Same(r, o) })
}

// Invariant reports whether every recorded run had the same outcome
// (Same, op_rc where recorded, and snapshots), and returns the first run.
func (rec *Recording) Invariant() (Outcome, bool) {
	if len(rec.Runs) == 0 {
		return Outcome{}, false
	}
	first := rec.Runs[0]
	for _, r := range rec.Runs[1:] {
		if !Same(first, r) || !sameRC(first.OpRC, r.OpRC) || !sameSnapshots(first.Snapshots, r.Snapshots) {
			return first, false
		}
	}
	return first, true
}

// SameOpRC reports whether got's per-op codes equal the recorded ones
// wherever the recording has them.
func SameOpRC(recorded, got Outcome) bool {
	if recorded.OpRC == nil {
		return true
	}
	return sameRC(recorded.OpRC, got.OpRC)
}

func sameRC(a, b []map[string]int) bool {
	return slices.EqualFunc(a, b, func(x, y map[string]int) bool {
		if (x == nil) != (y == nil) || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || w != v {
				return false
			}
		}
		return true
	})
}

func sameSnapshots(a, b map[string][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}
