package engine

// percentilesOf is the report's P50, P90 and P99 of xs: the elements at
// ranks q*(len-1), rounded down, of xs in ascending order (slices.Sort's,
// NaNs first), zero when xs is empty. It reorders xs in place: each rank
// is found by selection, which puts it where sorting would and leaves the
// smaller elements before it and the larger after, so the next, higher
// rank is looked for only after it. A replay's millions of samples take a
// few passes instead of a sort.
func percentilesOf[T float32 | float64](xs []T) Percentiles {
	if len(xs) == 0 {
		return Percentiles{}
	}
	var p [3]float64
	from := nansFirst(xs)
	for i, q := range [3]float64{0.50, 0.90, 0.99} {
		k := int(q * float64(len(xs)-1))
		if k >= from {
			selectRank(xs[from:], k-from)
			from = k
		}
		p[i] = float64(xs[k])
	}
	return Percentiles{P50: p[0], P90: p[1], P99: p[2]}
}

// nansFirst moves the NaNs of xs to its front, where a sort puts them,
// and returns how many there are.
func nansFirst[T float32 | float64](xs []T) int {
	n := 0
	for i, x := range xs {
		if x != x {
			xs[n], xs[i] = xs[i], xs[n]
			n++
		}
	}
	return n
}

// selectRank reorders xs, which holds no NaN, so that xs[k] is the element
// a sort would put there, with no larger element before it and no smaller
// one after (Hoare's selection, three-way partitions about the median of
// three).
func selectRank[T float32 | float64](xs []T, k int) {
	lo, hi := 0, len(xs)
	for hi-lo > 1 {
		lt, gt := partition3(xs[lo:hi], medianOf3(xs[lo], xs[lo+(hi-lo)/2], xs[hi-1]))
		switch {
		case k < lo+lt:
			hi = lo + lt
		case k >= lo+gt:
			lo += gt
		default:
			return
		}
	}
}

// partition3 reorders xs into the elements less than pivot, those equal
// to it and those greater, and returns where the equal ones start and end.
func partition3[T float32 | float64](xs []T, pivot T) (lt, gt int) {
	lt, i, gt := 0, 0, len(xs)
	for i < gt {
		switch x := xs[i]; {
		case x < pivot:
			xs[lt], xs[i] = x, xs[lt]
			lt++
			i++
		case x > pivot:
			gt--
			xs[i], xs[gt] = xs[gt], x
		default:
			i++
		}
	}
	return lt, gt
}

// medianOf3 is the middle of a, b and c.
func medianOf3[T float32 | float64](a, b, c T) T {
	if b < a {
		a, b = b, a
	}
	if c < b {
		b = max(a, c)
	}
	return b
}
