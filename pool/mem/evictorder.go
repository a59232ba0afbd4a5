package mem

import (
	"cmp"
	"slices"
)

// candidate is an eviction candidate with its ordering key copied out of
// the object, so that ordering does not chase pointers. Candidates are
// ordered by lease deadline, then publish order: the master reads a
// nanosecond clock for every PutEnd and lease grant, so its deadlines
// never tie, while kvctl's clock may stand still (a virtual clock) over
// many puts, whose publish-time deadlines then tie; the publish order
// stands in for the clock's ticks between them. Comparisons with a
// cut-off ("at or before the target deadline") use the same order.
type candidate struct {
	lease int64
	seq   uint64
	o     *object
}

func compareCandidates(a, b candidate) int {
	return cmp.Or(cmp.Compare(a.lease, b.lease), cmp.Compare(a.seq, b.seq))
}

func lessCandidate(a, b candidate) bool { return compareCandidates(a, b) < 0 }

// byAge yields candidates oldest lease deadline first. It orders them a
// chunk at a time: a step usually needs only a few percent of them.
type byAge struct {
	c     []candidate
	ready int // c[:ready] is sorted and older than all of c[ready:]
}

// order makes sure the k oldest remaining candidates (at least a chunk)
// lead q, sorted.
func (q *byAge) order(k int) {
	if q.ready >= min(k, len(q.c)) {
		return
	}
	k = min(max(k, 64), len(q.c))
	selectOldest(q.c, k)
	slices.SortFunc(q.c[:k], compareCandidates)
	q.ready = k
}

// nth returns the k-th oldest remaining candidate (1 <= k <= len(q.c)).
func (q *byAge) nth(k int) candidate {
	q.order(k)
	return q.c[k-1]
}

// peek returns the oldest remaining candidate.
func (q *byAge) peek() (candidate, bool) {
	if len(q.c) == 0 {
		return candidate{}, false
	}
	q.order(1)
	return q.c[0], true
}

// pop drops the oldest remaining candidate, which peek returned.
func (q *byAge) pop() {
	q.c = q.c[1:]
	q.ready--
}

// selectOldest reorders c so that c[:k] holds its k oldest candidates, in
// no particular order (quickselect; keys are unique).
func selectOldest(c []candidate, k int) {
	lo, hi := 0, len(c)-1
	for lo < hi {
		p := partition(c, lo, hi)
		switch {
		case p == k || p == k-1:
			return
		case p < k:
			lo = p + 1
		default:
			hi = p - 1
		}
	}
}

// partition places a median-of-three pivot of c[lo:hi+1] at its final
// index, younger candidates after it, and returns that index.
func partition(c []candidate, lo, hi int) int {
	mid := lo + (hi-lo)/2
	if lessCandidate(c[mid], c[lo]) {
		c[mid], c[lo] = c[lo], c[mid]
	}
	if lessCandidate(c[hi], c[lo]) {
		c[hi], c[lo] = c[lo], c[hi]
	}
	if lessCandidate(c[mid], c[hi]) {
		c[mid], c[hi] = c[hi], c[mid]
	}
	pivot, i := c[hi], lo
	for j := lo; j < hi; j++ {
		if lessCandidate(c[j], pivot) {
			c[i], c[j] = c[j], c[i]
			i++
		}
	}
	c[i], c[hi] = c[hi], c[i]
	return i
}
