package engine

import "slices"

// appendSample appends v to xs, doubling the room when it is full. A
// replay keeps millions of latency samples; append grows a large slice by
// about a quarter at a time, which allocates some five times what it
// keeps by the end, where doubling allocates two to four times.
func appendSample[T any](xs []T, v T) []T {
	if len(xs) == cap(xs) {
		xs = slices.Grow(xs, max(len(xs), 1024))
	}
	return append(xs, v)
}
