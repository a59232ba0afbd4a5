package transfer

import "github.com/kvctl/kvctl/internal/crew"

// directPages is the most pages a direct set carries: whole batches of
// slots pages, SetBytes of pages of pageBytes or one batch.
func directPages(slots int, pageBytes int64) int {
	batches := max(1, SetBytes/(int64(slots)*max(1, pageBytes)))
	return slots * int(batches)
}

// callsOf is the store calls of count items in chunks of at most chunk.
func callsOf(count, chunk int) int { return (count + chunk - 1) / chunk }

// chunkCalls posts fn over [0, count) in chunks of at most chunk items
// (one store call each) to the crew: fn(j, lo, hi) for chunk j.
func chunkCalls(cr *crew.Crew, count, chunk int, fn func(j, lo, hi int) error) *crew.Task {
	return cr.Post(callsOf(count, chunk), func(j int) error {
		return fn(j, j*chunk, min((j+1)*chunk, count))
	})
}
