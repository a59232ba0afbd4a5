package replay

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

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

// Mismatch returns nil when got left what recorded did (Same), with the
// same per-op codes wherever recorded has them (ops with codes) and the same key set in
// every snapshot recorded has; otherwise an error naming the first
// difference (the keys on one side only, the op index and its codes, or
// the snapshot's label).
func Mismatch(recorded, got Outcome) error {
	switch {
	case !slices.Equal(recorded.Evicted, got.Evicted):
		return fmt.Errorf("evicted keys differ: %s", keysDiff(recorded.Evicted, got.Evicted))
	case !slices.Equal(recorded.PresentAfter, got.PresentAfter):
		return fmt.Errorf("keys present after differ: %s", keysDiff(recorded.PresentAfter, got.PresentAfter))
	case !slices.Equal(recorded.PutFailures, got.PutFailures):
		return fmt.Errorf("put failures %v, recorded %v", got.PutFailures, recorded.PutFailures)
	}
	for i, rc := range recorded.OpRC {
		if rc == nil {
			continue
		}
		if i >= len(got.OpRC) || !sameRC([]map[string]int{rc}, got.OpRC[i:i+1]) {
			return fmt.Errorf("op %d: codes %v, recorded %v", i, opRCAt(got.OpRC, i), rc)
		}
	}
	for _, label := range slices.Sorted(maps.Keys(recorded.Snapshots)) {
		if want, have := recorded.Snapshots[label], got.Snapshots[label]; !slices.Equal(want, have) {
			return fmt.Errorf("snapshot %q differs: %s", label, keysDiff(want, have))
		}
	}
	return nil
}

func opRCAt(rc []map[string]int, i int) map[string]int {
	if i < len(rc) {
		return rc[i]
	}
	return nil
}

// keysDiff names the keys of two sorted lists that only one holds, a few
// of each.
func keysDiff(recorded, got []string) string {
	var onlyGot, onlyRecorded []string
	for _, k := range got {
		if _, ok := slices.BinarySearch(recorded, k); !ok {
			onlyGot = append(onlyGot, k)
		}
	}
	for _, k := range recorded {
		if _, ok := slices.BinarySearch(got, k); !ok {
			onlyRecorded = append(onlyRecorded, k)
		}
	}
	return fmt.Sprintf("%s not recorded; %s recorded only", someKeys(onlyGot), someKeys(onlyRecorded))
}

// someKeys lists up to five keys and says how many more there are.
func someKeys(keys []string) string {
	const shown = 5
	switch {
	case len(keys) == 0:
		return "none"
	case len(keys) <= shown:
		return strings.Join(keys, " ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(keys[:shown], " "), len(keys)-shown)
}
